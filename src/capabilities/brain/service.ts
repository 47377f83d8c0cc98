/**
 * GET /api/brain (seed 000 §4.4): the provenance graph of the home — which runs (with their model,
 * agent and prompt's first line) read, wrote, edited or deleted which files, who started them,
 * what they delegated to, which checkpoints and work items they made. Kept incrementally from the
 * bus as events happen: each change is appended to `<home>/brain/graph.jsonl` (the truth, one node
 * or edge a line) and applied to the index beside it, `graph.sqlite` (store.ts), which queries read
 * by key; nothing of old runs is held in memory, and a start reads nothing until the brain is first
 * needed. The index is derived: one missing, unreadable or behind its log (a crash between the two
 * writes) is made again from the log at its first use. A home from before the brain existed is
 * backfilled from the run ledger's records alone (runs, sessions, workflows, agents, models; file
 * edges start with the first event after the upgrade). docs/brain.md has the node and edge types.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent } from '../../kernel/bus.js';
import { badRequest, describeError, notFound } from '../../kernel/errors.js';
import { repairTail } from '../../kernel/jsonl.js';
import type { RunRecord } from '../../kernel/runs.js';
import { NODE_TYPES, queryGraph, type BrainAnswer, type BrainEdge, type BrainNode, type NodeType } from './graph.js';
import { GraphLog } from './log.js';
import { BrainStore, laterEdge, mergeNode, type GraphLine } from './store.js';

export const BRAIN_LIMIT = 500;
const MAX_LIMIT = 5_000;
const MAX_DEPTH = 6;
/** Changes are written (log, then index) in batches this far apart; a query writes what is pending first. */
const FLUSH_MS = 200;
/** A backfill writes every this many lines, so a long ledger's graph is never pending in memory whole. */
const BACKFILL_BATCH = 5_000;

/** What a tool did to the file its `path` names, by tool; file events say the same for the engine's writes. */
const FILE_EVENTS: Record<string, string> = { 'file.read': 'read', 'file.written': 'wrote', 'file.edited': 'edited', 'file.deleted': 'deleted' };
const ENDS = new Set(['run.completed', 'run.failed', 'run.stopped', 'run.interrupted']);

/** The events the graph learns from (every other one passes without opening the index). */
const relevant = (e: EngineEvent): boolean =>
  !!e.runId && (e.kind === 'run.started' || ENDS.has(e.kind) || e.kind in FILE_EVENTS || (e.kind === 'tool.call' && e.tool === 'delegate') || e.kind === 'checkpoint.created' || e.kind === 'work.updated');

export interface BrainDeps {
  dir: string;
  /** Every run in the ledger, for the backfill of a home whose graph log is empty. */
  runs: () => RunRecord[];
  /** Operational log lines (an index made again). */
  log?: (line: string) => void;
  /**
   * The exit mask, applied to the ledger's records the backfill reads: they are held unmasked in
   * memory (only their files are masked), and nothing of the home may hold a stored secret in plain
   * text. Events need nothing more: the bus masks every event before its listeners get it.
   */
  redact: <T>(value: T) => T;
}

export type BrainService = Awaited<ReturnType<typeof createBrainService>>;

export async function createBrainService(deps: BrainDeps) {
  await mkdir(deps.dir, { recursive: true });
  const log = new GraphLog(path.join(deps.dir, 'graph.jsonl'));
  const indexFile = path.join(deps.dir, 'graph.sqlite');
  /** Set by open() when the log is empty: a home from before the brain (or one killed before its first write), backfilled from the ledger. */
  let backfill = false;
  let store: BrainStore | undefined;
  let opening: Promise<BrainStore> | undefined;
  /** Events that arrived while the index was opening, handled in order once it is. */
  const queued: EngineEvent[] = [];
  /** Changes not yet written: their lines in order, and the nodes and edges as they now stand. */
  let lines: GraphLine[] = [];
  const pendingNodes = new Map<string, BrainNode>();
  const pendingEdges = new Map<string, BrainEdge>();
  let timer: NodeJS.Timeout | undefined;
  /** Set by close(): a late event (a run ending during shutdown) must not open the index again in a home being let go. */
  let closed = false;
  const edgeKey = (from: string, to: string, type: string) => `${from}\u0000${to}\u0000${type}`;

  /** Opens the index and brings it up to the log (made again from it when missing, unreadable or not this log's). */
  function open(): Promise<BrainStore> {
    opening ??= (async () => {
      await repairTail(log.file);
      let s: BrainStore;
      try {
        s = new BrainStore(indexFile);
      } catch (err) {
        deps.log?.(`brain: the index ${indexFile} could not be opened (${describeError(err)}); making it again from graph.jsonl`);
        BrainStore.remove(indexFile);
        s = new BrainStore(indexFile);
      }
      const size = log.size();
      backfill = size === 0;
      const at = s.position();
      let from = at.offset;
      if (from > size || log.markAt(from) !== at.mark) {
        if (from > 0) deps.log?.('brain: graph.jsonl is not the log the index was made from; making the index again');
        s.clear();
        from = 0;
      }
      // What the index lacks: everything (a first open, a rebuild), or the lines a crash left unapplied.
      for await (const batch of log.read(from, size)) s.apply(batch);
      s.setPosition({ offset: size, mark: log.markAt(size) });
      return s;
    })().catch((err) => {
      opening = undefined;
      throw err;
    });
    return opening;
  }

  async function ready(): Promise<BrainStore> {
    if (store) return store;
    const s = await open();
    if (!store) {
      store = s;
      if (backfill) {
        for (const r of deps.runs()) {
          runStarted(deps.redact(r), r.startedAt);
          if (lines.length >= BACKFILL_BATCH) flush();
        }
        // Written at once, not at the timer: a kill before this leaves the log empty, and an empty log is backfilled again.
        flush();
      }
      for (const e of queued.splice(0)) handle(e);
    }
    return store;
  }

  /** Writes the pending changes: the log first (the truth), then the index with how far it now reaches. */
  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (!lines.length || !store) return;
    const batch = lines;
    let at: { offset: number; mark: string };
    try {
      at = log.append(batch);
    } catch (err) {
      deps.log?.(`brain: could not append to ${log.file}: ${describeError(err)}; kept for the next write`);
      schedule();
      return;
    }
    lines = [];
    pendingNodes.clear();
    pendingEdges.clear();
    try {
      store.apply(batch, at);
    } catch (err) {
      // The log has the lines: the next open replays them into the index.
      deps.log?.(`brain: could not update the index (${describeError(err)}); it is brought up to the log at its next use`);
      store.close();
      store = undefined;
      opening = undefined;
    }
  }

  function schedule(): void {
    if (timer) return;
    timer = setTimeout(flush, FLUSH_MS);
    timer.unref();
  }

  const nodeNow = (id: string): BrainNode | undefined => pendingNodes.get(id) ?? store!.node(id);

  function node(n: BrainNode): void {
    const old = nodeNow(n.id);
    const next = mergeNode(old, n);
    if (old && JSON.stringify(next) === JSON.stringify(old)) return;
    pendingNodes.set(n.id, next);
    lines.push({ n: next });
    schedule();
  }

  function edge(e: BrainEdge): void {
    const key = edgeKey(e.from, e.to, e.type);
    const next = laterEdge(pendingEdges.get(key) ?? store!.edge(e.from, e.to, e.type), e);
    if (!next) return;
    pendingEdges.set(key, next);
    lines.push({ e: next });
    schedule();
  }

  const ensure = (id: string, type: NodeType, label: string, at: number) => void (!nodeNow(id) && node({ id, type, label, at }));

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

  /** What one event says about provenance (the index is open). */
  function handle(e: EngineEvent): void {
    const runId = e.runId!;
    const run = `run:${runId}`;
    if (e.kind === 'run.started') return runStarted({ ...(e as unknown as RunRecord), runId }, e.ts);
    if (ENDS.has(e.kind)) {
      const old = nodeNow(run);
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
  }

  return {
    /** Every event on the bus: what it says about provenance, if anything (the index opens on the first that does). */
    onEvent(e: EngineEvent): void {
      if (closed || !relevant(e)) return;
      if (store) return handle(e);
      queued.push(e);
      void ready().catch((err) => deps.log?.(`brain: the index could not be opened: ${describeError(err)}`));
    },

    /** GET /api/brain with its query parameters, checked. */
    async query(raw: Record<string, unknown>): Promise<BrainAnswer> {
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
      const s = await ready();
      flush();
      let focus: string | undefined;
      if (typeof raw.focus === 'string' && raw.focus) {
        const f = raw.focus;
        focus = NODE_TYPES.some((t) => f.startsWith(`${t}:`)) ? f : `file:${f.replace(/^\/+/, '')}`;
        if (!s.has(focus)) throw notFound(`the brain knows nothing of "${f}"; focus on a node id such as run:<runId>, session:<id>, agent:<name>, or a workspace path`);
      }
      return queryGraph(s, { focus, depth, types: types as NodeType[] | undefined, since, limit });
    },

    /** Nodes and edges in the graph (benches). */
    size: async () => {
      const s = await ready();
      flush();
      return s.size();
    },

    /** Writes what is pending and closes the index and the log (engine stop). */
    async close(): Promise<void> {
      closed = true;
      if (opening) await ready().catch(() => undefined);
      flush();
      store?.close();
      store = undefined;
      opening = undefined;
      log.close();
    },
  };
}
