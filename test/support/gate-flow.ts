/**
 * A workflow of a manual trigger and one gate: what a test needs to have something waiting on a
 * human. `approved` adds the node the gate's approval leads to.
 */
export const gateFlow = (id: string, message: string, opts: { name?: string; node?: string; approved?: { id: string; type: string; config?: object } } = {}) => {
  const gate = opts.node ?? 'review';
  return {
    id,
    name: opts.name ?? id,
    formatVersion: 2,
    group: null,
    nodes: [{ id: 'start', type: 'trigger.manual' }, { id: gate, type: 'gate', config: { message } }, ...(opts.approved ? [opts.approved] : [])],
    edges: [{ from: 'start', to: gate }, ...(opts.approved ? [{ from: gate, to: opts.approved.id, when: 'approved' }] : [])],
  };
};
