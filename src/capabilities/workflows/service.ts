/**
 * The workflows capability: the store (files, validation, history), the one trigger service every
 * run starts through (manual, webhook, cron, subworkflow), the executor, gates and resume.
 * One top-level run per workflow at a time; a subworkflow is a child run and is not counted.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Bus, EngineEvent } from '../../kernel/bus.js';
import { conflict, EngineError, forbidden, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { authority, joinAuthorities, type ModelAuthor, type ProvenanceStore } from '../../kernel/provenance.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { HistoryRecorder } from '../history/types.js';
import { realClock, type Clock } from './clock.js';
import { previewCron } from './cron.js';
import { createCronScheduler } from './cron-scheduler.js';
import { DepthLimitError, WorkflowRun, type ExecutorDeps, type RunResult } from './executor.js';
import { FileWorkflowBackend, fileCronState } from './files.js';
import { createGates } from './gates.js';
import { NODE_TYPES, nodeType } from './nodes/index.js';
import { planResume } from './resume.js';
import { WorkflowStore } from './store.js';
import { unattendedWarnings } from './unattended.js';
import { lastRun, triggerStatus } from './listing.js';
import type { ChildEnd, ChildStart, NodeServices, NodeSpec, RunJob, RunSource, WorkflowDocument, WorkflowPool } from './types.js';

export interface WorkflowsDeps {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  log: (line: string) => void;
  history: () => HistoryRecorder | undefined;
  services: NodeServices;
  /** Tool names (agent node warnings) and whether a tool only reads (resume's lossy check). */
  tools: { names(): string[]; readOnly(name: string): boolean };
  secret(name: string): Promise<string | undefined>;
  /** Who made each workflow (src/kernel/provenance.ts). */
  provenance: ProvenanceStore;
  /** The author a tool call stamps on a workflow it saves (the permission gate's authorOf). */
  authorOf(ctx: import('../../tools/types.js').ToolContext): Promise<ModelAuthor>;
  clock?: Clock;
  /** What a run changed so far, for gate.waiting (the git capability's runChanges when wired). */
  changes?: (runId: string) => Promise<string>;
  watch?: boolean;
  /**
   * Several engines on one database (src/pool): definitions, gates and cron state live there, and
   * every top-level run is queued for whichever engine's worker takes it. Absent: this engine alone.
   */
  pool?: WorkflowPool;
}

export interface StartRequest {
  workflowId: string;
  payload?: unknown;
  source: Exclude<RunSource, 'workflow'>;
  attended: boolean;
  /** The trigger node that fired (webhook, cron); a manual run takes the manual entry rules. */
  nodeId?: string;
  /** A cron fire's time: a pool starts one run per tick however many engines fire it. */
  tick?: number;
}

export interface ResumeAnswer {
  ok: true;
  runId: string;
  workflowId: string;
  restored: string[];
  rerun: string[];
  lossy: string[];
  steps: number;
}

export function createWorkflowsService(deps: WorkflowsDeps) {
  const clock = deps.clock ?? realClock;
  const emit = (kind: string, payload?: Record<string, unknown>) => void deps.bus.emit(kind, payload);
  const pool = deps.pool;
  const store: WorkflowStore = new WorkflowStore({
    backend: pool?.workflows ?? new FileWorkflowBackend({ home: deps.home, provenance: deps.provenance, log: deps.log, watch: deps.watch }),
    emit,
    history: deps.history,
    log: deps.log,
    validateContext: { workflowIds: (): string[] => store.ids(), toolNames: () => deps.tools.names() },
  });
  // What a gate shows: the run's own account (nodes, files, commands, state) and, from the git
  // capability, the diff of everything it changed since its first checkpoint.
  const changes = async (runId: string): Promise<string> => {
    const summary = await summarizeChanges(deps.runs, runId);
    const diff = deps.changes ? await deps.changes(runId).catch(() => '') : '';
    const text = diff ? `${summary}\n\nchanges since the run's first checkpoint:\n${diff}` : summary;
    return text.length > LIMITS.gateChangesChars ? text.slice(0, LIMITS.gateChangesChars - 1) + '…' : text;
  };
  const gates = pool?.gates ?? createGates({ home: deps.home });
  /** Live workflow runs by run id (top-level and children). */
  const live = new Map<string, WorkflowRun>();
  /** The live top-level run of each workflow: the one-run-per-workflow guard. */
  const active = new Map<string, string>();

  const executorDeps: ExecutorDeps = {
    services: { ...deps.services, gate: (req) => gates.wait({ ...req, changes: () => changes(req.runId) }) },
    clock,
    secret: deps.secret,
    runChild,
    onEnd: (wr: WorkflowRun, _r: RunResult) => {
      live.delete(wr.id);
      if (active.get(wr.doc.id) === wr.id) active.delete(wr.doc.id);
      gates.forgetRun(wr.id);
    },
  };

  const cron = createCronScheduler({
    state: pool?.cron ?? fileCronState(deps.home),
    clock,
    // Missed fires are also kept as a notification: at start no client is listening yet.
    emit: (kind, payload = {}) => {
      emit(kind, payload);
      if (kind === 'trigger.skipped' && typeof payload.missed === 'number') {
        void deps.services.notify?.({
          title: `Workflow ${String(payload.workflowId)}: missed runs skipped`,
          body: `${payload.missed} scheduled runs of trigger "${String(payload.nodeId)}" were missed while the engine was not running; they were skipped (set config.catchUp to run once instead).`,
          level: 'warning',
          source: 'workflow',
        }).catch(() => undefined);
      }
    },
    log: deps.log,
    fire: async (workflowId, nodeId, payload, tick) => {
      try {
        await start({ workflowId, nodeId, payload, source: 'cron', attended: false, tick });
        return 'started';
      } catch (err) {
        if (err instanceof EngineError && err.status === 409 && (pool ? err instanceof AlreadyRunning : active.has(workflowId))) return 'running';
        emit('trigger.skipped', { workflowId, nodeId, reason: (err as Error).message });
        return 'refused';
      }
    },
  });

  async function init(): Promise<void> {
    await Promise.all([store.init(), gates.init()]);
    await cron.init(store.all());
    store.onChange(() => cron.sync(store.all()));
    pool?.work((job) => execute(job));
  }

  async function close(): Promise<void> {
    await store.close();
    await cron.close();
  }

  /** The trigger node a start fires, and the refusals a disabled workflow or a paused trigger get. */
  function entryNode(doc: WorkflowDocument, nodeId?: string): NodeSpec | undefined {
    if (nodeId) return doc.nodes.find((n) => n.id === nodeId);
    return doc.nodes.find((n) => n.type === 'trigger.manual') ?? doc.nodes.find((n) => nodeType(n.type)?.trigger);
  }

  /** The checks every start passes wherever it runs: the document, disabled, the entry node, paused. */
  function startable(workflowId: string, nodeId?: string): { doc: WorkflowDocument; entry?: NodeSpec } {
    const doc = store.require(workflowId);
    if (doc.disabled) throw conflict(`workflow "${doc.id}" is disabled; enable it (set "disabled": false and save) before starting it`);
    const entry = entryNode(doc, nodeId);
    if (nodeId && !entry) throw notFound(`workflow "${doc.id}" has no node "${nodeId}"`);
    if (entry?.config?.paused === true) throw conflict(`trigger "${entry.id}" of workflow "${doc.id}" is paused; unpause it (config.paused: false) to start runs through it`);
    return { doc, entry };
  }

  /** The one way a top-level run starts (manual, webhook, cron). Returns the run id (a pool: queued; '' for a tick another engine queued). */
  async function start(req: StartRequest): Promise<string> {
    const { doc, entry } = startable(req.workflowId, req.nodeId);
    if (pool) {
      const tick = req.tick === undefined ? undefined : `${doc.id}:${entry?.id ?? ''}:${req.tick}`;
      const queued = await pool.enqueue({ workflowId: doc.id, source: req.source, title: doc.name ?? doc.id, payload: req.payload ?? {}, attended: req.attended, nodeId: entry?.id, tick });
      return queued ?? '';
    }
    const running = active.get(doc.id);
    if (running) throw conflict(`workflow "${doc.id}" is already running (run ${running}); stop it (POST /api/runs/${running}/stop) or wait for it to end`);
    const run = deps.runs.start({ source: req.source, workflowId: doc.id, title: doc.name ?? doc.id });
    const wr = new WorkflowRun({ doc, run, source: req.source, payload: req.payload ?? {}, attended: req.attended, authors: authorsOf(doc.id), triggerNodeId: entry?.id, depth: 0 }, executorDeps);
    live.set(run.id, wr);
    active.set(doc.id, run.id);
    void wr.start();
    return run.id;
  }

  /** The workflow's model author, if a model wrote its current content. */
  const authorsOf = (id: string) => joinAuthorities(authority('workflow', id, store.authorOf(id)));

  /**
   * A pool worker was handed a run (the pool claimed it for this engine): start it, or take it over
   * from an engine that died, resuming from its log as POST /api/runs/<id>/resume does. Resolves
   * once the run has ended. A definition deleted, rejected or disabled meanwhile fails the run.
   */
  async function execute(job: RunJob): Promise<void> {
    const record = deps.runs.record(job.runId);
    if (!record?.workflowId) return;
    if (job.child) return pool!.childEnded(await runChildHere(job.child, job.runId).catch((err) => refused(job.runId, record.workflowId!, err)));
    let wr: WorkflowRun;
    try {
      if (job.takeover) {
        const doc = store.require(record.workflowId);
        const report = await planResume(doc, await deps.runs.readEvents(job.runId), deps.tools.readOnly);
        const run = deps.runs.reopen(job.runId, { resumed: true, takenOver: true, restored: report.restored, rerun: report.rerun, lossy: report.lossy, steps: report.steps });
        const source = (record.source === 'webhook' || record.source === 'cron' ? record.source : 'manual') as RunSource;
        wr = new WorkflowRun({ doc, run, source, payload: report.payload, attended: source === 'manual', authors: authorsOf(doc.id), triggerNodeId: report.entry, depth: 0, restore: report.plan }, executorDeps);
      } else {
        const spec = job.start!;
        const { doc, entry } = startable(record.workflowId, spec.nodeId);
        const run = deps.runs.reopen(job.runId, {});
        wr = new WorkflowRun({ doc, run, source: spec.source, payload: spec.payload ?? {}, attended: spec.attended, authors: authorsOf(doc.id), triggerNodeId: entry?.id, depth: 0 }, executorDeps);
      }
    } catch (err) {
      await refused(job.runId, record.workflowId, err);
      return;
    }
    live.set(job.runId, wr);
    active.set(wr.doc.id, job.runId);
    await wr.start();
  }

  /** Nothing ran: the run ends with the reason, as a start refused before it began would be told. */
  async function refused(runId: string, workflowId: string, err: unknown): Promise<ChildEnd> {
    const run = deps.runs.get(runId) ?? deps.runs.reopen(runId, {});
    const error = (err as Error).message;
    await run.finish('failed', { workflowId, error });
    return { runId, status: 'failed', error };
  }

  async function runChild(parent: WorkflowRun, workflowId: string, payload: unknown, signal: AbortSignal): Promise<unknown> {
    if (parent.depth + 1 > LIMITS.workflowChildDepth) {
      const chain = [...parent.ancestry, workflowId].join(' > ');
      throw new DepthLimitError(
        `subworkflow "${workflowId}" would run ${parent.depth + 1} levels deep, past the limit of ${LIMITS.workflowChildDepth} (${chain}); ` +
          'a workflow that calls itself, directly or through others, needs a condition that stops the calls',
      );
    }
    const doc = store.require(workflowId);
    if (doc.disabled) throw new Error(`subworkflow "${workflowId}" is disabled`);
    const spec: ChildStart = { workflowId, parentRunId: parent.id, title: doc.name ?? doc.id, payload, attended: parent.attended, authors: parent.authors, depth: parent.depth + 1, ancestry: parent.ancestry };
    // In a pool the child is queued for any engine (its parent's runs it when none is free).
    const end = pool ? await pool.child(spec, (runId) => runChildHere(spec, runId), signal) : await runChildHere(spec, undefined, signal);
    if (end.status === 'stopped') throw signal.reason ?? new Error('stopped');
    if (end.depthLimit) throw new DepthLimitError(end.error);
    if (end.status === 'interrupted') throw new Error(`subworkflow "${workflowId}" (run ${end.runId}) was interrupted: the engine running it stopped`);
    if (end.status === 'failed') throw new Error(`subworkflow "${workflowId}" (run ${end.runId}) failed: ${end.error}`);
    const { trigger: _trigger, ...state } = end.state ?? {};
    return { runId: end.runId, state, outputs: end.outputs ?? {} };
  }

  /** Runs a child in this engine: a new run (embedded), or the queued `runId` a pool handed it. */
  async function runChildHere(spec: ChildStart, runId: string | undefined, signal?: AbortSignal): Promise<ChildEnd> {
    const doc = store.require(spec.workflowId);
    const run = runId ? deps.runs.reopen(runId, {}) : deps.runs.start({ source: 'workflow', workflowId: doc.id, parentRunId: spec.parentRunId, title: spec.title, signal });
    // A child runs under its parent's authors and its own: a model cannot launder through a person's subworkflow, nor the reverse.
    const authors = joinAuthorities(spec.authors, authorsOf(doc.id));
    const wr = new WorkflowRun({ doc, run, source: 'workflow', payload: spec.payload, attended: spec.attended, authors, depth: spec.depth, ancestry: spec.ancestry }, executorDeps);
    live.set(run.id, wr);
    const result = await wr.start();
    return { runId: run.id, status: result.status, state: result.state, outputs: result.outputs, error: result.error, ...(result.cause instanceof DepthLimitError ? { depthLimit: true, error: result.cause.message } : {}) };
  }

  /** POST /hooks/<workflowId>[/<nodeId>]: checks in the order of seed §4.5 (404, 400, 404, 403, 409). */
  async function webhook(workflowId: string, nodeId: string | undefined, secret: string | undefined, payload: unknown): Promise<string> {
    const entry = store.entry(workflowId);
    if (!entry) throw notFound(`no workflow "${workflowId}"`);
    if (!entry.doc) throw new EngineError(400, `workflow "${workflowId}" is rejected: ${entry.error}`);
    const hooks = entry.doc.nodes.filter((n) => n.type === 'trigger.webhook');
    const node = nodeId === undefined ? hooks[0] : hooks.find((n) => n.id === nodeId);
    if (!node) throw notFound(nodeId === undefined ? `workflow "${workflowId}" has no webhook trigger` : `workflow "${workflowId}" has no webhook trigger "${nodeId}"`);
    const expected = node.config?.secret;
    if (typeof expected === 'string') {
      const ref = /^\{\{\s*secret:\s*([A-Za-z0-9_.-]+)\s*\}\}$/.exec(expected);
      const value = ref ? await deps.secret(ref[1]) : expected;
      // An unset secret fails closed: nobody can fire the hook until it is stored.
      if (value === undefined || secret === undefined || !sameSecret(secret, value)) throw forbidden(WEBHOOK_SECRET_REFUSAL);
    }
    if (entry.doc.disabled) throw conflict(`workflow "${workflowId}" is disabled`);
    if (node.config?.paused === true) throw conflict(`webhook trigger "${node.id}" of workflow "${workflowId}" is paused`);
    return start({ workflowId, nodeId: node.id, payload, source: 'webhook', attended: false });
  }

  /** POST /api/runs/<runId>/resume: same run id, same log; restores completed nodes, reruns the rest. */
  async function resume(runId: string): Promise<ResumeAnswer> {
    const record = deps.runs.record(runId);
    if (!record) throw notFound(`no run ${runId}; GET /api/runs lists the known runs`);
    if (deps.runs.get(runId)) throw conflict(`run ${runId} is running; only an interrupted run can be resumed`);
    if (record.status !== 'interrupted') {
      throw conflict(record.status === 'stopped' ? `run ${runId} was stopped on purpose and cannot be resumed; start a new run` : `run ${runId} has ended (${record.status}) and cannot be resumed; start a new run`);
    }
    if (!record.workflowId) throw conflict(`run ${runId} is not a workflow run (source ${record.source}); only workflow runs can be resumed`);
    const doc = store.require(record.workflowId);
    const isChild = !!record.parentRunId;
    if (!isChild && active.has(doc.id)) throw conflict(`workflow "${doc.id}" is already running (run ${active.get(doc.id)}); stop it before resuming ${runId}`);
    const report = await planResume(doc, await deps.runs.readEvents(runId), deps.tools.readOnly);
    // In a pool the run is claimed for this engine first (another engine may hold the workflow).
    await pool?.claimResume(runId);
    const run = deps.runs.reopen(runId, { resumed: true, restored: report.restored, rerun: report.rerun, lossy: report.lossy, steps: report.steps });
    const source = (record.source === 'webhook' || record.source === 'cron' || record.source === 'workflow' ? record.source : 'manual') as RunSource;
    const wr = new WorkflowRun(
      { doc, run, source, payload: report.payload, attended: source === 'manual', authors: authorsOf(doc.id), triggerNodeId: report.entry, depth: 0, restore: report.plan },
      executorDeps,
    );
    live.set(runId, wr);
    if (!isChild) active.set(doc.id, runId);
    // Restored nodes replay in microtasks; the 202 goes out first.
    setImmediate(() => void wr.start());
    return { ok: true, runId, workflowId: doc.id, restored: report.restored, rerun: report.rerun, lossy: report.lossy, steps: report.steps };
  }

  const nodeTypes = () =>
    [...NODE_TYPES.values()].map((t) => ({
      type: t.type,
      description: t.description,
      config: t.config,
      ...(t.branches ? { branches: [...t.branches, 'error'] } : { branches: ['error'] }),
      trigger: !!t.trigger,
      example: t.example,
    }));

  return {
    init,
    close,
    store,
    gates,
    start,
    webhook,
    resume,
    nodeTypes,
    authorOf: deps.authorOf,
    /** The live workflow run a tool call belongs to (state_get / state_set). */
    liveRun: (runId: string | undefined) => (runId ? live.get(runId) : undefined),
    /** What a webhook or cron run of `doc` would be refused (PUT warnings). */
    unattendedWarnings: (doc: WorkflowDocument) => unattendedWarnings(doc, deps.services),
    cronPreview: (expr: unknown, timezone?: unknown) => previewCron(expr, timezone, clock.now()),
    armedCron: () => cron.armed(),
    /** GET /api/workflows: each document with its triggers' state (active, next fire) and its last run. */
    listing: () => store.list().map((item) => ('nodes' in item ? { ...item, triggers: triggerStatus(item, cron.next), lastRun: lastRun(deps.runs.lastRunOf(item.id)) } : item)),
  };
}

export type WorkflowsService = ReturnType<typeof createWorkflowsService>;

/** A 409 for a workflow that already has a top-level run (a pool tells a cron fire it is skipped). */
export class AlreadyRunning extends EngineError {
  constructor(message: string) {
    super(409, message);
  }
}

/**
 * Worded so the exit mask leaves it whole: "x-engine-secret header" has the shape of a flag and its
 * value (`--client-secret x`) and "?secret= in" of an assignment, so the masker turned the old
 * sentence into "x-engine-secret *** or ?secret=" (issue 26).
 */
export const WEBHOOK_SECRET_REFUSAL = 'forbidden: bad or missing webhook secret; send it in the "x-engine-secret" header or the "secret" query parameter';

/** Constant-time comparison of two secrets of any length (both hashed to equal length first). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** What a run changed so far, from its own log: files, commands and state (when no git hook is wired). */
async function summarizeChanges(runs: RunLedger, runId: string): Promise<string> {
  const events: EngineEvent[] = await runs.events(runId).catch(() => []);
  const files = new Set<string>();
  const commands: string[] = [];
  const state = new Set<string>();
  const done: string[] = [];
  for (const e of events) {
    if ((e.kind === 'file.written' || e.kind === 'file.edited' || e.kind === 'file.deleted') && typeof e.path === 'string') files.add(e.path);
    else if (e.kind === 'shell.exec' && typeof e.command === 'string') commands.push(`${e.command} (exit ${String(e.exitCode)})`);
    else if (e.kind === 'state.updated' && typeof e.key === 'string' && e.key !== 'trigger') state.add(e.key);
    else if (e.kind === 'node.completed' && typeof e.nodeId === 'string') done.push(e.nodeId);
  }
  const lines: string[] = [];
  if (done.length) lines.push(`nodes completed: ${done.join(', ')}`);
  if (files.size) lines.push(`files written: ${[...files].join(', ')}`);
  if (commands.length) lines.push(`commands run: ${commands.join('; ')}`);
  if (state.size) lines.push(`state changed: ${[...state].join(', ')}`);
  return lines.join('\n') || 'nothing changed yet';
}
