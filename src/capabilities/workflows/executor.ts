/**
 * The executor: runs one workflow document as one ledger run. Scheduling is dead-path elimination
 * over the graph: a node runs once every forward edge into it is decided and at least one was
 * taken (so a join waits for every live branch); when all are dead it is skipped and its edges die.
 * Back edges (found by a depth-first walk from the entry) re-enter a loop: the loop's nodes are
 * reset and run again, bounded by LIMITS.workflowNodeIterations.
 *
 * Every step is an event through the run ledger, so it lands in the run's log; a node's
 * `node.completed` is flushed to the log before any node that depends on it starts, so a kill -9 at
 * any instant loses no completed node (resume.ts rebuilds from the log).
 */
import type { EmitPayload } from '../../kernel/bus.js';
import type { Authority } from '../../kernel/provenance.js';
import { describeError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { LiveRun } from '../../kernel/runs.js';
import { sleep, type Clock } from './clock.js';
import { nodeType } from './nodes/index.js';
import { initialState, reduce } from './reducers.js';
import { render, renderText, lookup, splitPath } from './templates.js';
import type { EdgeSpec, NodeContext, NodeResult, NodeServices, NodeSpec, RunSource, TemplateScope, WorkflowDocument } from './types.js';

export interface ExecutorDeps {
  services: NodeServices;
  clock: Clock;
  secret(name: string): Promise<string | undefined>;
  /** Starts a subworkflow as a child run of `parent` and resolves with its result. */
  runChild(parent: WorkflowRun, workflowId: string, payload: unknown, signal: AbortSignal): Promise<unknown>;
  /** Called once the run has settled (any status), just before its end event. */
  onEnd?(run: WorkflowRun, result: RunResult): void;
}

export interface RunResult {
  status: 'completed' | 'failed' | 'stopped';
  state: Record<string, unknown>;
  outputs: Record<string, unknown>;
  error?: string;
  /** The error that failed the run, when it was one the caller may pass on as is (the depth limit). */
  cause?: Error;
}

/**
 * Subworkflows nested past LIMITS.workflowChildDepth. It travels up the chain as itself (each
 * parent fails with the same sentence), not wrapped once per level into a paragraph.
 */
export class DepthLimitError extends Error {}

/** The DepthLimitError behind an error (a node failure keeps what it wraps as its cause). */
function depthLimit(err: unknown): DepthLimitError | undefined {
  for (let e = err, n = 0; e instanceof Error && n < 8; e = e.cause, n++) if (e instanceof DepthLimitError) return e;
  return undefined;
}

/** What resume restores from a log: completed nodes (in order, per node) and the last state. */
export interface RestorePlan {
  completions: Map<string, Array<{ output: unknown; branch?: string; failed?: string }>>;
  state: Record<string, unknown>;
}

export interface StartSpec {
  doc: WorkflowDocument;
  run: LiveRun;
  source: RunSource;
  payload: unknown;
  attended: boolean;
  /** The model-authored things this run is (or runs under): unattended, its calls are gated as their authors were. */
  authors?: Authority[];
  /** The trigger node that fired (undefined: the manual entry rules). */
  triggerNodeId?: string;
  depth: number;
  /** The workflow ids of the runs above this one, the top first (subworkflows). */
  ancestry?: readonly string[];
  restore?: RestorePlan;
}

/** The template scope additions of a top-level node: none (one shared object, never written). */
const NO_EXTRA: TemplateScope = Object.freeze({});

type NodeStatus = 'waiting' | 'running' | 'done' | 'failed' | 'skipped';
type EdgeStatus = 'pending' | 'taken' | 'dead';

class NodeFailure extends Error {}

export class WorkflowRun {
  readonly doc: WorkflowDocument;
  readonly run: LiveRun;
  readonly attended: boolean;
  readonly authors: Authority[] | undefined;
  readonly depth: number;
  /** The workflow ids from the top run down to this one. */
  readonly ancestry: readonly string[];
  readonly source: RunSource;
  readonly state: Record<string, unknown>;
  private readonly nodes = new Map<string, NodeSpec>();
  private readonly status = new Map<string, NodeStatus>();
  private readonly edgeStatus: EdgeStatus[];
  private readonly incoming = new Map<string, number[]>();
  private readonly outgoing = new Map<string, number[]>();
  private readonly back = new Set<number>();
  private readonly scc = new Map<string, number>();
  private readonly iterations = new Map<string, number>();
  private readonly nodesScope: Record<string, { output: unknown }> = {};
  private readonly restore?: RestorePlan;
  /** Aborts every node when the run fails elsewhere (stop aborts run.signal itself). */
  private readonly internal = new AbortController();
  private readonly signal: AbortSignal;
  private running = 0;
  private completions = 0;
  private failure: string | undefined;
  private failureCause: Error | undefined;
  private settled = false;
  private resolveDone!: (r: RunResult) => void;
  readonly done: Promise<RunResult> = new Promise((r) => (this.resolveDone = r));

  constructor(
    spec: StartSpec,
    private readonly deps: ExecutorDeps,
  ) {
    this.doc = spec.doc;
    this.run = spec.run;
    this.attended = spec.attended;
    this.authors = spec.authors;
    this.depth = spec.depth;
    this.ancestry = [...(spec.ancestry ?? []), spec.doc.id];
    this.source = spec.source;
    this.restore = spec.restore;
    this.signal = AbortSignal.any([spec.run.signal, this.internal.signal]);
    this.state = spec.restore ? { ...initialState(spec.doc.state, spec.payload), ...spec.restore.state } : initialState(spec.doc.state, spec.payload);
    for (const n of spec.doc.nodes) {
      this.nodes.set(n.id, n);
      this.status.set(n.id, 'waiting');
      this.incoming.set(n.id, []);
      this.outgoing.set(n.id, []);
    }
    this.edgeStatus = spec.doc.edges.map(() => 'pending');
    spec.doc.edges.forEach((e, i) => {
      this.outgoing.get(e.from)?.push(i);
      this.incoming.get(e.to)?.push(i);
    });
    this.classify(this.entries(spec.triggerNodeId));
    this.entryIds = this.entries(spec.triggerNodeId);
  }

  private entryIds: string[];

  get id(): string {
    return this.run.id;
  }

  /** Entry nodes: the trigger that fired; else a manual trigger, else the first trigger, else every root. */
  private entries(triggerNodeId?: string): string[] {
    const nodes = this.doc.nodes;
    if (triggerNodeId && this.nodes.has(triggerNodeId)) return [triggerNodeId];
    const manual = nodes.find((n) => n.type === 'trigger.manual') ?? nodes.find((n) => nodeType(n.type)?.trigger);
    if (manual) return [manual.id];
    return nodes.filter((n) => !this.incoming.get(n.id)!.length).map((n) => n.id);
  }

  /** Back edges (to a node on the current depth-first path) and loop membership (strongly connected sets). */
  private classify(entries: string[]): void {
    const edges = this.doc.edges;
    const order = [...entries, ...this.doc.nodes.filter((n) => !this.incoming.get(n.id)!.length).map((n) => n.id), ...this.doc.nodes.map((n) => n.id)];
    const state = new Map<string, 1 | 2>();
    for (const start of order) {
      if (state.has(start)) continue;
      const stack: Array<{ id: string; i: number }> = [{ id: start, i: 0 }];
      state.set(start, 1);
      while (stack.length) {
        const top = stack[stack.length - 1];
        const out = this.outgoing.get(top.id)!;
        if (top.i < out.length) {
          const ei = out[top.i++];
          const to = edges[ei].to;
          const s = state.get(to);
          if (s === 1) this.back.add(ei);
          else if (s === undefined) {
            state.set(to, 1);
            stack.push({ id: to, i: 0 });
          }
        } else {
          state.set(top.id, 2);
          stack.pop();
        }
      }
    }
    // Loop membership: nodes that reach each other through forward edges and a back edge.
    let group = 0;
    for (const ei of this.back) {
      const { from, to } = edges[ei];
      const members = this.between(to, from);
      const g = group++;
      for (const id of members) if (!this.scc.has(id)) this.scc.set(id, g);
      this.loops.set(ei, members);
      const exits = new Set<number>();
      edges.forEach((e, x) => {
        if (members.has(e.from) && !members.has(e.to)) (exits.add(x), this.loopExit.add(x));
      });
      this.exitsOf.set(ei, exits);
    }
  }

  private readonly loops = new Map<number, Set<string>>();
  /** Exit edges of each loop (by its back edge), and every edge that leaves some loop. */
  private readonly exitsOf = new Map<number, Set<number>>();
  private readonly loopExit = new Set<number>();

  /** Nodes on forward paths from `a` to `b` (inclusive). */
  private between(a: string, b: string): Set<string> {
    const fwd = (start: string, dir: 'out' | 'in') => {
      const seen = new Set([start]);
      const stack = [start];
      while (stack.length) {
        const id = stack.pop()!;
        for (const ei of (dir === 'out' ? this.outgoing : this.incoming).get(id)!) {
          if (this.back.has(ei)) continue;
          const next = dir === 'out' ? this.doc.edges[ei].to : this.doc.edges[ei].from;
          if (!seen.has(next)) (seen.add(next), stack.push(next));
        }
      }
      return seen;
    };
    const fromA = fwd(a, 'out');
    const toB = fwd(b, 'in');
    return new Set([...fromA].filter((id) => toB.has(id)));
  }

  /** Starts the run: emits the payload as the `trigger` state, then launches the entry nodes. */
  start(): Promise<RunResult> {
    if (!this.restore) this.run.emit('state.updated', { key: 'trigger', value: this.state.trigger });
    for (const id of this.doc.nodes.map((n) => n.id)) {
      if (this.incoming.get(id)!.some((ei) => !this.back.has(ei))) continue;
      if (this.entryIds.includes(id)) this.launch(id);
      else this.skip(id);
    }
    this.checkEnd();
    return this.done;
  }

  // --- scheduling ------------------------------------------------------------------------------

  private evaluate(id: string): void {
    if (this.status.get(id) !== 'waiting' || this.settled) return;
    const inc = this.incoming.get(id)!;
    const fwd = inc.filter((ei) => !this.back.has(ei));
    if (fwd.some((ei) => this.edgeStatus[ei] === 'pending')) return;
    if (inc.some((ei) => this.edgeStatus[ei] === 'taken')) this.launch(id);
    else if (!inc.some((ei) => this.back.has(ei) && this.edgeStatus[ei] === 'pending') || fwd.length) this.skip(id);
  }

  private skip(id: string): void {
    this.status.set(id, 'skipped');
    this.run.emit('node.skipped', { nodeId: id });
    this.decide(id, () => false);
  }

  /**
   * Sets the status of every edge out of `id`, resets loops a taken back edge re-enters, then
   * evaluates the targets. An edge leaving a loop is not declared dead while the loop may still go
   * round: it stays pending until the loop's back edge is decided against (the loop is over).
   */
  private decide(id: string, taken: (e: EdgeSpec) => boolean): void {
    const targets = new Set<string>();
    for (const ei of this.outgoing.get(id)!) {
      const e = this.doc.edges[ei];
      const t = taken(e);
      if (t && this.back.has(ei)) this.resetLoop(ei);
      if (t) this.edgeStatus[ei] = 'taken';
      else if (this.loopExit.has(ei)) continue;
      else this.edgeStatus[ei] = 'dead';
      targets.add(e.to);
    }
    for (const ei of this.outgoing.get(id)!) {
      if (!this.back.has(ei) || this.edgeStatus[ei] === 'taken') continue;
      // This loop is over: its exits that were never taken are dead now.
      for (const x of this.exitsOf.get(ei) ?? []) {
        if (this.edgeStatus[x] !== 'pending') continue;
        this.edgeStatus[x] = 'dead';
        targets.add(this.doc.edges[x].to);
      }
    }
    for (const to of targets) this.evaluate(to);
  }

  private resetLoop(ei: number): void {
    const members = this.loops.get(ei)!;
    for (const id of members) if (this.status.get(id) !== 'running') this.status.set(id, 'waiting');
    this.doc.edges.forEach((e, i) => {
      if (i !== ei && members.has(e.from) && members.has(e.to)) this.edgeStatus[i] = 'pending';
    });
  }

  private launch(id: string): void {
    const n = (this.iterations.get(id) ?? 0) + 1;
    this.iterations.set(id, n);
    if (n > LIMITS.workflowNodeIterations) {
      this.fail(`node "${id}" was entered more than ${LIMITS.workflowNodeIterations} times; the loop it is in does not end`);
      return;
    }
    this.status.set(id, 'running');
    this.running++;
    const restored = this.restore?.completions.get(id)?.shift();
    const work = restored ? Promise.resolve(restored) : this.execute(this.nodes.get(id)!);
    void work.then(
      (r) => this.completed(id, r, !!restored),
      (err) => this.failed(id, err),
    );
  }

  private async completed(id: string, r: NodeResult & { failed?: string }, restored: boolean): Promise<void> {
    const spec = this.nodes.get(id)!;
    const type = nodeType(spec.type)!;
    this.nodesScope[id] = { output: r.output };
    if (r.failed !== undefined) {
      // A handled failure restored from the log: take its error edges again.
      this.status.set(id, 'failed');
      this.running--;
      this.decide(id, (e) => e.when === 'error');
      this.checkEnd();
      return;
    }
    if (!restored) {
      this.run.emit('node.completed', { nodeId: id, type: spec.type, output: r.output, branch: r.branch });
      // In the log before anything depends on it.
      await this.run.log.flushNow(this.next(id));
    }
    // A long chain of quick nodes would otherwise run in microtasks only; let requests and timers in now and then.
    if (++this.completions % 64 === 0) await new Promise((r) => setImmediate(r));
    this.status.set(id, 'done');
    this.running--;
    if (this.settled || this.signal.aborted) return this.checkEnd();
    this.decide(id, (e) => {
      if (e.when === 'error') return false;
      if (e.when !== undefined) return e.when === r.branch;
      return type.defaultBranch === undefined || r.branch === undefined || r.branch === type.defaultBranch;
    });
    this.checkEnd();
  }

  private async failed(id: string, err: unknown): Promise<void> {
    this.running--;
    if (this.signal.aborted) {
      this.status.set(id, 'failed');
      return this.checkEnd();
    }
    const message = describeError(err);
    const handled = this.outgoing.get(id)!.some((ei) => this.doc.edges[ei].when === 'error');
    this.run.emit('node.failed', { nodeId: id, error: message, handled });
    this.status.set(id, 'failed');
    if (!handled) return this.fail(`node "${id}" failed: ${message}`, depthLimit(err));
    this.nodesScope[id] = { output: { error: message } };
    await this.run.log.flushNow(this.next(id));
    this.decide(id, (e) => e.when === 'error');
    this.checkEnd();
  }

  /** Whether a node `id` leads to may leave side effects (a type that can be lossy): its log must be in first. */
  private next(id: string): 'effects' | 'pure' {
    return this.outgoing.get(id)!.some((ei) => nodeType(this.nodes.get(this.doc.edges[ei].to)?.type ?? '')?.lossy) ? 'effects' : 'pure';
  }

  private fail(message: string, cause?: Error): void {
    if (this.failure === undefined) (this.failure = message), (this.failureCause = cause);
    this.internal.abort(new Error(message));
    this.checkEnd();
  }

  private checkEnd(): void {
    if (this.settled || this.running > 0) return;
    this.settled = true;
    const outputs: Record<string, unknown> = {};
    for (const [id, s] of this.status) {
      if (s !== 'done') continue;
      const leaf = !this.outgoing.get(id)!.some((ei) => this.edgeStatus[ei] === 'taken');
      if (leaf) outputs[id] = this.nodesScope[id]?.output;
    }
    const status: RunResult['status'] = this.run.signal.aborted ? 'stopped' : this.failure !== undefined ? 'failed' : 'completed';
    const result: RunResult = { status, state: this.state, outputs, ...(this.failure !== undefined && status === 'failed' ? { error: this.failure, cause: this.failureCause } : {}) };
    // The workflow is free again before run.* goes out, so a client reacting to it can start the next run.
    this.deps.onEnd?.(this, result);
    void this.run
      .finish(status, { workflowId: this.doc.id, ...(status === 'completed' ? { outputs } : {}), ...(result.error ? { error: result.error } : {}) })
      .then(() => this.resolveDone(result));
  }

  // --- one node --------------------------------------------------------------------------------

  private async execute(spec: NodeSpec): Promise<NodeResult> {
    this.run.emit('node.started', { nodeId: spec.id, type: spec.type });
    return this.attempts(spec, spec.id, NO_EXTRA, this.signal);
  }

  /** Runs a node spec with its retries and timeout; events carry `eventNodeId`. */
  private async attempts(spec: NodeSpec, eventNodeId: string, extra: TemplateScope, parent: AbortSignal): Promise<NodeResult> {
    const type = nodeType(spec.type);
    if (!type) throw new NodeFailure(`unknown node type "${spec.type}"`);
    const max = Math.max(1, Math.min(spec.retry?.maxAttempts ?? 1, LIMITS.workflowRetryAttemptsMax));
    const backoff = Math.max(0, spec.retry?.backoffMs ?? 1000);
    for (let attempt = 1; ; attempt++) {
      // A timeout gets its own signal; without one the parent's signal is used as is (AbortSignal.any costs per node).
      const timeout = spec.timeoutMs ? new AbortController() : undefined;
      let timer: unknown;
      if (timeout) timer = this.deps.clock.setTimeout(() => timeout.abort(new NodeFailure(`timed out after ${spec.timeoutMs} ms`)), spec.timeoutMs!);
      const signal = timeout ? AbortSignal.any([parent, timeout.signal]) : parent;
      try {
        if (signal.aborted) throw signal.reason;
        const work = type.run(spec.config ?? {}, this.context(eventNodeId, spec, extra, signal));
        return await (type.instant ? work : untilAborted(work, signal));
      } catch (err) {
        if (parent.aborted) throw parent.reason ?? err;
        const message = timeout?.signal.aborted ? describeError(timeout.signal.reason) : describeError(err);
        if (attempt >= max) throw new NodeFailure(max > 1 ? `${message} (after ${max} attempts)` : message, { cause: err });
        const delayMs = Math.min(backoff * 2 ** (attempt - 1), LIMITS.workflowRetryBackoffMaxMs);
        this.run.emit('node.retry', { nodeId: eventNodeId, attempt, nextAttempt: attempt + 1, error: message, delayMs });
        await sleep(this.deps.clock, delayMs, parent);
      } finally {
        if (timer !== undefined) this.deps.clock.clearTimeout(timer);
      }
    }
  }

  scope(extra: TemplateScope = {}): TemplateScope {
    return { trigger: this.state.trigger, state: this.state, nodes: this.nodesScope, ...extra };
  }

  /** One write through the key's reducer; emits state.updated (through `emit`, or run-scoped naming `nodeId`). */
  writeState(key: string, value: unknown, emit?: (kind: string, p: EmitPayload) => void, nodeId?: string): unknown {
    if (key === 'trigger') throw new Error('the "trigger" state key holds the run\'s payload and cannot be written');
    const reducer = this.doc.state?.[key]?.reducer ?? 'replace';
    const next = reduce(reducer, key, this.state[key], value);
    this.state[key] = next;
    if (emit) emit('state.updated', { key, value: next, reducer });
    else this.run.emit('state.updated', { key, value: next, reducer, nodeId });
    return next;
  }

  readState(key?: string): unknown {
    if (key === undefined || key === '') return this.state;
    const path = splitPath(key);
    return lookup({ state: this.state } as TemplateScope, 'state', path);
  }

  private context(nodeId: string, spec: NodeSpec, extra: TemplateScope, signal: AbortSignal): NodeContext {
    return new NodeCtx(this, this.deps, nodeId, spec, extra, signal);
  }

  /** Runs a node spec inline (a map item) under this run, events carrying `nodeId`. */
  inline(inner: NodeSpec, nodeId: string, extra: TemplateScope, signal: AbortSignal): Promise<NodeResult> {
    return this.attempts(inner, nodeId, extra, signal);
  }

}

/**
 * What a node's run function sees. A class, not an object of closures: a map builds one per item,
 * and per-call closures showed up in its profile (so did a named arrow field: the dev loader wraps
 * each in a defineProperty for its name). `emit` is bound on first use; the scope is built once.
 */
class NodeCtx implements NodeContext {
  readonly runId: string;
  readonly workflowId: string;
  readonly attended: boolean;
  readonly authors: Authority[] | undefined;
  readonly services: NodeServices;

  constructor(
    private readonly wr: WorkflowRun,
    private readonly deps: ExecutorDeps,
    readonly nodeId: string,
    private readonly spec: NodeSpec,
    private readonly extra: TemplateScope,
    readonly signal: AbortSignal,
  ) {
    this.runId = wr.run.id;
    this.workflowId = wr.doc.id;
    this.attended = wr.attended;
    this.authors = wr.authors;
    this.services = deps.services;
  }

  private boundEmit?: (kind: string, p?: EmitPayload) => void;
  private baseScope?: TemplateScope;

  /** Run-scoped, naming this node; a bound function (node types hand it on to services). */
  get emit(): (kind: string, p?: EmitPayload) => void {
    // A payload that already names this node goes on as is (the bus copies it anyway): a map's per-item delta.
    return (this.boundEmit ??= (kind: string, p: EmitPayload = {}) => this.wr.run.emit(kind, p.nodeId === this.nodeId ? p : { ...p, nodeId: this.nodeId }));
  }

  scope(more?: TemplateScope): TemplateScope {
    // The run's state and node outputs are objects updated in place, so one scope serves every render.
    if (!more) return (this.baseScope ??= this.wr.scope(this.extra));
    return this.wr.scope({ ...this.extra, ...more });
  }

  render(v: unknown, more?: TemplateScope): unknown {
    // A literal (a number, a string without a template) needs no scope: a map item often writes one.
    if (v === null || (typeof v !== 'object' && (typeof v !== 'string' || !v.includes('{{')))) return v;
    return render(v, this.scope(more));
  }

  text(v: unknown, more?: TemplateScope): string {
    return renderText(v, this.scope(more));
  }

  async renderSecrets(v: unknown): Promise<unknown> {
    const secrets: Record<string, string> = {};
    const names = new Set<string>();
    for (const f of nodeType(this.spec.type)?.secretFields ?? []) {
      const value = (this.spec.config ?? {})[f];
      for (const m of JSON.stringify(value ?? null).matchAll(/\{\{\s*secret:\s*([A-Za-z0-9_.-]+)\s*\}\}/g)) names.add(m[1]);
    }
    for (const name of names) {
      const value = await this.deps.secret(name);
      if (value === undefined) throw new Error(`secret "${name}" is not set; add it with POST /api/secrets`);
      secrets[name] = value;
    }
    return render(v, this.scope(), { secrets });
  }

  writeState(key: string, value: unknown): unknown {
    return this.wr.writeState(key, value, undefined, this.nodeId);
  }

  readState(key?: string): unknown {
    return this.wr.readState(key);
  }

  sleep(ms: number): Promise<void> {
    return sleep(this.deps.clock, ms, this.signal);
  }

  runInline(inner: NodeSpec, more: TemplateScope, signal: AbortSignal): Promise<NodeResult> {
    return this.wr.inline(inner, this.nodeId, this.extra === NO_EXTRA ? more : { ...this.extra, ...more }, signal);
  }

  runChild(workflowId: string, payload: unknown, signal: AbortSignal): Promise<unknown> {
    return this.deps.runChild(this.wr, workflowId, payload, signal);
  }

  following(branch: string): NodeSpec[] {
    const doc = this.wr.doc;
    const byDefault = nodeType(this.spec.type)?.defaultBranch;
    return doc.edges.filter((e) => e.from === this.nodeId && (e.when ?? byDefault) === branch).flatMap((e) => doc.nodes.find((n) => n.id === e.to) ?? []);
  }

  approvedCommands(): string[] {
    const doc = this.wr.doc;
    const nodes = this.scope().nodes ?? {};
    return doc.edges.flatMap((e) => {
      if (e.to !== this.nodeId || doc.nodes.find((n) => n.id === e.from)?.type !== 'gate') return [];
      const output = nodes[e.from]?.output as { approved?: boolean; commands?: Record<string, unknown> } | undefined;
      const command = output?.approved === true ? output.commands?.[this.nodeId] : undefined;
      return typeof command === 'string' ? [command] : [];
    });
  }
}

/**
 * The work's outcome, or the signal's reason when it aborts first. An aborted node's work is given
 * LIMITS.workflowStopGraceMs to wind down first, so what it started (a subworkflow, a map's child
 * runs, a process group) has ended before the node does, and a stopped run's `run.stopped` comes
 * after its children's; a node type that ignores its signal is abandoned at the grace's end.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      grace = setTimeout(() => reject(signal.reason), LIMITS.workflowStopGraceMs);
      grace.unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => (signal.removeEventListener('abort', onAbort), clearTimeout(grace));
    work.then(
      (v) => (settle(), signal.aborted ? reject(signal.reason) : resolve(v)),
      (e) => (settle(), reject(signal.aborted ? signal.reason : e)),
    );
  });
}
