/**
 * Human review gates: `gate.waiting` (with the message and what the run changed so far), resolved by
 * POST /api/gates/resolve. Pending gates are written to `<home>/gates.json` so a person can still
 * read them after the engine dies: the next engine lists them as `orphaned` (readable, not
 * resolvable); resuming the run asks again. Keys are `<runId>:<nodeId>` (split on the LAST colon).
 * A pool keeps its gates in its database instead (src/pool/gates.ts), behind the same `GateStore`.
 */
import { notFound } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import type { Home } from '../../kernel/home.js';
import type { GateInfo, GateStore } from './types.js';

export type { GateInfo } from './types.js';

interface Waiting extends GateInfo {
  emit: Emit;
  settle(answer: { approved: boolean; note?: string }): void;
}

export const GATES_FILE = 'gates.json';
export const gateKey = (runId: string, nodeId: string) => `${runId}:${nodeId}`;

/** Splits a gate key on its LAST colon (a node id never holds one, a run id neither). */
export function splitGateKey(key: string): { runId: string; nodeId: string } | undefined {
  const i = key.lastIndexOf(':');
  if (i <= 0 || i === key.length - 1) return undefined;
  return { runId: key.slice(0, i), nodeId: key.slice(i + 1) };
}

export function createGates(deps: { home: Home }): GateStore {
  const pending = new Map<string, Waiting>();
  const orphaned = new Map<string, GateInfo>();

  const persist = () => {
    const gates = [...pending.values()].map(({ key, runId, nodeId, workflowId, message, since }) => ({ key, runId, nodeId, workflowId, message, since }));
    return deps.home.writeJson(GATES_FILE, { gates: [...gates, ...orphaned.values()] });
  };

  /** Gates on disk at start were left by an engine that died: they are orphaned. */
  async function init(): Promise<void> {
    let file: { gates?: GateInfo[] } = {};
    try {
      file = await deps.home.readJson<{ gates?: GateInfo[] }>(GATES_FILE, {});
    } catch {
      // A corrupt gates file is not fatal: the gates can be asked again by resuming their runs.
    }
    for (const g of Array.isArray(file.gates) ? file.gates : []) if (g && typeof g.key === 'string') orphaned.set(g.key, g);
  }

  const wait: GateStore['wait'] = async (req) => {
    const key = gateKey(req.runId, req.nodeId);
    orphaned.delete(key);
    if (req.signal.aborted) throw req.signal.reason ?? new Error('stopped');
    const changes = await req.changes().catch(() => '');
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        pending.delete(key);
        void persist();
        reject(req.signal.reason ?? new Error('stopped'));
      };
      pending.set(key, {
        key,
        runId: req.runId,
        nodeId: req.nodeId,
        workflowId: req.workflowId,
        message: req.message,
        since: Date.now(),
        emit: req.emit,
        settle: (answer) => {
          req.signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      req.signal.addEventListener('abort', onAbort, { once: true });
      // The gate is on disk before anyone is told about it.
      void persist().then(() => req.emit('gate.waiting', { nodeId: req.nodeId, key, workflowId: req.workflowId, message: req.message, changes }));
    });
  };

  async function resolve(input: { runId: string; nodeId: string; approved: boolean; note?: string }): Promise<void> {
    const key = gateKey(input.runId, input.nodeId);
    const gate = pending.get(key);
    if (!gate) {
      if (orphaned.has(key)) throw notFound(`gate ${key} is orphaned: the engine that asked it stopped. Resume the run (POST /api/runs/${input.runId}/resume) and it asks again`);
      throw notFound(`no gate ${key} is pending; GET /api/gates lists the pending gates`);
    }
    pending.delete(key);
    await persist();
    gate.emit('gate.resolved', { nodeId: gate.nodeId, key, approved: input.approved, note: input.note });
    gate.settle({ approved: input.approved, note: input.note });
  }

  /** A run that ended leaves no orphan behind. */
  function forgetRun(runId: string): void {
    let changed = false;
    for (const [key, g] of orphaned) if (g.runId === runId) (orphaned.delete(key), (changed = true));
    if (changed) void persist();
  }

  const list = () => ({
    pending: [...pending.keys()],
    orphaned: [...orphaned.keys()],
    gates: [...[...pending.values()].map(({ key, runId, nodeId, workflowId, message, since }) => ({ key, runId, nodeId, workflowId, message, since, orphaned: false })), ...[...orphaned.values()].map((g) => ({ ...g, orphaned: true }))],
  });

  return { init, wait, resolve, list, forgetRun };
}

export type Gates = GateStore;
