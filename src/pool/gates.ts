/**
 * Gates in a pool (`engine_pool.gates`): the engine executing a run writes the gate row before it
 * says `gate.waiting`; every engine lists it (a mirror of the pending rows, refreshed on each
 * change) and any engine resolves it by writing the answer, which the executing engine reads on
 * the row's change and acts on (`gate.resolved` goes into the run's log from there). A gate whose
 * engine is gone is orphaned: readable, not resolvable; the run's takeover asks it again.
 */
import { notFound } from '../kernel/errors.js';
import { reloadLatest } from '../kernel/serial.js';
import { gateKey } from '../capabilities/workflows/gates.js';
import type { GateInfo, GateStore } from '../capabilities/workflows/types.js';
import type { PoolDb } from './db.js';
import { aliveSql } from './members.js';
import { SCHEMA } from './schema.js';

interface Row {
  key: string;
  run_id: string;
  node_id: string;
  workflow_id: string;
  message: string;
  since: string;
  boot: string;
  answer: { approved: boolean; note?: string } | null;
}

interface Waiting {
  emit: (kind: string, payload?: Record<string, unknown>) => void;
  nodeId: string;
  settle(answer: { approved: boolean; note?: string }): void;
}

export function createPoolGates(deps: { db: PoolDb; boot: string; liveBoots: () => Set<string>; log: (line: string) => void }): GateStore & { changed(key?: string): Promise<void> } {
  const { db } = deps;
  const waiting = new Map<string, Waiting>();
  let pending = new Map<string, Row>();

  const info = (r: Row): GateInfo => ({ key: r.key, runId: r.run_id, nodeId: r.node_id, workflowId: r.workflow_id, message: r.message, since: Number(r.since) });

  /** Reloads the pending rows and answers this engine's waiters whose rows were answered; one read at a time, the last after the newest change. */
  const changed = reloadLatest(async () => {
    const rows = await db.query<Row>(`SELECT * FROM ${SCHEMA}.gates`);
    pending = new Map(rows.filter((r) => !r.answer).map((r) => [r.key, r]));
    for (const row of rows) {
      const w = row.answer && row.boot === deps.boot ? waiting.get(row.key) : undefined;
      if (!w || !row.answer) continue;
      waiting.delete(row.key);
      await db.query(`DELETE FROM ${SCHEMA}.gates WHERE key = $1 AND boot = $2`, [row.key, deps.boot]);
      w.emit('gate.resolved', { nodeId: w.nodeId, key: row.key, approved: row.answer.approved, note: row.answer.note });
      w.settle(row.answer);
    }
  });

  const wait: GateStore['wait'] = async (req) => {
    const key = gateKey(req.runId, req.nodeId);
    if (req.signal.aborted) throw req.signal.reason ?? new Error('stopped');
    const changes = await req.changes().catch(() => '');
    await db.query(
      `INSERT INTO ${SCHEMA}.gates (key, run_id, node_id, workflow_id, message, since, boot, answer) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
       ON CONFLICT (key) DO UPDATE SET message = EXCLUDED.message, since = EXCLUDED.since, boot = EXCLUDED.boot, answer = NULL`,
      [key, req.runId, req.nodeId, req.workflowId, req.message, Date.now(), deps.boot],
    );
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiting.delete(key);
        void db.query(`DELETE FROM ${SCHEMA}.gates WHERE key = $1 AND boot = $2`, [key, deps.boot]).catch(() => undefined);
        reject(req.signal.reason ?? new Error('stopped'));
      };
      waiting.set(key, {
        emit: req.emit,
        nodeId: req.nodeId,
        settle: (answer) => {
          req.signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      });
      req.signal.addEventListener('abort', onAbort, { once: true });
      // The gate is in the database before anyone is told about it.
      req.emit('gate.waiting', { nodeId: req.nodeId, key, workflowId: req.workflowId, message: req.message, changes });
    });
  };

  async function resolve(input: { runId: string; nodeId: string; approved: boolean; note?: string }): Promise<void> {
    const key = gateKey(input.runId, input.nodeId);
    const answer = { approved: input.approved, ...(input.note !== undefined ? { note: input.note } : {}) };
    const done = await db.query(
      `UPDATE ${SCHEMA}.gates g SET answer = $2 WHERE key = $1 AND answer IS NULL AND EXISTS (SELECT 1 FROM ${SCHEMA}.engines e WHERE e.boot = g.boot AND ${aliveSql}) RETURNING key`,
      [key, answer],
    );
    if (done.length) return;
    const left = (await db.query<Row>(`SELECT * FROM ${SCHEMA}.gates WHERE key = $1 AND answer IS NULL`, [key]))[0];
    if (left) throw notFound(`gate ${key} is orphaned: the engine that asked it stopped. The pool takes its run over and asks again; GET /api/gates shows when`);
    throw notFound(`no gate ${key} is pending; GET /api/gates lists the pending gates`);
  }

  function forgetRun(runId: string): void {
    void db.query(`DELETE FROM ${SCHEMA}.gates WHERE run_id = $1 AND answer IS NULL`, [runId]).catch((err) => deps.log(`pool: gates of ${runId} not cleared: ${(err as Error).message}`));
  }

  function list() {
    const live = deps.liveBoots();
    const rows = [...pending.values()];
    const open = rows.filter((r) => live.has(r.boot));
    const orphaned = rows.filter((r) => !live.has(r.boot));
    return {
      pending: open.map((r) => r.key),
      orphaned: orphaned.map((r) => r.key),
      gates: [...open.map((r) => ({ ...info(r), orphaned: false })), ...orphaned.map((r) => ({ ...info(r), orphaned: true }))],
    };
  }

  return { init: changed, wait, resolve, list, forgetRun, changed };
}
