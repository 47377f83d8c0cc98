/**
 * MySQL and MariaDB through mysql2 (its callback core: rows arrive as events, so a capped read
 * never holds more rows than the cap). Every session: one statement per query (multipleStatements
 * off), LOAD DATA LOCAL impossible (the LOCAL_FILES capability is not offered and no stream factory
 * is given), FOUND_ROWS so an update counts the rows it matched, and an sql_mode without
 * NO_BACKSLASH_ESCAPES and ANSI_QUOTES (the lexer's reading of strings; a batch that was not all
 * reads may have changed it, so its session is not reused). Read-only sessions also pin
 * `SET SESSION TRANSACTION READ ONLY`, and every call is one START TRANSACTION READ ONLY, rolled back at
 * the end; after each statement a savepoint taken at the start is rolled back to, which fails once
 * the transaction was ended (COMMIT, or an implicit commit followed by START TRANSACTION READ
 * WRITE), so the call stops there and the session is thrown away. A timeout kills the query on the
 * server (KILL QUERY from a second session).
 */
import type mysql from 'mysql2';
import { lazyRequire } from '../../../kernel/lazy-require.js';
import { quoteBacktick } from '../quote.js';
import { readOnlyLocks } from '../seams.js';
import { privilegeSentence } from '../connect-errors.js';
import { StatementError, type DbDriver, type ResolvedConnection, type Row, type RowCursor, type RunOptions, type StatementResult } from '../types.js';

/** The driver loads on the first MySQL/MariaDB connection, not at start. */
const Mysql = lazyRequire<typeof mysql>('mysql2');

type Core = mysql.PoolConnection;

interface Streamed {
  columns: string[];
  rows: Row[];
  rowCount: number;
  affected?: number;
}

/** sql_mode flags that change how the server reads the text (strings, quotes, MariaDB's ORACLE parser): never on. */
export const LEXER_MODES = new Set(['NO_BACKSLASH_ESCAPES', 'ANSI_QUOTES', 'ANSI', 'ORACLE', 'MSSQL', 'DB2', 'POSTGRESQL', 'MAXDB']);

/** Rows an export buffers before the socket is paused. */
const BUFFER_HIGH = 20_000;

const prepared = new WeakSet<object>();

export function createMysqlDriver(conn: ResolvedConnection): DbDriver {
  const pools: { ro?: mysql.Pool; rw?: mysql.Pool } = {};
  const options = (): mysql.PoolOptions => {
    const base: mysql.PoolOptions = conn.url
      ? { uri: conn.url }
      : { host: conn.host ?? '127.0.0.1', port: conn.port ?? 3306, database: conn.database, user: conn.user, password: conn.password };
    return {
      ...base,
      ...(conn.ssl ? { ssl: { rejectUnauthorized: false } } : {}),
      multipleStatements: false,
      flags: ['-LOCAL_FILES', 'FOUND_ROWS'],
      connectTimeout: Math.min(conn.timeoutMs, 10_000),
      connectionLimit: 4,
      maxIdle: 4,
      idleTimeout: 30_000,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    };
  };
  const pool = (readOnly: boolean): mysql.Pool => {
    const key = readOnly ? 'ro' : 'rw';
    return (pools[key] ??= Mysql().createPool(options()));
  };

  const query = (c: Core | mysql.Connection, sql: string, values?: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => c.query({ sql, values }, (err, res) => (err ? reject(err) : resolve(res))));

  const checkout = async (readOnly: boolean): Promise<Core> => {
    const c = await new Promise<Core>((resolve, reject) => pool(readOnly).getConnection((err, got) => (err ? reject(err) : resolve(got))));
    if (!prepared.has(c)) {
      try {
        const [{ m }] = (await query(c, 'SELECT @@SESSION.sql_mode AS m')) as Array<{ m: string }>;
        const mode = m.split(',').filter((x) => x && !LEXER_MODES.has(x)).join(',');
        if (mode !== m) await query(c, 'SET SESSION sql_mode = ?', [mode]);
        if (readOnly) await query(c, 'SET SESSION TRANSACTION READ ONLY');
        prepared.add(c);
      } catch (err) {
        c.destroy();
        throw err;
      }
    }
    return c;
  };

  /** Kills the running query of `threadId` from a second session (the server stops it, not only our wait). */
  const killQuery = async (threadId: number) => {
    const killer = Mysql().createConnection({ ...options(), connectionLimit: undefined, maxIdle: undefined, idleTimeout: undefined } as mysql.ConnectionOptions);
    killer.on('error', () => undefined);
    try {
      await query(killer, `KILL QUERY ${Number(threadId)}`);
    } catch {
      // The query may have ended on its own meanwhile.
    } finally {
      killer.destroy();
    }
  };

  /** One statement; rows past `limit` are counted and dropped as they arrive. */
  const stream = (c: Core, sql: string, limit: number, timeoutMs: number): Promise<Streamed> =>
    new Promise((resolve, reject) => {
      const out: Streamed = { columns: [], rows: [], rowCount: 0 };
      let failed: Error | undefined;
      const timer = setTimeout(() => void killQuery(c.threadId), timeoutMs);
      const q = c.query({ sql });
      q.on('fields', (fields?: Array<{ name: string }>) => (out.columns = (fields ?? []).map((f) => f.name)));
      q.on('result', (row: unknown) => {
        if ((row as object | null)?.constructor?.name === 'ResultSetHeader') {
          out.affected = (row as { affectedRows?: number }).affectedRows;
          return;
        }
        if (out.rows.length < limit) out.rows.push(row as Row);
        out.rowCount++;
      });
      q.on('error', (err: Error) => {
        failed = err;
        clearTimeout(timer);
        reject(err);
      });
      q.on('end', () => {
        clearTimeout(timer);
        if (!failed) resolve(out);
      });
    });

  /**
   * Whether the read-only transaction of this call is still the one running. MariaDB ends a
   * transaction implicitly (DDL, BEGIN, START TRANSACTION READ WRITE, SET autocommit = 1), and a new
   * one may be read-write; the savepoint taken at its start exists only in the same transaction.
   */
  const sameTransaction = (c: Core): Promise<boolean> => query(c, 'ROLLBACK TO SAVEPOINT engine_ro').then(() => true, () => false);

  const run = async (statements: string[], asked: RunOptions): Promise<StatementResult[]> => {
    const opts = { ...asked, readOnly: asked.readOnly && readOnlyLocks.serverTransaction };
    const c = await checkout(opts.readOnly);
    const results: StatementResult[] = [];
    // A batch that was not all reads may have changed the session (SET sql_mode, user variables): it is not reused.
    let discard = !(opts.reads ?? []).every(Boolean) || (opts.reads?.length ?? 0) < statements.length;
    try {
      if (opts.readOnly) {
        await query(c, 'START TRANSACTION READ ONLY');
        await query(c, 'SAVEPOINT engine_ro');
      }
      for (const sql of statements) {
        const started = Date.now();
        let got: Streamed;
        try {
          got = await stream(c, sql, opts.rowLimit, opts.timeoutMs);
        } catch (err) {
          throw new StatementError(describeMysql(err), results, sql);
        }
        results.push({ sql, ...got, truncated: got.rowCount > got.rows.length, durationMs: Date.now() - started });
        if (opts.readOnly && !(await sameTransaction(c))) {
          discard = true;
          throw new StatementError('the statement ended the read-only transaction; nothing after it ran and the session was discarded', results, sql);
        }
      }
      return results;
    } catch (err) {
      if (!(err instanceof StatementError)) discard = true;
      throw err;
    } finally {
      if (opts.readOnly && !discard) await query(c, 'ROLLBACK').catch(() => (discard = true));
      if (discard) c.destroy();
      else c.release();
    }
  };

  return {
    engine: 'mysql',
    async ping() {
      const c = await checkout(!conn.writable);
      try {
        await query(c, 'SELECT 1');
      } finally {
        c.release();
      }
    },
    async privilegeWarning() {
      // USER_PRIVILEGES lists a privileged user's view of everyone: keep the current user's rows.
      const c = await checkout(true);
      const rows = (await query(
        c,
        `SELECT DISTINCT PRIVILEGE_TYPE AS p FROM information_schema.USER_PRIVILEGES
          WHERE PRIVILEGE_TYPE IN ('FILE', 'SUPER')
            AND GRANTEE = CONCAT(CHAR(39), SUBSTRING_INDEX(CURRENT_USER(), '@', 1), CHAR(39), '@', CHAR(39), SUBSTRING_INDEX(CURRENT_USER(), '@', -1), CHAR(39))
          ORDER BY 1`,
      ).finally(() => c.release())) as Array<{ p: string }>;
      return rows.length ? privilegeSentence(`the user has ${rows.map((r) => r.p).join(' and ')}`) : undefined;
    },
    run,
    async select(sql, params) {
      // Engine-written SQL (introspection, table pages): the session's READ ONLY characteristic covers it.
      const c = await checkout(true);
      try {
        return (await query(c, sql, params)) as Row[];
      } finally {
        c.release();
      }
    },
    async write(sql, params, o) {
      const c = await checkout(false);
      try {
        await query(c, 'START TRANSACTION');
        const res = (await query(c, sql, params)) as { affectedRows: number };
        if (o.expectAtMost !== undefined && res.affectedRows > o.expectAtMost) {
          await query(c, 'ROLLBACK');
          throw new StatementError(`the statement would change ${res.affectedRows} rows; nothing was changed`, [], sql);
        }
        await query(c, 'COMMIT');
        return res.affectedRows;
      } catch (err) {
        await query(c, 'ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        c.release();
      }
    },
    async cursor(sql, asked): Promise<RowCursor> {
      const o = { ...asked, readOnly: asked.readOnly && readOnlyLocks.serverTransaction };
      const c = await checkout(o.readOnly);
      await query(c, o.readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
      // Rows arrive as events; the socket is paused while the buffer is full (backpressure).
      const buffer: Row[] = [];
      let columns: string[] | undefined;
      let ended = false;
      let failed: Error | undefined;
      let wake: (() => void) | undefined;
      /** Rows the waiting reader needs: a row before that wakes nobody (no promise a row). */
      let want = 0;
      const notify = () => {
        const w = wake;
        wake = undefined;
        w?.();
      };
      const q = c.query({ sql });
      let sawFields = false;
      q.on('fields', (fields?: Array<{ name: string }>) => ((sawFields = fields !== undefined), (columns = (fields ?? []).map((f) => f.name)), notify()));
      q.on('result', (row: unknown) => {
        buffer.push(row as Row);
        if (buffer.length >= BUFFER_HIGH) c.pause();
        if (buffer.length >= want) notify();
      });
      q.on('error', (err: Error) => ((failed = err), notify()));
      q.on('end', () => ((ended = true), notify()));
      const waitFor = async (ready: () => boolean) => {
        while (!ready() && !ended && !failed) await new Promise<void>((r) => (wake = r));
        if (failed) throw new Error(describeMysql(failed));
      };
      try {
        await waitFor(() => columns !== undefined);
      } catch (err) {
        await query(c, 'ROLLBACK').catch(() => undefined);
        c.release();
        throw err;
      }
      let closed = false;
      return {
        columns: async () => columns ?? [],
        async next(count) {
          if (buffer.length < count) c.resume();
          want = Math.min(count, BUFFER_HIGH);
          await waitFor(() => buffer.length >= want);
          const batch = buffer.splice(0, count);
          if (buffer.length < BUFFER_HIGH / 2) c.resume();
          return batch;
        },
        async close() {
          if (closed) return;
          closed = true;
          // The rest of an unread result cannot be skipped cheaply; a statement that answered no
          // rows (SET ...) may have changed the session: neither goes back to the pool.
          if (!ended || !sawFields) {
            c.destroy();
            return;
          }
          await query(c, 'ROLLBACK').catch(() => undefined);
          c.release();
        },
      };
    },
    quoteIdent: quoteBacktick,
    param: () => '?',
    async close() {
      const all = [pools.ro, pools.rw].filter((p): p is mysql.Pool => !!p);
      pools.ro = pools.rw = undefined;
      await Promise.all(all.map((p) => new Promise<void>((r) => p.end(() => r()))));
    },
  };
}

export function describeMysql(err: unknown): string {
  const e = err as { message?: string; code?: string; errno?: number };
  return e.code && e.errno ? `${e.message} (${e.code})` : (e.message ?? String(err));
}
