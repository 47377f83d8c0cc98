/**
 * Query execution and its policy.
 *   A person (HTTP) is governed only by the connection's `writable` flag: on a writable connection
 *   anything runs, on the read-write session; on a read-only one only reads run, on the read-only
 *   session (the database enforces it too).
 *   A model (db_query) always runs reads on the read-only session. A write needs a writable
 *   connection and the person's yes to the `db_query(<connection>)` prompt (tools.ts asks it before
 *   this runs). What reaches outside the database (files, programs, other connections) is never run
 *   for a model, nor on a read-only connection.
 * Every call lands in the connection's history; every call emits `db.query`.
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { classifySql, type Classification, type StatementClass } from './classify.js';
import { readOnlyLocks } from './seams.js';
import type { DbCore } from './service.js';
import { StatementError, type DbEngine, type StatementResult } from './types.js';
import { jsonRow } from './values.js';

export interface QueryRequest {
  sql: string;
  rowLimit?: number;
  mode?: 'run' | 'explain';
}

export interface StatementOutcome extends StatementResult {
  class: StatementClass;
}

export interface QueryOutcome {
  ok: boolean;
  connection: string;
  engine: DbEngine;
  class: StatementClass;
  statements: StatementOutcome[];
  rowLimit: number;
  /** Set when a statement's rows were capped: how many were kept of how many. */
  note?: string;
  error?: string;
  failedStatement?: string;
  durationMs: number;
}

export interface Caller {
  by: 'human' | 'model';
  agent?: string;
  /** The event sink of the call (a tool's run-scoped emit, or the bus). */
  emit?: (kind: string, payload: Record<string, unknown>) => void;
}

const EXPLAIN: Record<DbEngine, string> = { sqlite: 'EXPLAIN QUERY PLAN ', postgres: 'EXPLAIN ', mysql: 'EXPLAIN ' };

/** Why a batch is refused on a connection that does not allow it (null when it may run). */
export function refusal(c: Classification, writable: boolean, by: 'human' | 'model'): string | null {
  if (!readOnlyLocks.classifier) return null;
  const at = c.statements.findIndex((s) => s.class === c.class);
  const which = c.statements.length > 1 ? ` (statement ${at + 1} of ${c.statements.length})` : '';
  if (c.class === 'forbidden') {
    return by === 'model' || !writable ? `${c.reason}${which}; this is never run ${by === 'model' ? 'for a model' : 'on a read-only connection'}` : null;
  }
  if (c.class === 'write' && !writable) return `the connection is read-only and ${c.reason}${which}`;
  return null;
}

export function createQueryRunner(core: DbCore) {
  const clampRows = (asked: number | undefined, own: number) => Math.max(1, Math.min(asked ?? own, LIMITS.dbRowLimitMax));

  /**
   * Runs an already-allowed batch. `write` chooses the read-write session; otherwise everything runs
   * read-only at the database whatever the classifier said.
   */
  async function execute(id: string, req: QueryRequest, c: Classification, write: boolean, caller: Caller): Promise<QueryOutcome> {
    const { conn, driver } = await core.open(id);
    const rowLimit = clampRows(req.rowLimit, conn.rowLimit);
    const explain = req.mode === 'explain';
    const statements = c.statements.map((s) => (explain && s.verb !== 'explain' ? EXPLAIN[conn.engine] + s.sql : s.sql));
    const started = Date.now();
    let results: StatementResult[] = [];
    let error: string | undefined;
    let failed: string | undefined;
    try {
      results = await driver.run(statements, {
        readOnly: !write || explain,
        rowLimit,
        timeoutMs: conn.timeoutMs,
        reads: c.statements.map((s) => s.class === 'read' && !explain),
      });
    } catch (err) {
      if (err instanceof StatementError) {
        results = err.results;
        failed = err.failedSql;
      }
      error = core.mask(describeRunError(err, conn.timeoutMs));
    }
    if (write && c.class !== 'read') core.schemaChanged(id);
    const outcome: QueryOutcome = {
      ok: !error,
      connection: id,
      engine: conn.engine,
      class: c.class,
      statements: results.map((r, k) => ({ ...r, rows: r.rows.map(jsonRow), class: c.statements[k]?.class ?? 'read' })),
      rowLimit,
      durationMs: Date.now() - started,
    };
    const capped = outcome.statements.filter((s) => s.truncated);
    if (capped.length) {
      outcome.note = capped.map((s) => `rows capped at ${rowLimit} of ${s.rowCount}`).join('; ') + '; narrow the query (WHERE, LIMIT) or raise rowLimit to see more';
    }
    if (error) {
      outcome.error = error;
      if (failed !== undefined) outcome.failedStatement = core.mask(failed);
    }
    const rows = outcome.statements.reduce((n, s) => n + s.rowCount, 0);
    const affected = outcome.statements.reduce((n, s) => n + (s.affected ?? 0), 0);
    const sqlShown = core.mask(req.sql).slice(0, LIMITS.dbHistorySqlChars);
    await core.history.append(id, {
      ts: started,
      by: caller.by,
      agent: caller.agent,
      mode: explain ? 'explain' : 'run',
      sql: req.sql,
      durationMs: outcome.durationMs,
      rows,
      affected: affected || undefined,
      error,
    });
    (caller.emit ?? core.emit)('db.query', {
      connection: id,
      engine: conn.engine,
      by: caller.by,
      agent: caller.agent,
      class: c.class,
      mode: explain ? 'explain' : 'run',
      sql: sqlShown,
      statements: outcome.statements.length,
      rows,
      affected,
      durationMs: outcome.durationMs,
      ok: outcome.ok,
      ...(error ? { error } : {}),
    });
    return outcome;
  }

  const parse = async (id: string, sql: unknown, engine: DbEngine): Promise<Classification> => {
    if (typeof sql !== 'string' || !sql.trim()) throw badRequest('sql is required: one or more statements separated by ;');
    const c = await classifySql(sql, engine, (await core.open(id)).judge?.judge);
    if (!c.statements.length) throw badRequest('sql holds no statement (only comments or semicolons)');
    return c;
  };

  return {
    /** POST /api/db/<id>/query. A refusal is a 400 (nothing ran); a database error is `ok: false` with the results so far. */
    async human(id: string, req: QueryRequest): Promise<QueryOutcome> {
      const view = await core.store.get(id);
      const c = await parse(id, req.sql, view.engine);
      const explain = req.mode === 'explain';
      // Mode explain prefixes EXPLAIN and runs on the read-only session; a statement that already is an
      // EXPLAIN ANALYZE (MariaDB: ANALYZE) runs what it explains, and what a read-only transaction does not undo (an
      // advisory lock) must not run that way either.
      const ran = explain && readOnlyLocks.classifier ? c.statements.find((s) => (s.verb === 'explain' || s.verb === 'analyze') && s.class !== 'read') : undefined;
      if (ran) throw badRequest(`not run: mode explain runs nothing, but ${ran.reason} under EXPLAIN ANALYZE; send it in mode run`);
      const why = explain ? (c.class === 'forbidden' ? refusal(c, false, 'human') : null) : refusal(c, view.writable, 'human');
      if (why) throw badRequest(`not run: ${why}`);
      return execute(id, req, c, view.writable && !explain, { by: 'human' });
    },
    /** What the db_query tool's permission step needs: the classification and the refusal, if any. */
    async judge(id: string, sql: string) {
      const view = await core.store.get(id);
      const c = await parse(id, sql, view.engine);
      return { view, classification: c, refusal: refusal(c, view.writable, 'model') };
    },
    /** db_query after the gate: reads read-only; a write only on a writable connection (the prompt was answered yes). */
    async model(id: string, req: QueryRequest, caller: Caller): Promise<QueryOutcome> {
      const { view, classification, refusal: why } = await this.judge(id, req.sql);
      if (why) throw badRequest(why);
      return execute(id, { ...req, mode: 'run' }, classification, view.writable && classification.class === 'write', caller);
    },
  };
}

export type QueryRunner = ReturnType<typeof createQueryRunner>;

function describeRunError(err: unknown, timeoutMs: number): string {
  const message = (err as Error)?.message ?? String(err);
  if (/statement timeout|canceling statement due to statement timeout|interrupted|ER_QUERY_INTERRUPTED|ENGINE_TIMEOUT|longer than the timeout/i.test(message) || (err as { code?: string }).code === 'ENGINE_TIMEOUT') {
    return `the query ran longer than the connection's timeout (${timeoutMs} ms) and was stopped on the server; narrow it or raise timeoutMs`;
  }
  return message;
}
