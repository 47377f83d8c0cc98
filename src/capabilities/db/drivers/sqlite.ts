/**
 * SQLite through better-sqlite3, in a worker thread per connection (see sqlite-worker.ts for why).
 * The timeout is enforced twice: the worker checks the deadline at every row, and a worker that
 * has not answered a grace period after the deadline (one long step, no rows) is terminated, which
 * frees the engine at once; the next call starts a fresh worker.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { quoteDouble } from '../quote.js';
import { StatementError, type DbDriver, type ResolvedConnection, type Row, type RowCursor, type RunOptions, type StatementResult } from '../types.js';
import { sqliteCsvExtension } from './sqlite-native.js';
import { SQLITE_WORKER_SOURCE } from './sqlite-worker.js';

const TERMINATE_GRACE_MS = 250;
const STOPPED_BY_TIMEOUT = 'the SQLite worker was stopped because a query on this connection ran longer than its timeout; run this again';
const CURSOR_LOST = 'the SQLite worker holding these rows was stopped (a query on this connection ran longer than its timeout, or the connection closed); the rows were not all read';
/**
 * Characters of CSV the worker encodes per message. 64 K: few enough messages that their cost is
 * lost in the noise, and small enough that each string stays in V8's young generation on both
 * threads (a string past 128 KB goes to the large-object space and waits for a full collection:
 * with 256 K chunks a first export of 1 000 000 rows grew the engine by ~80 MB instead of ~50).
 */
const CSV_CHUNK_CHARS = 64 * 1024;

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { message: string; code?: string; partial?: StatementResult[]; failedSql?: string };
}

export class SqliteError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export function createSqliteDriver(conn: ResolvedConnection): DbDriver {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: Worker | undefined;
  let nextId = 1;
  type Waiter = { resolve: (v: unknown) => void; reject: (e: Error) => void };
  /**
   * The requests each worker owes an answer, per worker: a worker terminated after a timeout goes on
   * with its SQLite step until the step returns (native code cannot be interrupted), and its exit,
   * seconds later, must fail only its own requests, not those of the worker that replaced it.
   */
  const owed = new Map<Worker, Map<number, Waiter>>();

  const failAll = (w: Worker, err: Error) => {
    for (const entry of owed.get(w)?.values() ?? []) entry.reject(err);
    owed.delete(w);
  };
  const start = (): Worker => {
    if (worker) return worker;
    const w = new Worker(SQLITE_WORKER_SOURCE, {
      eval: true,
      workerData: { modulePath, csvExtension: sqliteCsvExtension(), file: conn.file, writable: conn.writable, busyMs: Math.min(conn.timeoutMs, 5000) },
    });
    w.unref();
    const waiting = new Map<number, Waiter>();
    owed.set(w, waiting);
    w.on('message', (reply: Reply) => {
      const entry = waiting.get(reply.id);
      if (!entry) return;
      waiting.delete(reply.id);
      if (reply.ok) entry.resolve(reply.value);
      else if (reply.error?.partial) entry.reject(new StatementError(reply.error.message, reply.error.partial, reply.error.failedSql ?? ''));
      else entry.reject(new SqliteError(reply.error?.message ?? 'SQLite failed', reply.error?.code));
    });
    w.on('error', (err) => {
      if (worker === w) worker = undefined;
      failAll(w, err);
    });
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      failAll(w, new SqliteError('the SQLite worker stopped'));
    });
    worker = w;
    return w;
  };

  /**
   * One request to the worker (to `on`, for a cursor: the worker that holds it); past `deadline` +
   * grace the worker is terminated, and every other request it owed fails at once.
   */
  const call = <T>(op: string, payload: Record<string, unknown>, deadline?: number, on?: Worker): Promise<T> => {
    if (on && !owed.has(on)) return Promise.reject(new SqliteError(CURSOR_LOST));
    const w = on ?? start();
    const waiting = owed.get(w)!; // a live worker: just started, or `on` checked above
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => timer && clearTimeout(timer);
      waiting.set(id, { resolve: (v) => (done(), resolve(v as T)), reject: (e) => (done(), reject(e)) });
      if (deadline !== undefined) {
        timer = setTimeout(() => {
          const entry = waiting.get(id);
          if (!entry) return;
          waiting.delete(id);
          entry.reject(new SqliteError('the query ran longer than the timeout and was interrupted', 'ENGINE_TIMEOUT'));
          if (worker === w) worker = undefined;
          failAll(w, new SqliteError(STOPPED_BY_TIMEOUT));
          void w.terminate();
        }, Math.max(0, deadline - Date.now()) + TERMINATE_GRACE_MS);
      }
      w.postMessage({ ...payload, id, op });
    });
  };

  return {
    engine: 'sqlite',
    async ping() {
      await call('ping', {}, Date.now() + conn.timeoutMs);
    },
    async run(statements: string[], options: RunOptions) {
      const deadline = Date.now() + options.timeoutMs;
      return call<StatementResult[]>('run', { statements, readOnly: options.readOnly, rowLimit: options.rowLimit, deadline }, deadline);
    },
    async select(sql: string, params: unknown[], options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? conn.timeoutMs);
      return call<Row[]>('select', { sql, params, deadline }, deadline);
    },
    async write(sql, params, options) {
      return call<number>('write', { sql, params, expectAtMost: options.expectAtMost }, Date.now() + options.timeoutMs);
    },
    async cursor(sql, options): Promise<RowCursor> {
      const owner = start();
      const opened = await call<{ cursor: number; columns: string[] }>('cursorOpen', { sql, readOnly: options.readOnly }, Date.now() + options.timeoutMs, owner);
      return {
        columns: async () => opened.columns,
        next: (count) => call<Row[]>('cursorNext', { cursor: opened.cursor, count }, undefined, owner),
        close: async () => {
          await call('cursorClose', { cursor: opened.cursor }, undefined, owner).catch(() => undefined);
        },
      };
    },
    async exportCsv(sql, options) {
      const owner = start();
      const opened = await call<{ cursor: number; header: string }>('csvOpen', { sql }, Date.now() + options.timeoutMs, owner);
      let closed = false;
      let rows = 0;
      const close = async () => {
        if (closed) return;
        closed = true;
        await call('cursorClose', { cursor: opened.cursor }, undefined, owner).catch(() => undefined);
      };
      const next = () => {
        const p = call<{ text: string; rows: number }>('csvNext', { cursor: opened.cursor, chars: CSV_CHUNK_CHARS }, undefined, owner);
        p.catch(() => undefined); // it may fail while nobody awaits it yet; the await below still throws
        return p;
      };
      return {
        chunks: (async function* () {
          // One batch is always being encoded in the worker while the last one is written: the two
          // threads work at once instead of taking turns.
          let ahead: Promise<{ text: string; rows: number }> | undefined;
          try {
            ahead = next();
            yield opened.header;
            for (;;) {
              const batch = await ahead;
              ahead = undefined;
              if (!batch.rows) break;
              rows += batch.rows;
              ahead = next();
              yield batch.text;
            }
          } finally {
            await close(); // also when the client left with a batch still ahead
          }
        })(),
        close,
        rows: () => rows,
      };
    },
    quoteIdent: quoteDouble,
    param: () => '?',
    async close() {
      const w = worker;
      worker = undefined;
      if (!w) return;
      await Promise.race([new Promise((r) => setTimeout(r, 1000).unref()), call('close', {}, undefined, w)]).catch(() => undefined);
      await w.terminate();
    },
  };
}
