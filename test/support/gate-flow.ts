/** A workflow of a manual trigger and one gate: what a test needs to have something waiting on a human. */
export const gateFlow = (id: string, message: string, opts: { name?: string; node?: string } = {}) => ({
  id,
  name: opts.name ?? id,
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: opts.node ?? 'review', type: 'gate', config: { message } },
  ],
  edges: [{ from: 'start', to: opts.node ?? 'review' }],
});
