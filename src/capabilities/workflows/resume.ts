/**
 * Resume after a crash: reads the run's log and decides, node by node, what is restored (its
 * `node.completed` is in the log: output and branch come back, it does not run again), what reruns
 * from its start (`node.started` with no end), and which of those may have left partial side effects
 * (`lossy`: a command, a non-GET request, a map or subworkflow that had started, an agent that had
 * called a writing tool). State comes back as the last `state.updated` value of each key.
 */
import type { EngineEvent } from '../../kernel/bus.js';
import type { RestorePlan } from './executor.js';
import { nodeType } from './nodes/index.js';
import type { WorkflowDocument } from './types.js';

export interface ResumeReport {
  restored: string[];
  rerun: string[];
  lossy: string[];
  /** Events read from the log. */
  steps: number;
  payload: unknown;
  /** The trigger node that started the run (its first event), so the same entry is taken again. */
  entry?: string;
  plan: RestorePlan;
}

/** Reads the log once, a batch at a time as it streams in (a long run's log is never held whole). */
export async function planResume(doc: WorkflowDocument, batches: AsyncIterable<{ events: readonly EngineEvent[] }>, readOnlyTool: (name: string) => boolean): Promise<ResumeReport> {
  const completions: RestorePlan['completions'] = new Map();
  const state: Record<string, unknown> = {};
  const open = new Map<string, EngineEvent[]>();
  const restored = new Set<string>();
  let payload: unknown = {};
  let entry: string | undefined;
  const triggers = new Set(doc.nodes.filter((n) => nodeType(n.type)?.trigger).map((n) => n.id));
  let steps = 0;
  for await (const { events } of batches) for (const e of events) {
    steps++;
    const nodeId = typeof e.nodeId === 'string' ? e.nodeId : undefined;
    if (e.kind === 'state.updated' && typeof e.key === 'string') {
      if (e.key === 'trigger') payload = e.value;
      else state[e.key] = e.value;
    }
    if (!nodeId) continue;
    if (entry === undefined && triggers.has(nodeId)) entry = nodeId;
    if (e.kind === 'node.started') {
      open.set(nodeId, []);
      continue;
    }
    if (e.kind === 'node.completed') {
      open.delete(nodeId);
      restored.add(nodeId);
      push(completions, nodeId, { output: e.output, branch: typeof e.branch === 'string' ? e.branch : undefined });
      continue;
    }
    if (e.kind === 'node.failed') {
      open.delete(nodeId);
      if (e.handled === true) {
        restored.add(nodeId);
        push(completions, nodeId, { output: { error: e.error }, failed: String(e.error ?? 'failed') });
      }
      continue;
    }
    open.get(nodeId)?.push(e);
  }
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));
  const rerun = [...open.keys()].filter((id) => byId.has(id));
  const lossy = rerun.filter((id) => {
    const spec = byId.get(id)!;
    const type = nodeType(spec.type);
    return !!type?.lossy?.(spec.config ?? {}, open.get(id)! as Array<Record<string, unknown>>, readOnlyTool);
  });
  return { restored: [...restored].filter((id) => byId.has(id)), rerun, lossy, steps, payload, entry, plan: { completions, state } };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
