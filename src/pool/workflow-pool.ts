/**
 * The trigger service's pool side (WorkflowPool, capabilities/workflows/types.ts): a top-level run
 * is a `queued` row and a job in one transaction; a worker claims the row (queued -> running, its
 * boot) and executes it. The one-run-per-workflow guard holds for the whole pool (a unique index on
 * queued or running top-level runs), and a cron tick queues once (a unique `tick`), however many
 * engines fire it. Stops reach a queued run here (it ends `stopped`) or the engine executing it.
 * A child run (a subworkflow, a map item's workflow) is queued the same way, outside the guard; its
 * parent waits on the row and reads the child's end from its `result` column.
 */
import { randomUUID } from 'node:crypto';
import { conflict } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import { emptyUsage, type RunLedger, type RunRecord } from '../kernel/runs.js';
import { AlreadyRunning } from '../capabilities/workflows/service.js';
import type { ChildEnd, ChildStart, QueuedStart, RunJob, WorkflowPool } from '../capabilities/workflows/types.js';
import { CHANNELS, type PoolDb } from './db.js';
import type { RunQueue } from './queue.js';
import type { PgRunStore } from './run-store.js';
import { SCHEMA } from './schema.js';

const UNIQUE = '23505';

export function createWorkflowPool(deps: {
  db: PoolDb;
  boot: string;
  ledger: RunLedger;
  store: PgRunStore;
  queue: RunQueue;
  /** Loops this engine's worker runs (0: `--no-worker`, it only serves). */
  concurrency: number;
  parts: Pick<WorkflowPool, 'workflows' | 'cron' | 'gates'>;
}): WorkflowPool & { stop(runId: string): Promise<boolean>; changed(runId: string): void; settled(ms: number): Promise<void> } {
  const { db, ledger } = deps;

  const logEvent = (runId: string, kind: string, payload: Record<string, unknown>) => logRunEvent(ledger, deps.store, runId, kind, payload);

  async function enqueue(start: QueuedStart): Promise<string | undefined> {
    const runId = ledger.nextId();
    const record: RunRecord = { runId, status: 'queued', startedAt: Date.now(), usage: emptyUsage(), source: start.source, workflowId: start.workflowId, title: start.title };
    const jobId = randomUUID();
    try {
      const queued = await db.tx(async (c) => {
        const rows = await c.query(
          `INSERT INTO ${SCHEMA}.runs (run_id, record, status, workflow_id, top_level, job, tick, started_at) VALUES ($1, $2, 'queued', $3, true, $4, $5, $6) ON CONFLICT (tick) DO NOTHING RETURNING run_id`,
          [runId, ledger.bus.redactor.value(record), start.workflowId, jobId, start.tick ?? null, record.startedAt],
        );
        if (!rows.rowCount) return false;
        const { tick: _t, title: _n, ...spec } = start;
        await deps.queue.send({ runId, takeover: false, start: spec }, jobId, (text, values) => c.query(text, values));
        return true;
      });
      if (!queued) return undefined;
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE) {
        // ON CONFLICT (tick) only arbitrates the tick: when two engines insert the same tick at
        // once, the loser can trip the one-per-workflow index first. That tick is queued, not skipped.
        if (start.tick != null && (await db.query(`SELECT 1 FROM ${SCHEMA}.runs WHERE tick = $1`, [start.tick])).length) return undefined;
        const other = (await db.query<{ run_id: string }>(`SELECT run_id FROM ${SCHEMA}.runs WHERE workflow_id = $1 AND top_level AND status IN ('queued', 'running')`, [start.workflowId]))[0]?.run_id;
        throw new AlreadyRunning(`workflow "${start.workflowId}" is already running in the pool${other ? ` (run ${other})` : ''}; stop it (POST /api/runs/${other ?? '<runId>'}/stop) or wait for it to end`);
      }
      throw err;
    }
    ledger.ingest(record);
    return runId;
  }

  async function claimResume(runId: string): Promise<void> {
    try {
      const rows = await db.query(`UPDATE ${SCHEMA}.runs SET status = 'running', boot = $2 WHERE run_id = $1 AND status = 'interrupted' RETURNING run_id`, [runId, deps.boot]);
      if (!rows.length) throw conflict(`run ${runId} is no longer interrupted (another engine of the pool took it); GET /api/runs shows its status`);
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE) throw conflict(`the workflow of run ${runId} is already running in the pool; stop that run before resuming this one`);
      throw err;
    }
  }

  function work(handler: (job: RunJob) => Promise<void>): void {
    if (!deps.concurrency) return;
    void deps.queue.work(deps.concurrency, async (jobId, data) => {
      // Fetched as this engine was leaving: the same run goes back to the queue for another engine.
      if (deps.queue.paused) {
        await db.tx((c) => deps.queue.send(data, randomUUID(), (text, values) => c.query(text, values)));
        return;
      }
      // Claimed here, or not at all: stopped while queued, or taken by another engine meanwhile.
      const claim = data.takeover ? `status = 'running' AND boot IS NULL` : `status = 'queued'`;
      const rows = await db.query<{ record: RunRecord }>(
        `UPDATE ${SCHEMA}.runs SET status = 'running', boot = $2, job = $3, record = record || '{"status":"running"}' WHERE run_id = $1 AND ${claim} RETURNING record`,
        [data.runId, deps.boot, jobId],
      );
      if (!rows.length) return;
      ledger.ingest(rows[0].record);
      const running = handler({ runId: data.runId, takeover: data.takeover, start: data.start as RunJob['start'], child: data.child as ChildStart | undefined });
      executing.add(running);
      await running.finally(() => executing.delete(running));
    });
  }

  /** The runs this engine's worker executes, until each has ended (or been handed over and wound down). */
  const executing = new Set<Promise<void>>();

  /** Resolves once every run the worker executes has wound down, or after `ms`. */
  async function settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...executing]), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Parents waiting here on a child's row, woken when the row is announced changed. */
  const waiting = new Map<string, () => void>();

  /** The runs table announced a change of `runId` (src/pool/index.ts). */
  function changed(runId: string): void {
    waiting.get(runId)?.();
  }

  async function child(start: ChildStart, here: (runId: string) => Promise<ChildEnd>, signal: AbortSignal): Promise<ChildEnd> {
    const runId = ledger.nextId();
    const record: RunRecord = { runId, status: 'queued', startedAt: Date.now(), usage: emptyUsage(), source: 'workflow', workflowId: start.workflowId, parentRunId: start.parentRunId, title: start.title };
    const jobId = randomUUID();
    await db.tx(async (c) => {
      await c.query(`INSERT INTO ${SCHEMA}.runs (run_id, record, status, workflow_id, top_level, job, started_at) VALUES ($1, $2, 'queued', $3, false, $4, $5)`, [
        runId,
        ledger.bus.redactor.value(record),
        start.workflowId,
        jobId,
        record.startedAt,
      ]);
      await deps.queue.send({ runId, takeover: false, child: start as unknown as Record<string, unknown> }, jobId, (text, values) => c.query(text, values));
    });
    ledger.ingest(record);
    const onAbort = () => void stop(runId).catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    const grace = Date.now() + LIMITS.poolChildGraceMs;
    let timer: NodeJS.Timeout | undefined;
    // Looks that found the child ended with no result yet: its engine writes the result just after
    // the end, unless it died in between.
    let unsaid = 0;
    try {
      for (;;) {
        const woken = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.max(50, Math.min(LIMITS.poolChildPollMs, grace - Date.now())));
          waiting.set(runId, () => (clearTimeout(timer), resolve()));
        });
        const row = (await db.query<{ status: string; result: ChildEnd | null }>(`SELECT status, result FROM ${SCHEMA}.runs WHERE run_id = $1`, [runId]))[0];
        if (!row) return { runId, status: 'interrupted', error: 'its row is gone from the pool' };
        if (row.result) return row.result;
        if (row.status === 'stopped' || row.status === 'interrupted') return { runId, status: row.status };
        if ((row.status === 'completed' || row.status === 'failed') && ++unsaid > 3) return { runId, status: 'interrupted' };
        if (row.status === 'queued' && !signal.aborted && Date.now() >= grace) {
          const claimed = await db.query<{ record: RunRecord }>(
            `UPDATE ${SCHEMA}.runs SET status = 'running', boot = $2, job = NULL, record = record || '{"status":"running"}' WHERE run_id = $1 AND status = 'queued' RETURNING record`,
            [runId, deps.boot],
          );
          if (claimed.length) {
            await deps.queue.cancel(jobId);
            ledger.ingest(claimed[0].record);
            // The same end a parent elsewhere would read: masked as the row keeps it.
            return ledger.bus.redactor.value(await here(runId));
          }
        }
        await woken;
      }
    } finally {
      clearTimeout(timer);
      waiting.delete(runId);
      signal.removeEventListener('abort', onAbort);
    }
  }

  async function childEnded(end: ChildEnd): Promise<void> {
    await db.query(`UPDATE ${SCHEMA}.runs SET result = $2 WHERE run_id = $1`, [end.runId, ledger.bus.redactor.value(end)]);
  }

  /** POST /api/runs/<id>/stop for a run this engine does not execute. */
  async function stop(runId: string): Promise<boolean> {
    const queued = await db.query<{ job: string | null; record: RunRecord }>(
      `UPDATE ${SCHEMA}.runs SET status = 'stopped', record = record || jsonb_build_object('status', 'stopped', 'endedAt', $2::bigint) WHERE run_id = $1 AND status = 'queued' RETURNING job, record`,
      [runId, Date.now()],
    );
    if (queued.length) {
      if (queued[0].job) await deps.queue.cancel(queued[0].job);
      ledger.ingest(queued[0].record);
      await logEvent(runId, 'run.stopped', { source: queued[0].record.source, workflowId: queued[0].record.workflowId, reason: 'stopped before an engine took it' });
      return true;
    }
    const running = await db.query(`SELECT 1 FROM ${SCHEMA}.runs WHERE run_id = $1 AND status = 'running'`, [runId]);
    if (!running.length) return false;
    await db.notify(CHANNELS.changes, JSON.stringify({ t: 'stop', id: runId }));
    return true;
  }

  return { ...deps.parts, enqueue, claimResume, work, stop, child, childEnded, changed, settled };
}

/** Writes an event to a run's log that no live run here emits (it reaches every engine's socket too). */
export async function logRunEvent(ledger: RunLedger, store: PgRunStore, runId: string, kind: string, payload: Record<string, unknown>): Promise<void> {
  const event = ledger.bus.emit(kind, payload, runId);
  await store.appendLine(runId, JSON.stringify(event));
}
