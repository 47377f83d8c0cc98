/**
 * The pool's job queue: pg-boss (docs/pool.md says why it, not graphile-worker). One queue,
 * `engine-runs`: a job hands one run to one engine (SKIP LOCKED fetches), held while the run
 * executes, so an engine's `concurrency` is its number of fetch loops. Jobs are never retried by the
 * queue: a run's truth is its own row, and a run whose engine died is handed on by a new job
 * (src/pool/takeover.ts). A queued job wakes every idle loop at once (NOTIFY), not at the next poll.
 */
import type PgBossType from 'pg-boss';
import { lazyRequire } from '../kernel/lazy-require.js';
import { LIMITS } from '../kernel/limits.js';
import { CHANNELS } from './db.js';

const PgBoss = lazyRequire<typeof PgBossType>('pg-boss');

export const RUN_QUEUE = 'engine-runs';

/** What a job carries: the run, and how to start it (a top-level run or a child; neither for a takeover: the log says). */
export interface JobData {
  runId: string;
  takeover: boolean;
  start?: Record<string, unknown>;
  /** A child run's spec (ChildStart). */
  child?: Record<string, unknown>;
}

type Sql = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

export async function startQueue(deps: { url: string; applicationName: string; log: (line: string) => void }) {
  const boss = new (PgBoss())({
    connectionString: deps.url,
    application_name: deps.applicationName,
    max: 3,
    schedule: false,
    supervise: true,
    migrate: true,
  });
  boss.on('error', (err: Error) => deps.log(`pool: queue: ${err.message}`));
  await boss.start();
  await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, policy: 'standard', retryLimit: 0, expireInSeconds: LIMITS.poolJobExpireSeconds });
  const workers: string[] = [];
  let paused = false;

  return {
    /**
     * Queues a run inside the caller's transaction (`sql`), so the run row and its job commit
     * together, and announces it there: at commit every engine's idle loops fetch at once
     * (PostgreSQL delivers one NOTIFY for a transaction's identical ones).
     */
    async send(data: JobData, id: string, sql: Sql): Promise<void> {
      await boss.send(RUN_QUEUE, data as unknown as object, { id, db: { executeSql: (text, values) => sql(text, values) as Promise<{ rows: any[] }> } });
      await sql('SELECT pg_notify($1, $2)', [CHANNELS.changes, JSON.stringify({ t: 'job' })]);
    },
    /** Starts `concurrency` fetch loops; `handle` resolves when the run it was handed has ended. */
    async work(concurrency: number, handle: (jobId: string, data: JobData) => Promise<void>): Promise<void> {
      for (let i = 0; i < concurrency; i++) {
        workers.push(
          await boss.work<JobData>(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: LIMITS.poolWorkerPollSeconds }, async ([job]) => {
            await handle(job.id, job.data);
          }),
        );
      }
    },
    /** Fetches no more jobs (a clean stop); a job fetched meanwhile sees `paused` and is handed back. */
    async pause(): Promise<void> {
      paused = true;
      await boss.offWork(RUN_QUEUE).catch((err: Error) => deps.log(`pool: queue pause: ${err.message}`));
    },
    get paused(): boolean {
      return paused;
    },
    /** A job was queued somewhere in the pool: every idle loop fetches now. */
    wake(): void {
      for (const id of workers) boss.notifyWorker(id);
    },
    /** Ends the job of a run whose engine died (its replacement is a new job). */
    fail: (jobId: string, reason: string) => boss.fail(RUN_QUEUE, jobId, { reason }).catch((err: Error) => deps.log(`pool: job ${jobId} not closed: ${err.message}`)),
    cancel: (jobId: string) => boss.cancel(RUN_QUEUE, jobId).catch(() => undefined),
    async stop(): Promise<void> {
      // Runs were stopped (or left for takeover) before this; no job waits for them here.
      await boss.stop({ graceful: false, wait: true, timeout: 1000 }).catch((err: Error) => deps.log(`pool: queue stop: ${err.message}`));
    },
  };
}

export type RunQueue = Awaited<ReturnType<typeof startQueue>>;
