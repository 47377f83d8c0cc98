/**
 * The run ledger's store in a pool: records in `engine_pool.runs`, every run's events in
 * `engine_pool.run_events` (one row per line, in order). Lines are batched across runs
 * (LIMITS.runLogFlushMs) into one INSERT that also NOTIFYs each line to the other engines, which
 * relay it to their own /events sockets (`PoolEvents`); a line too long for a NOTIFY goes by id.
 * `flushNow` waits for the INSERT, so a workflow node's completion is in the database before any
 * node that depends on it and may have side effects starts (a kill -9 loses no completed node that
 * matters; a pure node whose completion was still in flight reruns, harmlessly).
 */
import type { EngineEvent } from '../kernel/bus.js';
import { LIMITS } from '../kernel/limits.js';
import type { RunLog, RunRecord, RunStore } from '../kernel/runs.js';
import { CHANNELS, type PoolDb } from './db.js';
import { SCHEMA } from './schema.js';

const READ_BATCH = 2_000;

export class PgRunStore implements RunStore {
  private pending: Array<[string, string]> = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private records: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: PoolDb,
    private readonly boot: string,
    private readonly log: (line: string) => void,
  ) {}

  async load(): Promise<{ records: RunRecord[]; interrupted: RunRecord[] }> {
    const rows = await this.db.query<{ record: RunRecord }>(`SELECT record FROM ${SCHEMA}.runs ORDER BY started_at`);
    // Runs of engines that died are taken over or marked interrupted by the pool (src/pool/takeover.ts).
    return { records: rows.map((r) => r.record), interrupted: [] };
  }

  put(record: RunRecord): void {
    const top = !!record.workflowId && !record.parentRunId;
    this.records = this.records
      .then(() =>
        this.db.query(
          `INSERT INTO ${SCHEMA}.runs (run_id, record, status, workflow_id, top_level, boot, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (run_id) DO UPDATE SET record = EXCLUDED.record, status = EXCLUDED.status, boot = EXCLUDED.boot`,
          [record.runId, record, record.status, record.workflowId ?? null, top, this.boot, record.startedAt],
        ),
      )
      .then(
        () => undefined,
        (err) => this.log(`pool: the record of run ${record.runId} was not written: ${(err as Error).message}`),
      );
  }

  /** Appends one line to a run's log outside a live run (a queued run stopped, a run taken over). */
  appendLine(runId: string, json: string): Promise<void> {
    this.pending.push([runId, json]);
    return this.flush();
  }

  openLog(record: RunRecord): RunLog {
    const runId = record.runId;
    return {
      append: (value) => this.queue(runId, JSON.stringify(value)),
      appendJson: (json) => this.queue(runId, json),
      flush: () => this.flush(),
      // A pure next node (state, condition, wait ...) reruns harmlessly after a crash: it need not wait
      // for the round trip; a node that may have side effects starts only once everything before it is in.
      flushNow: (before) => (before === 'pure' ? (this.queue(runId, undefined), Promise.resolve()) : this.flush()),
      flushSync: () => undefined,
      close: () => this.flush(),
    };
  }

  /** Adds a line (none: only makes sure a flush is scheduled). */
  private queue(runId: string, json: string | undefined): void {
    if (json !== undefined) this.pending.push([runId, json]);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), LIMITS.runLogFlushMs);
  }

  /** Writes every pending line (all runs) in one INSERT that NOTIFYs each, in order; resolves when written. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return this.writing;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      try {
        await this.insert((sql, params) => this.db.query(sql, params), batch);
      } catch (err) {
        this.log(`pool: ${batch.length} event lines were not written: ${(err as Error).message}`);
      }
    });
    return this.writing;
  }

  /** Inserts lines (`[runId, json]`) in order through `query` (a transaction's, or the pool's), each NOTIFYed. */
  async insert(query: (sql: string, params: unknown[]) => Promise<unknown>, batch: Array<[string, string]>): Promise<void> {
    await query(
      `WITH ins AS (INSERT INTO ${SCHEMA}.run_events (run_id, line) SELECT * FROM unnest($1::text[], $2::text[]) RETURNING id, line)
       SELECT count(pg_notify($3, $4 || ' ' || CASE WHEN octet_length(line) <= $5 THEN line ELSE '#' || id END)) FROM (SELECT * FROM ins ORDER BY id) AS x`,
      [batch.map((b) => b[0]), batch.map((b) => b[1]), CHANNELS.events, this.boot, LIMITS.poolNotifyBytes],
    );
  }

  async finished(_record: RunRecord, log: RunLog): Promise<void> {
    await Promise.all([log.flush(), this.records]);
  }

  async lines(record: RunRecord, live?: RunLog): Promise<AsyncIterable<string[]>> {
    await live?.flush();
    const db = this.db;
    return (async function* () {
      let after = 0;
      for (;;) {
        const rows = await db.query<{ id: string; line: string }>(`SELECT id, line FROM ${SCHEMA}.run_events WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT ${READ_BATCH}`, [record.runId, after]);
        if (rows.length) yield rows.map((r) => r.line);
        if (rows.length < READ_BATCH) return;
        after = Number(rows[rows.length - 1].id);
      }
    })();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.records;
  }

  flushSync(): void {
    // Nothing can be sent synchronously; what a kill loses is what `flushNow` did not wait for.
  }
}

/** Relays the events other engines wrote (their NOTIFYs) onto this engine's bus. */
export function poolEvents(deps: { db: PoolDb; boot: string; relay: (event: EngineEvent) => void; log: (line: string) => void }) {
  let chain: Promise<void> = Promise.resolve();
  return (payload: string): void => {
    const space = payload.indexOf(' ');
    if (space < 0 || payload.slice(0, space) === deps.boot) return;
    const rest = payload.slice(space + 1);
    // In order: a line fetched by id must not overtake the ones after it.
    chain = chain.then(async () => {
      try {
        const line = rest.startsWith('#') ? (await deps.db.query<{ line: string }>(`SELECT line FROM ${SCHEMA}.run_events WHERE id = $1`, [Number(rest.slice(1))]))[0]?.line : rest;
        if (line) deps.relay(JSON.parse(line) as EngineEvent);
      } catch (err) {
        deps.log(`pool: an event from another engine was not relayed: ${(err as Error).message}`);
      }
    });
  };
}
