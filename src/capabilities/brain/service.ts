/**
 * GET /api/brain (seed 000 §4.4): the provenance graph of the home — which runs (with their model,
 * agent and prompt's first line) read, wrote, edited or deleted which files, who started them,
 * what they delegated to, which checkpoints and work items they made. Kept incrementally from the
 * bus as events happen and appended to `<home>/brain/graph.jsonl` (one node or edge a line, replayed
 * at start), so a query never scans a run log. A home from before the brain existed is backfilled
 * from the run ledger's records alone (runs, sessions, workflows, agents, models; file edges start
 * with the first event after the upgrade). docs/brain.md has the node and edge types.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent } from '../../kernel/bus.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { JsonlAppender } from '../../kernel/jsonl.js';
import type { RunRecord } from '../../kernel/runs.js';
import { BrainGraph, NODE_TYPES, type BrainAnswer, type BrainEdge, type BrainNode, type NodeType } from './graph.js';

export const BRAIN_LIMIT = 500;
const MAX_LIMIT = 5_000;
const MAX_DEPTH = 6;

/** What a tool did to the file its `path` names, by tool; file events say the same for the engine's writes. */
const FILE_EVENTS: Record<string, string> = { 'file.read': 'read', 'file.written': 'wrote', 'file.edited': 'edited', 'file.deleted': 'deleted' };
const ENDS = new Set(['run.completed', 'run.failed', 'run.stopped', 'run.interrupted']);

export interface BrainDeps {
  dir: string;
  /** Every run in the ledger, for the backfill of a home that has no brain file yet. */
  runs: () => RunRecord[];
}

export type BrainService = Awaited<ReturnType<typeof createBrainService>>;

export async function createBrainService(deps: BrainDeps) {
  const graph = new BrainGraph();
  const file = path.join(deps.dir, 'graph.jsonl');
  await mkdir(deps.dir, { recursive: true });
  const log = new JsonlAppender(file, 200);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text !== undefined) {
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const v = JSON.parse(line) as { n?: BrainNode; e?: BrainEdge };
        if (v.n) graph.node(v.n);
        else if (v.e) graph.edge(v.e);
      } catch {
        // a torn last line from a kill: skipped
      }
    }
  }

  const node = (n: BrainNode) => void (graph.node(n) && log.append({ n: graph.nodes.get(n.id) }));
  const edge = (e: BrainEdge) => void (graph.edge(e) && log.append({ e }));
  const ensure = (id: string, type: NodeType, label: string, at: number) => void (!graph.nodes.has(id) && node({ id, type, label, at }));

  function runStarted(r: Partial<RunRecord> & { runId: string }, at: number): void {
    const id = `run:${r.runId}`;
    node({ id, type: 'run', label: r.title || r.source || r.runId, at, data: { source: r.source, status: r.status ?? 'running', model: r.model, agent: r.agent, title: r.title, startedAt: r.startedAt ?? at, ...(r.endedAt ? { endedAt: r.endedAt } : {}) } });
    const link = (other: string, type: NodeType, label: string, edgeType: string, inbound: boolean) => {
      ensure(other, type, label, at);
      edge(inbound ? { from: other, to: id, type: edgeType, at, runId: r.runId } : { from: id, to: other, type: edgeType, at, runId: r.runId });
    };
    if (r.sessionId) link(`session:${r.sessionId}`, 'session', r.sessionId, 'started', true);
    if (r.workflowId) link(`workflow:${r.workflowId}`, 'workflow', r.workflowId, 'started', true);
    if (r.parentRunId) link(`run:${r.parentRunId}`, 'run', r.parentRunId, 'started', true);
    if (r.agent) link(`agent:${r.agent}`, 'agent', r.agent, 'ran-as', false);
    if (r.model) link(`model:${r.model}`, 'model', r.model, 'used', false);
    if (r.workItem) link(`work:${r.workItem}`, 'work', r.workItem, 'for', false);
  }

  if (text === undefined) for (const r of deps.runs()) runStarted(r, r.startedAt);

  return {
    /** Every event on the bus: what it says about provenance, if anything. */
    onEvent(e: EngineEvent): void {
      const runId = e.runId;
      if (!runId) return;
      const run = `run:${runId}`;
      if (e.kind === 'run.started') return runStarted({ ...(e as unknown as RunRecord), runId }, e.ts);
      if (ENDS.has(e.kind)) {
        const old = graph.nodes.get(run);
        if (old) node({ ...old, data: { status: e.kind.slice(4), endedAt: e.ts } });
        return;
      }
      const fileEdge = FILE_EVENTS[e.kind];
      if (fileEdge && typeof e.path === 'string' && e.path) {
        ensure(`file:${e.path}`, 'file', e.path, e.ts);
        return edge({ from: run, to: `file:${e.path}`, type: fileEdge, at: e.ts, runId });
      }
      if (e.kind === 'tool.call' && e.tool === 'delegate') {
        const agent = (e.args as { agent?: unknown } | undefined)?.agent;
        if (typeof agent === 'string' && agent) {
          ensure(`agent:${agent}`, 'agent', agent, e.ts);
          edge({ from: run, to: `agent:${agent}`, type: 'delegated-to', at: e.ts, runId });
        }
        return;
      }
      if (e.kind === 'checkpoint.created' && typeof e.sha === 'string') {
        ensure(`checkpoint:${e.sha}`, 'checkpoint', `${String(e.root ?? 'workspace')} @ ${e.sha.slice(0, 8)}`, e.ts);
        return edge({ from: run, to: `checkpoint:${e.sha}`, type: 'created', at: e.ts, runId });
      }
      if (e.kind === 'work.updated' && typeof e.project === 'string' && typeof e.key === 'string') {
        const id = `work:${e.project}/${e.key}`;
        ensure(id, 'work', `${e.project}/${e.key}`, e.ts);
        edge({ from: run, to: id, type: 'updated', at: e.ts, runId });
      }
    },

    /** GET /api/brain with its query parameters, checked. */
    query(raw: Record<string, unknown>): BrainAnswer {
      const types = typeof raw.types === 'string' && raw.types ? raw.types.split(',').map((t) => t.trim()) : undefined;
      const unknown = types?.filter((t) => !NODE_TYPES.includes(t as NodeType));
      if (unknown?.length) throw badRequest(`types names ${unknown.map((t) => `"${t}"`).join(', ')}, which the brain does not have; node types are ${NODE_TYPES.join(', ')}`);
      const depth = raw.depth === undefined ? 1 : Number(raw.depth);
      if (!Number.isInteger(depth) || depth < 0 || depth > MAX_DEPTH) throw badRequest(`depth must be a whole number from 0 to ${MAX_DEPTH}`);
      const limit = raw.limit === undefined ? BRAIN_LIMIT : Number(raw.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be a whole number from 1 to ${MAX_LIMIT} (nodes answered at most)`);
      let since: number | undefined;
      if (raw.since !== undefined && raw.since !== '') {
        since = /^\d+$/.test(String(raw.since)) ? Number(raw.since) : Date.parse(String(raw.since));
        if (!Number.isFinite(since)) throw badRequest('since must be a time: epoch milliseconds or an ISO date such as 2026-11-27T00:00:00Z');
      }
      let focus: string | undefined;
      if (typeof raw.focus === 'string' && raw.focus) {
        const f = raw.focus;
        focus = NODE_TYPES.some((t) => f.startsWith(`${t}:`)) ? f : `file:${f.replace(/^\/+/, '')}`;
        if (!graph.nodes.has(focus)) throw notFound(`the brain knows nothing of "${f}"; focus on a node id such as run:<runId>, session:<id>, agent:<name>, or a workspace path`);
      }
      return graph.query({ focus, depth, types: types as NodeType[] | undefined, since, limit });
    },

    size: () => graph.size,
    flush: () => log.flush(),
    close: () => log.flush(),
  };
}
