/**
 * The run ledger. Every long operation (workflow, chat turn, build, gateway completion ...) is a run:
 * id `run-<epoch_ms>-<n>`, a source, a status, times and token usage. A run's events go to its own
 * append-only JSONL log; the records go to runs/index.jsonl (a start line and an end line per run).
 */
import type { Bus, EmitPayload, EngineEvent } from './bus.js';
import { UNLOGGED_KINDS } from './bus.js';
import { conflict, notFound } from './errors.js';
import type { Home } from './home.js';
import { LIMITS } from './limits.js';
import { FileRunStore, validSharedLog, type RunLog, type RunStore } from './run-files.js';
import type { Unparsed } from './run-index.js';

export type { RunLog, RunStore } from './run-files.js';

/** `queued`: a pool's run waiting for a worker (src/pool); an embedded engine starts runs at once. */
export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'stopped' | 'interrupted';

/** The ends no run leaves (an interrupted run can be resumed; these cannot). */
const FINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'stopped']);

export interface Usage {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** What a run is about: who started it and for what (all optional but the source). */
export interface RunLabels {
  source: string;
  workflowId?: string;
  agent?: string;
  model?: string;
  provider?: string;
  sessionId?: string;
  workItem?: string;
  parentRunId?: string;
  title?: string;
  /** Who called from outside (the gateway's caller address). */
  caller?: string;
  /** The pool engine executing it (src/pool); absent in an embedded engine. */
  worker?: string;
}

/** The usage one model spent within a run (a delegated subagent may run on another model). */
export interface ModelUsage {
  model?: string;
  provider?: string;
  usage: Usage;
}

export interface RunRecord extends RunLabels {
  runId: string;
  status: RunStatus;
  startedAt: number;
  endedAt?: number;
  usage: Usage;
  /** `usage` split by model; the parts always add up to `usage`. */
  models?: ModelUsage[];
  error?: string;
  /** The shared log holding this run's events (runs/<log>.jsonl), when it has none of its own. */
  log?: string;
}

export interface StartRun extends RunLabels {
  /** A parent's signal: aborting it aborts this run too. */
  signal?: AbortSignal;
  /**
   * Log into a file shared by the runs of its kind (runs/<name>-<n>.jsonl, a new segment every
   * LIMITS.sharedRunLogRuns runs and at each engine start) instead of a file of its own:
   * for short, frequent runs (a gateway completion) whose own file would cost a file creation each
   * (about 0.4 ms of system time on an ext4 home, as much as the rest of the request).
   */
  sharedLog?: string;
}

/** Events of a run's log as one read found them: each event and its JSON line, in log order. */
export interface EventBatch {
  events: EngineEvent[];
  lines: string[];
}

export const emptyUsage = (): Usage => ({ input: 0, output: 0, cached: 0, reasoning: 0 });

const RUN_ID = /^run-\d+-\d+$/;
export const isRunId = (id: string) => RUN_ID.test(id);

/** A run in flight: its record, its abort signal and a run-scoped emit. */
export class LiveRun {
  readonly controller = new AbortController();
  private ended = false;
  private markDone!: () => void;
  /** Resolves once the run has finished (any status) and its log is closed. */
  readonly finished: Promise<void> = new Promise((resolve) => (this.markDone = resolve));

  constructor(
    readonly record: RunRecord,
    private readonly ledger: RunLedger,
    readonly log: RunLog,
  ) {}

  get id(): string {
    return this.record.runId;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get done(): boolean {
    return this.ended;
  }

  /** Emits an event scoped to this run (it lands on the socket and in this run's log). */
  emit = (kind: string, payload: EmitPayload = {}): void => {
    this.ledger.bus.emit(kind, payload, this.id);
  };

  /** Adds one model step's usage, to the total and to the part of the model that spent it. */
  addUsage(usage: Partial<Usage>, spentBy: { model?: string; provider?: string } = {}): void {
    const model = spentBy.model ?? this.record.model;
    const provider = spentBy.provider ?? this.record.provider;
    const models = (this.record.models ??= []);
    let part = models.find((m) => m.model === model && m.provider === provider);
    if (!part) models.push((part = { model, provider, usage: emptyUsage() }));
    for (const u of [this.record.usage, part.usage]) {
      u.input += usage.input ?? 0;
      u.output += usage.output ?? 0;
      u.cached += usage.cached ?? 0;
      u.reasoning += usage.reasoning ?? 0;
    }
  }

  /** Asks the run to stop; its owner observes the signal and calls finish('stopped'). */
  stop(): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error('stopped'));
  }

  /**
   * Leaves the run to another engine of a pool (a clean stop hands its runs on): the work here is
   * aborted, but the run does not end. No end event, the record stays `running` for the pool to hand
   * on, and nothing the winding down emits reaches the log (the next engine resumes from it).
   */
  handOver(): void {
    if (this.ended) return;
    this.ended = true;
    this.ledger.release(this);
    this.controller.abort(new Error('handed over to another engine of the pool'));
    this.markDone();
  }

  /** Ends the run with `run.completed`, `run.failed` or `run.stopped`, and closes its log. */
  async finish(status: Exclude<RunStatus, 'running' | 'interrupted'>, extra: { error?: string } & Record<string, unknown> = {}): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.record.status = status;
    this.record.endedAt = Date.now();
    if (extra.error) this.record.error = extra.error;
    this.emit(`run.${status}`, { source: this.record.source, usage: this.record.usage, ...extra });
    await this.ledger.retire(this);
    this.markDone();
  }
}

export class RunLedger {
  private counter = 0;
  private readonly records = new Map<string, RunRecord>();
  /** The same records by start time, oldest first: the index a page or a time range is cut from without a scan. */
  private readonly byStartTime: RunRecord[] = [];
  private readonly liveRuns = new Map<string, LiveRun>();
  /** Each workflow's last top-level run by start time: GET /api/workflows reads it without a scan. */
  private readonly lastOfWorkflow = new Map<string, RunRecord>();
  /** The runs started for each work item (`workItem` label), oldest first: a board item's links read them by key. */
  private readonly ofWorkItem = new Map<string, RunRecord[]>();
  private unsubscribe: (() => void) | undefined;
  /** Stored records not parsed yet (run-index.ts): taken in the background after start, or at once by the first read. */
  private unparsed: Unparsed | undefined;
  /** The runs this start found in flight from a previous engine and marked interrupted (reported once). */
  readonly interruptedAtStart: RunRecord[] = [];
  /** Where records and logs are kept: the home's files, or a pool's database (src/pool/run-store.ts). */
  readonly store: RunStore;
  /** The pool engine this ledger's runs execute on (`run.started` names it); none when embedded. */
  worker: string | undefined;
  /** A pool's reach to runs this engine does not execute (src/pool): stop one queued or running elsewhere. */
  elsewhere: { stop(runId: string): Promise<boolean> } | undefined;

  constructor(
    private readonly home: Home,
    readonly bus: Bus,
    store?: RunStore,
  ) {
    this.store = store ?? new FileRunStore(home);
  }

  /** A run's own log file in an embedded home (tests and tools that read the files). */
  logFile(runId: string): string {
    return new FileRunStore(this.home).logFile(runId);
  }

  /** Loads the index and marks runs that were live when a previous engine died as interrupted. */
  async init(): Promise<void> {
    const { records, interrupted, unparsed } = await this.store.load((v) => this.bus.redactor.value(v));
    for (const record of records) this.remember(record);
    this.interruptedAtStart.push(...interrupted);
    this.unparsed = unparsed;
    this.unsubscribe = this.bus.subscribe((event, json) => this.onEvent(event, json));
  }

  /**
   * Reads and parses the stored records still unparsed, a batch of lines per turn of the event loop
   * so requests are answered in between (the engine calls it once it listens). A read of the ledger
   * meanwhile takes the rest at once (`settle`), so no reader ever sees part of the runs.
   */
  parseInBackground(): void {
    const unparsed = this.unparsed;
    if (!unparsed) return;
    const step = () => {
      if (this.unparsed !== unparsed) return; // settled or closed meanwhile
      if (unparsed.parse(LIMITS.runIndexParseBatch)) this.adopt(unparsed);
      else setImmediate(step).unref();
    };
    // A failed read is tried again, and reported, by the first read of the ledger (settle).
    unparsed.read().then(step, () => undefined);
  }

  /** Every stored record parsed: what each read of the records calls first. */
  private settle(): void {
    const unparsed = this.unparsed;
    if (unparsed?.parse(Infinity)) this.adopt(unparsed);
  }

  /** Takes in the parsed records; one known already (interrupted at start, or started since) is newer than its line. */
  private adopt(unparsed: Unparsed): void {
    this.unparsed = undefined;
    for (const record of unparsed.records()) if (!this.records.has(record.runId)) this.remember(record);
  }

  /**
   * Takes in a record this ledger did not write (a pool's other engines changed it): a new run is
   * placed by its start time, a known one is updated in place. A run live here is never overwritten,
   * nor one known to have ended for good: its row, read while this engine's write of the end was
   * still on its way, is older than what the ledger holds (the write's own announcement follows).
   */
  ingest(record: RunRecord): void {
    if (!record?.runId || this.liveRuns.has(record.runId)) return;
    const known = this.records.get(record.runId)?.status;
    if (known && FINAL.has(known) && !FINAL.has(record.status)) return;
    this.remember(record);
  }

  /** A record in the indexes (by id, start time, workflow and work item), or a known one updated in place (its start time, the indexes' order, kept). */
  private remember(input: RunRecord): void {
    // A line without a start time (hand-edited, foreign) is read as having started at 0: the
    // start-time order the lists and reports cut by binary search must never compare NaN.
    const record = Number.isFinite(input.startedAt) ? input : { ...input, startedAt: 0 };
    const known = this.records.get(record.runId);
    if (!known) {
      this.records.set(record.runId, record);
      this.insertByStart(record);
      this.indexLabels(record);
      return;
    }
    for (const key of Object.keys(known) as Array<keyof RunRecord>) if (!(key in record)) delete known[key];
    Object.assign(known, record, { startedAt: known.startedAt });
  }

  private onEvent(event: EngineEvent, json: string): void {
    if (!event.runId) return;
    const live = this.liveRuns.get(event.runId);
    if (!live) return;
    if (event.kind === 'token.usage') live.addUsage(event as Partial<Usage>, { model: event.model as string | undefined, provider: event.provider as string | undefined });
    if (!UNLOGGED_KINDS.has(event.kind)) live.log.appendJson(json);
  }

  /** Starts the id counter at a random point: engines of a pool make ids side by side, in the same milliseconds. */
  distinctIds(): void {
    this.counter = Math.floor(Math.random() * 2 ** 40);
  }

  /** Stops a run executed by another engine of a pool; false when no such run is in flight anywhere. */
  async stopElsewhere(runId: string): Promise<boolean> {
    return (await this.elsewhere?.stop(runId)) ?? false;
  }

  nextId(): string {
    return `run-${Date.now()}-${++this.counter}`;
  }

  /** Starts a run: a record, an open log and `run.started`. */
  start(opts: StartRun): LiveRun {
    const { signal, sharedLog, ...fields } = opts;
    if (sharedLog !== undefined && !validSharedLog(sharedLog)) throw new Error(`shared run log name "${sharedLog}" must be up to 32 lowercase letters, digits and dashes`);
    const labels = this.worker ? { ...fields, worker: this.worker } : fields;
    const record: RunRecord = { runId: this.nextId(), status: 'running', startedAt: Date.now(), usage: emptyUsage(), ...labels };
    const run = new LiveRun(record, this, this.store.openLog(record, sharedLog));
    if (signal) {
      if (signal.aborted) run.stop();
      else signal.addEventListener('abort', () => run.stop(), { once: true });
    }
    this.remember(record);
    this.liveRuns.set(record.runId, run);
    this.store.put(this.bus.redactor.value(record));
    run.emit('run.started', { ...labels });
    return run;
  }

  /**
   * Re-opens a run under its own id: an interrupted one (workflow resume, a pool's takeover) or a
   * queued one a pool worker takes. The same record and the same log, appended to; status `running`
   * until its owner finishes it. `started` is added to its `run.started` (resumed, restored ...).
   */
  reopen(runId: string, started: Record<string, unknown> = { resumed: true }): LiveRun {
    const record = this.record(runId);
    if (!record) throw notFound(`no run ${runId}; GET /api/runs lists the known runs`);
    if (this.liveRuns.has(runId)) throw conflict(`run ${runId} is already running`);
    record.status = 'running';
    delete record.endedAt;
    delete record.error;
    if (this.worker) record.worker = this.worker;
    const run = new LiveRun(record, this, this.store.openLog(record));
    this.liveRuns.set(runId, run);
    this.store.put(this.bus.redactor.value({ ...record }));
    const { runId: _id, status: _s, startedAt: _t, usage: _u, models: _m, log: _l, ...labels } = record;
    run.emit('run.started', { ...labels, ...started });
    return run;
  }

  /** A run handed over (LiveRun.handOver): no longer live here; its log keeps what it had. */
  release(run: LiveRun): void {
    this.liveRuns.delete(run.id);
  }

  /** Called by LiveRun.finish: writes the end record and closes the log. */
  async retire(run: LiveRun): Promise<void> {
    this.liveRuns.delete(run.id);
    this.store.put(this.bus.redactor.value({ ...run.record }));
    await this.store.finished(run.record, run.log);
  }

  get(runId: string): LiveRun | undefined {
    return this.liveRuns.get(runId);
  }

  live(): LiveRun[] {
    return [...this.liveRuns.values()];
  }

  /** A new run goes last, unless the clock went back since the last one: then where its start time puts it. */
  private insertByStart(record: RunRecord): void {
    const all = this.byStartTime;
    let i = all.length;
    while (i > 0 && all[i - 1].startedAt > record.startedAt) i--;
    if (i === all.length) all.push(record);
    else all.splice(i, 0, record);
  }

  /** Files a record under its workflow and its work item (records change in place, so the entries stay current). */
  private indexLabels(record: RunRecord): void {
    const { workflowId, parentRunId, workItem } = record;
    if (workflowId && !parentRunId) {
      const last = this.lastOfWorkflow.get(workflowId);
      if (!last || last.startedAt <= record.startedAt) this.lastOfWorkflow.set(workflowId, record);
    }
    if (workItem) {
      let list = this.ofWorkItem.get(workItem);
      if (!list) this.ofWorkItem.set(workItem, (list = []));
      list.push(record);
      // Only a clock that went back puts a run before the last one.
      if (list.length > 1 && list[list.length - 2].startedAt > record.startedAt) list.sort((a, b) => a.startedAt - b.startedAt);
    }
  }

  /** The last top-level run of `workflowId` (by start time), if it ever ran. Read it; never change it. */
  lastRunOf(workflowId: string): RunRecord | undefined {
    this.settle();
    return this.lastOfWorkflow.get(workflowId);
  }

  /** The runs started for the work item labelled `workItem`, oldest first. Read them; never change them. */
  runsForWorkItem(workItem: string): readonly RunRecord[] {
    this.settle();
    return this.ofWorkItem.get(workItem) ?? [];
  }

  /** Every known record, oldest first (live ones carry their current usage). */
  all(): RunRecord[] {
    this.settle();
    return [...this.byStartTime];
  }

  /**
   * Every known record by start time, oldest first, without a copy: the ledger's own index, for
   * reads that cut a page or a time range out of it (reports). Read it; never change it.
   */
  byStart(): readonly RunRecord[] {
    this.settle();
    return this.byStartTime;
  }

  /** The last `limit` runs, newest first, live runs overlaid. */
  list(limit: number = LIMITS.runsListed): RunRecord[] {
    this.settle();
    return this.byStartTime.slice(-limit).reverse().map((r) => ({ ...r, usage: { ...r.usage }, models: r.models?.map((m) => ({ ...m, usage: { ...m.usage } })) }));
  }

  record(runId: string): RunRecord | undefined {
    // A record known already is current (live, interrupted at start, or parsed): no need to parse the rest.
    const known = this.records.get(runId);
    if (known || !this.unparsed) return known;
    this.settle();
    return this.records.get(runId);
  }

  /** The full event log of a run, in memory (a caller that walks it once should use `readEvents`). */
  async events(runId: string): Promise<EngineEvent[]> {
    const out: EngineEvent[] = [];
    for await (const batch of await this.readEvents(runId)) for (const e of batch.events) out.push(e);
    return out;
  }

  /**
   * A run's events in log order, in batches of one store read, each event with its JSON line, read
   * as they are asked for (a long run's log is never in memory whole). An unknown run is refused
   * here, before the first batch; a torn line (a kill mid-write) is skipped.
   */
  async readEvents(runId: string): Promise<AsyncGenerator<EventBatch>> {
    const record = isRunId(runId) ? this.record(runId) : undefined;
    if (!record) throw notFound(`no run ${runId}; GET /api/runs lists the known runs`);
    const raw = await this.store.lines(record, this.liveRuns.get(runId)?.log);
    // A shared log holds the events of many runs: only this one's.
    const filter = !!record.log;
    return (async function* () {
      for await (const lines of raw) {
        const batch: EventBatch = { events: [], lines: [] };
        for (const line of lines) {
          let event: EngineEvent;
          try {
            event = JSON.parse(line) as EngineEvent;
          } catch {
            continue;
          }
          if (filter && event?.runId !== runId) continue;
          batch.events.push(event);
          batch.lines.push(line);
        }
        if (batch.events.length) yield batch;
      }
    })();
  }

  /**
   * Asks every live run to stop and waits (at most `graceMs`) for their owners to end them, so a
   * clean shutdown records `run.stopped` instead of leaving them to be marked interrupted.
   */
  async stopAll(graceMs: number): Promise<void> {
    const live = this.live();
    if (!live.length) return;
    for (const run of live) run.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(live.map((r) => r.finished)), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }

  /** Flushes every log and closes the index (engine shutdown). Runs still live stay `running` on disk and are marked interrupted by the next engine. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unparsed = undefined;
    await this.store.close([...this.liveRuns.values()].map((r) => r.log));
  }

  /** Last-chance synchronous flush on process exit. */
  flushSync(): void {
    this.store.flushSync([...this.liveRuns.values()].map((r) => r.log));
  }
}
