/**
 * PostgreSQL through pg. Two pools per connection, made on first use:
 *   read-only  sessions start with default_transaction_read_only=on and standard_conforming_strings=on
 *              (the lexer's reading of strings); every call is one BEGIN READ ONLY transaction whose
 *              snapshot is taken at once (so SET TRANSACTION READ WRITE is refused by the server),
 *              statements go one per extended-protocol message (no second statement can hide in
 *              one), the transaction status is watched after each statement (a COMMIT or ROLLBACK
 *              that ends it stops the call and the session is thrown away) and everything is rolled
 *              back at the end, which also undoes any set_config;
 *   read-write only for a writable connection's human or approved calls.
 * The statements it runs are the texts PostgreSQL's own parser cut (classify-pg.ts); the export's
 * COPY and DECLARE wrappers are checked by parsing them again (pg-parser.ts wrapVerified). A call
 * that was not all reads ends its session instead of returning it to the pool.
 * statement_timeout (a startup parameter) stops a long query on the server.
 */
import type pg from 'pg';
import { lazyRequire } from '../../../kernel/lazy-require.js';
import { inTransaction } from '../../../kernel/pg-transaction.js';
import { quoteDouble } from '../quote.js';
import { copyOut } from './pg-copy.js';
import { loadPgParser, wrapVerified } from '../pg-parser.js';
import { readOnlyLocks } from '../seams.js';
import { privilegeSentence } from '../connect-errors.js';
import { StatementError, type DbDriver, type ResolvedConnection, type Row, type RowCursor, type RunOptions, type StatementResult } from '../types.js';

/** The driver loads on the first PostgreSQL connection, not at start. */
const Pg = lazyRequire<typeof pg>('pg');

type Client = pg.PoolClient & { connection: { on(event: 'readyForQuery', fn: (msg: { status: string }) => void): void } };

/** The transaction status of the last ReadyForQuery: I idle, T in a transaction, E failed transaction. */
const statusOf = new WeakMap<object, string>();

const CURSOR_VERBS = new Set(['select', 'with', 'values', 'table']);
const verbOf = (sql: string) => /^[\s(]*([A-Za-z]+)/.exec(sql)?.[1]?.toLowerCase() ?? '';

export function createPostgresDriver(conn: ResolvedConnection): DbDriver {
  const pools: { ro?: pg.Pool; rw?: pg.Pool } = {};

  const pool = (readOnly: boolean): pg.Pool => {
    const key = readOnly ? 'ro' : 'rw';
    const existing = pools[key];
    if (existing) return existing;
    const base: pg.PoolConfig = conn.url
      ? { connectionString: conn.url }
      : { host: conn.host ?? '127.0.0.1', port: conn.port ?? 5432, database: conn.database, user: conn.user, password: conn.password };
    const made = new (Pg().Pool)({
      ...base,
      ...(conn.ssl ? { ssl: { rejectUnauthorized: false } } : {}),
      max: 4,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: Math.min(conn.timeoutMs, 10_000),
      statement_timeout: conn.timeoutMs,
      application_name: 'workbench-engine',
      // standard_conforming_strings on everywhere: how the parser reads strings (a batch that could change it ends its session, see run).
      options: readOnly ? '-c default_transaction_read_only=on -c standard_conforming_strings=on' : '-c standard_conforming_strings=on',
    });
    made.on('error', () => undefined); // an idle client dropped by the server; the pool replaces it
    made.on('connect', (client) => (client as Client).connection.on('readyForQuery', (msg) => statusOf.set(client, msg.status)));
    pools[key] = made;
    return made;
  };

  /**
   * Runs a read into at most `limit` rows through a cursor; MOVE counts the rest without sending
   * them. Inside a caller's transaction it works under a savepoint, so a failure leaves that
   * transaction as it was.
   */
  const cappedRead = async (client: Client, sql: string, limit: number, extended: boolean): Promise<Omit<StatementResult, 'sql' | 'durationMs'>> => {
    const inTx = statusOf.get(client) === 'T';
    await client.query(inTx ? 'SAVEPOINT engine_rows' : 'BEGIN');
    try {
      await client.query({ text: `DECLARE engine_rows NO SCROLL CURSOR FOR ${sql}`, queryMode: extended ? 'extended' : undefined } as pg.QueryConfig);
      const page = await client.query(`FETCH ${limit} FROM engine_rows`);
      const rest = await client.query('MOVE FORWARD ALL IN engine_rows');
      await client.query('CLOSE engine_rows');
      await client.query(inTx ? 'RELEASE SAVEPOINT engine_rows' : 'COMMIT');
      const more = rest.rowCount ?? 0;
      return { columns: page.fields.map((f) => f.name), rows: page.rows, rowCount: page.rows.length + more, truncated: more > 0 };
    } catch (err) {
      await client.query(inTx ? 'ROLLBACK TO SAVEPOINT engine_rows' : 'ROLLBACK').catch(() => undefined);
      if (inTx) await client.query('RELEASE SAVEPOINT engine_rows').catch(() => undefined);
      throw err;
    }
  };

  const runOne = async (client: Client, sql: string, isRead: boolean, options: RunOptions): Promise<StatementResult> => {
    const started = Date.now();
    if (isRead && CURSOR_VERBS.has(verbOf(sql))) {
      return { sql, ...(await cappedRead(client, sql, options.rowLimit, options.readOnly)), durationMs: Date.now() - started };
    }
    const res = await client.query({ text: sql, queryMode: options.readOnly ? 'extended' : undefined } as pg.QueryConfig);
    const results = Array.isArray(res) ? (res as pg.QueryResult[]) : [res];
    const last = results[results.length - 1];
    const rows = last.rows ?? [];
    return {
      sql,
      columns: (last.fields ?? []).map((f) => f.name),
      rows: rows.slice(0, options.rowLimit),
      rowCount: rows.length,
      affected: last.command && last.command !== 'SELECT' ? (last.rowCount ?? undefined) : undefined,
      truncated: rows.length > options.rowLimit,
      durationMs: Date.now() - started,
    };
  };

  const run = async (statements: string[], asked: RunOptions): Promise<StatementResult[]> => {
    const options = { ...asked, readOnly: asked.readOnly && readOnlyLocks.serverTransaction };
    const client = (await pool(options.readOnly).connect()) as Client;
    // A batch that was not all reads may have changed the session (SET, set_config): it is not reused.
    let discard = !(options.reads ?? []).every(Boolean) || (options.reads?.length ?? 0) < statements.length;
    const results: StatementResult[] = [];
    try {
      if (options.readOnly) {
        await client.query('BEGIN READ ONLY');
        await client.query('SELECT 1'); // takes the snapshot: from here the transaction can never turn read-write
      }
      for (let k = 0; k < statements.length; k++) {
        try {
          results.push(await runOne(client, statements[k], options.reads?.[k] ?? false, options));
        } catch (err) {
          throw new StatementError(describePg(err), results, statements[k]);
        }
        if (options.readOnly && statusOf.get(client) !== 'T') {
          discard = true;
          throw new StatementError('the statement ended the read-only transaction; nothing after it ran and the session was discarded', results, statements[k]);
        }
      }
      return results;
    } catch (err) {
      if (!(err instanceof StatementError)) discard = true;
      throw err;
    } finally {
      if (options.readOnly && !discard) await client.query('ROLLBACK').catch(() => (discard = true));
      client.release(discard);
    }
  };

  return {
    engine: 'postgres',
    async ping() {
      const client = await pool(!conn.writable).connect();
      try {
        await client.query('SELECT 1');
      } finally {
        client.release();
      }
    },
    async privilegeWarning() {
      const [row] = (
        await pool(true).query(
          `SELECT r.rolsuper AS su, ARRAY(SELECT b.rolname::text FROM pg_roles b
             WHERE b.rolname IN ('pg_write_server_files', 'pg_execute_server_program', 'pg_read_server_files')
               AND pg_has_role(current_user, b.oid, 'MEMBER') ORDER BY 1) AS roles
           FROM pg_roles r WHERE r.rolname = current_user`,
        )
      ).rows as Array<{ su: boolean; roles: string[] }>;
      const what = row?.su ? 'is a superuser' : row?.roles.length ? `has ${row.roles.join(', ')}` : undefined;
      return what && privilegeSentence(`the role ${what}`);
    },
    run,
    async select(sql, params, options) {
      // Engine-written SQL (introspection, table pages) on the read-only pool: its sessions default
      // to read-only transactions, so one round trip is enough.
      if (!options?.timeoutMs || options.timeoutMs === conn.timeoutMs) return (await pool(true).query(sql, params)).rows as Row[];
      // A budget of its own (the catalog reads of a connection whose own timeout is short): for this one statement.
      const budget = Math.floor(options.timeoutMs);
      return inTransaction(pool(true), 'BEGIN READ ONLY', async (client) => {
        await client.query(`SET LOCAL statement_timeout = ${budget}`);
        return (await client.query(sql, params)).rows as Row[];
      });
    },
    async write(sql, params, options) {
      return inTransaction(pool(false), 'BEGIN', async (client) => {
        const affected = (await client.query({ text: sql, values: params })).rowCount ?? 0;
        if (options.expectAtMost !== undefined && affected > options.expectAtMost) throw new StatementError(`the statement would change ${affected} rows; nothing was changed`, [], sql);
        return affected;
      });
    },
    async cursor(sql, asked): Promise<RowCursor> {
      const options = { ...asked, readOnly: asked.readOnly && readOnlyLocks.serverTransaction };
      const client = (await pool(options.readOnly).connect()) as Client;
      let columns: string[] | undefined;
      let buffered: Row[] | undefined;
      try {
        await loadPgParser();
        const declare = wrapVerified('DECLARE engine_export NO SCROLL CURSOR FOR ', sql, '');
        await client.query(options.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
        await client.query({ text: declare, queryMode: 'extended' } as pg.QueryConfig);
        const first = await client.query('FETCH 1000 FROM engine_export');
        columns = first.fields.map((f) => f.name);
        buffered = first.rows;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
        throw new Error(describePg(err));
      }
      let closed = false;
      return {
        columns: async () => columns ?? [],
        async next(count) {
          if (buffered) {
            const b = buffered;
            buffered = undefined;
            return b;
          }
          if (closed) return [];
          return (await client.query(`FETCH ${Math.max(1, Math.floor(count))} FROM engine_export`)).rows;
        },
        async close() {
          if (closed) return;
          closed = true;
          await client.query('ROLLBACK').catch(() => undefined);
          client.release();
        },
      };
    },
    async exportCsv(sql) {
      const readOnly = readOnlyLocks.serverTransaction;
      const client = await pool(readOnly).connect();
      let first: IteratorResult<Buffer>;
      let it: AsyncIterator<Buffer>;
      let copy: ReturnType<typeof copyOut>;
      try {
        await loadPgParser();
        const text = wrapVerified('COPY (\n', sql, ') TO STDOUT WITH (FORMAT csv, HEADER)');
        await client.query(readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
        copy = copyOut(client, text);
        it = copy[Symbol.asyncIterator]();
        first = await it.next(); // a bad query fails here, before any byte is sent
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
        throw new Error(describePg(err));
      }
      let ended = false;
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        // A copy cut short is still streaming: the session cannot be reused, so it is closed.
        if (ended) await client.query('ROLLBACK').then(() => client.release(), () => client.release(true));
        else client.release(true);
      };
      return {
        chunks: (async function* () {
          try {
            if (!first.done) yield first.value;
            for (;;) {
              const r = await it.next();
              if (r.done) break;
              yield r.value;
            }
            ended = true;
          } finally {
            await release();
          }
        })(),
        close: release,
        rows: () => copy.rows(),
      };
    },
    quoteIdent: quoteDouble,
    param: (n) => `$${n}`,
    async close() {
      const all = [pools.ro, pools.rw].filter((p): p is pg.Pool => !!p);
      pools.ro = pools.rw = undefined;
      await Promise.all(all.map((p) => p.end().catch(() => undefined)));
    },
  };
}

/** The server's message with its SQLSTATE, which names the cause (42501 permission, 25006 read-only ...). */
export function describePg(err: unknown): string {
  const e = err as { message?: string; code?: string };
  return e.code && /^[0-9A-Z]{5}$/.test(e.code) ? `${e.message} (SQLSTATE ${e.code})` : (e.message ?? String(err));
}
