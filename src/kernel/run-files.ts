/**
 * The run ledger's embedded store: the home's files. `runs/index.jsonl` holds a start line and an
 * end line per run; each run's events go to `runs/<runId>.jsonl`, or to a log shared by the runs of
 * one kind (`runs/<name>-<n>.jsonl`, StartRun.sharedLog). The pool's store (src/pool/run-store.ts)
 * keeps the same records and lines in PostgreSQL; the ledger (runs.ts) talks to either through
 * `RunStore`.
 */
import path from 'node:path';
import type { EngineEvent } from './bus.js';
import { HOME_LAYOUT, type Home, writeFileAtomic } from './home.js';
import { JsonlAppender, readLineBatches, readText, repairTail } from './jsonl.js';
import { parseIndex, runningRecord, scanIndex, unparsed, type Unparsed } from './run-index.js';
import { LIMITS } from './limits.js';
import type { RunRecord } from './runs.js';

/** A run's append-only event log: lines batched, `flushNow` for a line something depends on. */
export interface RunLog {
  append(value: unknown): void;
  appendJson(json: string): void;
  flush(): Promise<void>;
  /**
   * In the store before the caller goes on (a workflow node's completion, kill -9 safe). `before`
   * says whether what comes next could have side effects; a store whose every write is a round trip
   * (a pool's database) may then only schedule the write for a pure next step. Files always write.
   */
  flushNow(before?: 'effects' | 'pure'): Promise<void>;
  flushSync(): void;
  close(): Promise<void>;
}

/** Where the ledger keeps its records and logs (embedded: the home's files; a pool: its database). */
export interface RunStore {
  /**
   * The stored records. The runs a previous engine left running that this store knows to be dead
   * come back as `interrupted` (their record and log say so already). `unparsed`: records read but
   * not parsed yet, which the ledger takes after the engine listens or when first read (run-index.ts).
   */
  load(redact: <T>(value: T) => T): Promise<{ records: RunRecord[]; interrupted: RunRecord[]; unparsed?: Unparsed }>;
  /** Persists a record's current state (a start, a reopen, an end); `record` is already masked. */
  put(record: RunRecord): void;
  /** Opens the log a run appends to; `sharedLog` may name a log shared by short runs (sets `record.log`). */
  openLog(record: RunRecord, sharedLog?: string): RunLog;
  /** A run ended: its log and its record are written out (a shared log's lines may join the next batch). */
  finished(record: RunRecord, log: RunLog): Promise<void>;
  /** A run's log lines in order, a batch at a time, after flushing what `live` still holds. */
  lines(record: RunRecord, live?: RunLog): Promise<AsyncIterable<string[]>>;
  /** Flushes the given live logs and everything the store holds open (engine shutdown). */
  close(live: RunLog[]): Promise<void>;
  flushSync(live: RunLog[]): void;
}

const SHARED_LOG = /^[a-z][a-z0-9-]{0,39}$/;

/** The shared log a record names, when the name is a valid one (an index line is input, never a path). */
export const sharedLogOf = (record: RunRecord): string | undefined => (record.log && SHARED_LOG.test(record.log) ? record.log : undefined);

export const validSharedLog = (name: string) => SHARED_LOG.test(name) && name.length <= 32;

export class FileRunStore implements RunStore {
  private index!: JsonlAppender;
  /** Segments of the logs shared by the runs of one kind (StartRun.sharedLog), by segment name. */
  private readonly shared = new Map<string, JsonlAppender>();
  /** The segment each kind writes now, and how many runs it holds. */
  private readonly currentSegment = new Map<string, { name: string; runs: number }>();
  /** Highest segment number per kind found in the index at load (a new engine starts the next one). */
  private readonly loadedSegments = new Map<string, number>();

  constructor(private readonly home: Home) {}

  private get dir(): string {
    return this.home.path(HOME_LAYOUT.runs);
  }

  private get indexFile(): string {
    return path.join(this.dir, 'index.jsonl');
  }

  logFile(runId: string): string {
    return path.join(this.dir, `${runId}.jsonl`);
  }

  /** Where a run's events are: its own file, or the shared log it was started with. */
  private logOf(record: RunRecord): string {
    const shared = sharedLogOf(record);
    return shared ? path.join(this.dir, `${shared}.jsonl`) : this.logFile(record.runId);
  }

  private segment(name: string): JsonlAppender {
    let log = this.shared.get(name);
    if (!log) this.shared.set(name, (log = new JsonlAppender(path.join(this.dir, `${name}.jsonl`), LIMITS.runLogFlushMs)));
    return log;
  }

  /**
   * The segment a new run of `kind` logs into. Each engine starts a new one (after the highest the
   * index knows) and a full one gives way to the next, so a read scans at most one segment's runs.
   */
  private sharedSegment(kind: string): string {
    let current = this.currentSegment.get(kind);
    if (!current || current.runs >= LIMITS.sharedRunLogRuns) {
      const n = current ? Number(current.name.slice(kind.length + 1)) : (this.loadedSegments.get(kind) ?? 0);
      // A full segment keeps its appender: the runs still live in it finish there.
      this.currentSegment.set(kind, (current = { name: `${kind}-${n + 1}`, runs: 0 }));
    }
    current.runs++;
    return current.name;
  }

  async load(redact: <T>(value: T) => T): Promise<{ records: RunRecord[]; interrupted: RunRecord[]; unparsed?: Unparsed }> {
    // A kill mid-write may have torn the last line; cut it so appends start on a fresh line.
    await repairTail(this.indexFile);
    const scan = await scanIndex(this.indexFile);
    // Every run appends a start and an end line, so the index is written again one line a run once it
    // holds a quarter more. That start parses it whole (as every start did before run-index.ts).
    let parsed: Map<string, RunRecord> | undefined;
    if (scan.lines > scan.runs * LIMITS.runIndexCompactRatio + 100) {
      parsed = parseIndex(await readText(this.indexFile));
      await writeFileAtomic(this.indexFile, [...parsed.values()].map((r) => JSON.stringify(r) + '\n').join(''));
    }
    this.index = new JsonlAppender(this.indexFile, LIMITS.runLogFlushMs);
    for (const log of scan.logs) {
      const m = /^(.*)-(\d+)$/.exec(log);
      if (m) this.loadedSegments.set(m[1], Math.max(this.loadedSegments.get(m[1]) ?? 0, Number(m[2])));
      if (SHARED_LOG.test(log)) await repairTail(path.join(this.dir, `${log}.jsonl`));
    }
    // Runs live when a previous engine died: nobody runs them any more.
    const interrupted: RunRecord[] = [];
    const running = parsed ? [...parsed.values()] : [...scan.running.values()].map(runningRecord);
    for (const record of running) {
      if (record?.status !== 'running') continue;
      if (!sharedLogOf(record)) {
        delete record.log;
        await repairTail(this.logFile(record.runId));
      }
      record.status = 'interrupted';
      interrupted.push(record);
      this.index.append(redact(record));
      const log = new JsonlAppender(this.logOf(record), 0);
      const event: EngineEvent = { kind: 'run.interrupted', ts: Date.now(), seq: 0, runId: record.runId, reason: 'the engine stopped while this run was in flight' };
      log.append(event);
      await log.close();
    }
    if (parsed) return { records: [...parsed.values()], interrupted };
    // The rest is parsed after the engine listens (RunLedger.parseInBackground) or when first read.
    return { records: interrupted, interrupted, unparsed: unparsed(this.indexFile) };
  }

  put(record: RunRecord): void {
    this.index.append(record);
  }

  openLog(record: RunRecord, sharedLog?: string): RunLog {
    if (sharedLog) record.log = this.sharedSegment(sharedLog);
    const shared = sharedLogOf(record);
    return shared ? this.segment(shared) : new JsonlAppender(this.logFile(record.runId), LIMITS.runLogFlushMs);
  }

  async finished(record: RunRecord, log: RunLog): Promise<void> {
    // A run with a shared log is one of many short ones (a gateway completion): its end lines join the
    // next batch (LIMITS.runLogFlushMs) instead of costing two writes of their own; reads flush first.
    if (sharedLogOf(record)) return;
    await Promise.all([log.close(), this.index.flush()]);
  }

  async lines(record: RunRecord, live?: RunLog): Promise<AsyncIterable<string[]>> {
    const shared = sharedLogOf(record);
    if (shared) await this.shared.get(shared)?.flush();
    else await live?.flush();
    return readLineBatches(this.logOf(record));
  }

  async close(live: RunLog[]): Promise<void> {
    const sharedLogs = new Set<RunLog>(this.shared.values());
    await Promise.all(live.filter((l) => !sharedLogs.has(l)).map((l) => l.close()));
    await Promise.all([...this.shared.values()].map((log) => log.close()));
    await this.index?.close();
  }

  flushSync(live: RunLog[]): void {
    const sharedLogs = new Set<RunLog>(this.shared.values());
    for (const log of live) if (!sharedLogs.has(log)) log.flushSync();
    for (const log of this.shared.values()) log.flushSync();
    this.index?.flushSync();
  }
}
