/**
 * Nothing lost when an engine leaves the pool. At every heartbeat the living look for runs still
 * `running` under a boot that is no longer in the pool (kill -9, a crash, a machine gone); an engine
 * stopping cleanly hands on its own workflow runs at once. Exactly one engine wins each run (an
 * UPDATE that unsets the boot). A top-level workflow run is handed on by a new job: the worker that
 * takes it resumes it under the same id from its log (restored, rerun and lossy recorded on its
 * `run.started`), as POST /api/runs/<id>/resume would. Any other run (a chat turn, a subworkflow
 * whose parent reruns it) is marked interrupted, as an embedded engine's restart does.
 */
import { randomUUID } from 'node:crypto';
import type { RunLedger, RunRecord } from '../kernel/runs.js';
import type { PoolDb } from './db.js';
import type { RunQueue } from './queue.js';
import type { PgRunStore } from './run-store.js';
import { SCHEMA } from './schema.js';

interface Orphan {
  run_id: string;
  job: string | null;
  top_level: boolean;
  record: RunRecord;
}

export function createTakeover(deps: { db: PoolDb; queue: RunQueue; store: PgRunStore; ledger: RunLedger; log: (line: string) => void }) {
  /** Hands on the running runs `where` picks (over `runs r`), each told why by `reason(who, topLevel)`. */
  async function handOn(where: string, params: unknown[], reason: (who: string, topLevel: boolean) => string): Promise<void> {
    const orphans = await deps.db.tx(async (c) => {
      const rows = (
        await c.query<Orphan>(
          `UPDATE ${SCHEMA}.runs r SET boot = NULL,
             status = CASE WHEN top_level THEN 'running' ELSE 'interrupted' END,
             record = record || jsonb_build_object('status', CASE WHEN top_level THEN 'running' ELSE 'interrupted' END)
           WHERE status = 'running' AND ${where}
           RETURNING run_id, job, top_level, record`,
          params,
        )
      ).rows;
      // `run.interrupted` is in the log before the job that hands the run on can be taken (same transaction).
      const lines: Array<[string, string]> = rows.map((row) => {
        const why = reason(row.record.worker ? `engine ${row.record.worker}` : 'the engine running it', row.top_level);
        deps.log(`pool: run ${row.run_id}: ${why}`);
        return [row.run_id, JSON.stringify(deps.ledger.bus.emit('run.interrupted', { reason: why, worker: row.record.worker }, row.run_id))];
      });
      if (lines.length) await deps.store.insert((sql, values) => c.query(sql, values), lines);
      for (const row of rows) if (row.top_level) await deps.queue.send({ runId: row.run_id, takeover: true }, randomUUID(), (text, values) => c.query(text, values));
      return rows;
    });
    for (const row of orphans) {
      if (row.job) await deps.queue.fail(row.job, `engine ${row.record.worker ?? '?'} left while the run was in flight; the run was handed on`);
      deps.ledger.ingest(row.record);
    }
  }

  return {
    /** At every heartbeat: the runs of engines no longer in the pool. */
    reap: () =>
      handOn(`boot IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${SCHEMA}.engines e WHERE e.boot = r.boot)`, [], (who, top) =>
        top ? `${who} stopped answering; another engine of the pool takes the run over` : `${who} stopped while this run was in flight`,
      ),
    /** A clean stop: these runs of this engine (`boot`), handed on at once. */
    handOver: (boot: string, runIds: string[]) =>
      handOn(`boot = $1 AND run_id = ANY($2)`, [boot, runIds], (who, top) =>
        top ? `${who} stopped and handed the run on; another engine of the pool takes it over` : `${who} stopped while this run was in flight`,
      ),
  };
}
