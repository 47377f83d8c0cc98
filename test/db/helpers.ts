/**
 * The three engines side by side for the database tests: a SQLite file in a temp folder, a real
 * PostgreSQL and a real MariaDB (test/support/databases.ts), each seeded with the same tables.
 */
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { missing, startMariaDb, startPostgres, type DbServer } from '../support/databases.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

export type EngineName = 'sqlite' | 'postgres' | 'mysql';

export interface EngineCase {
  engine: EngineName;
  /** Set when the server's package is missing outside CI: the test skips with this line. */
  skip?: string;
  server?: DbServer;
  /** A saved connection definition (password included) for PUT /api/db/connections/<id>. */
  definition(extra?: Record<string, unknown>): Record<string, unknown>;
  /** SQL run outside the engine, as the database owner. */
  admin(sql: string): Promise<any[]>;
  /** The secret the definition carries (to check it never leaks). */
  secret?: string;
  file?: string;
  stop(): Promise<void>;
}

export const USERS = 250;

export function seedSql(engine: EngineName): string[] {
  const int = engine === 'mysql' ? 'INT' : 'INTEGER';
  const users = Array.from({ length: USERS }, (_, k) => `(${k + 1}, ${(k % 2) + 1}, 'user${String(k + 1).padStart(3, '0')}', ${k % 10 === 0 ? 'NULL' : `'u${k + 1}@example.com'`}, ${k % 7})`).join(', ');
  return [
    `CREATE TABLE orgs (id ${int} PRIMARY KEY, name VARCHAR(100) NOT NULL)`,
    `CREATE TABLE users (id ${int} PRIMARY KEY, org_id ${int}, name VARCHAR(100) NOT NULL, email VARCHAR(200), score ${int} DEFAULT 0, FOREIGN KEY (org_id) REFERENCES orgs(id))`,
    `CREATE INDEX users_email ON users(email)`,
    `CREATE VIEW user_names AS SELECT id, name FROM users`,
    `CREATE TABLE victim (id ${int} PRIMARY KEY, v VARCHAR(50))`,
    `INSERT INTO orgs VALUES (1, 'acme'), (2, 'globex')`,
    `INSERT INTO users VALUES ${users}`,
    `INSERT INTO victim VALUES (1, 'intact'), (2, 'intact')`,
  ];
}

export async function sqliteCase(): Promise<EngineCase> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-sqlite-'));
  const file = path.join(dir, 'data.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  for (const s of seedSql('sqlite')) db.exec(s);
  db.close();
  return {
    engine: 'sqlite',
    file,
    definition: (extra = {}) => ({ engine: 'sqlite', path: file, ...extra }),
    async admin(sql) {
      const d = new Database(file);
      try {
        const stmt = d.prepare(sql);
        return stmt.reader ? stmt.all() : (stmt.run(), []);
      } finally {
        d.close();
      }
    },
    stop: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function serverCase(engine: 'postgres' | 'mysql'): Promise<EngineCase> {
  const skip = missing(engine);
  if (skip) return { engine, skip, definition: () => ({}), admin: async () => [], stop: async () => undefined };
  const server = engine === 'postgres' ? await startPostgres() : await startMariaDb();
  try {
    for (const s of seedSql(engine)) await server.admin(s);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    engine,
    server,
    secret: server.password,
    definition: (extra = {}) => ({ engine, ...server.fields, ...extra }),
    admin: (sql) => server.admin(sql),
    stop: () => server.stop(),
  };
}

/**
 * Starts every one of `starts` side by side. When any fails, the ones that did start are stopped
 * before the error is thrown: a server or an engine left running keeps the test process alive, and
 * the runner would wait on it for ever instead of reporting the failure.
 */
export async function startAllOrNone<T>(starts: Array<Promise<T>>, stop: (started: T) => Promise<void>): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (!failed.length) return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  await Promise.allSettled(settled.flatMap((s) => (s.status === 'fulfilled' ? [stop(s.value)] : [])));
  throw new Error(failed.map((e) => e?.message ?? String(e)).join('\n---\n'));
}

/** The engines asked for (all three by default), the servers started side by side. */
export async function allCases(engines: EngineName[] = ['sqlite', 'postgres', 'mysql']): Promise<EngineCase[]> {
  return startAllOrNone(
    engines.map((e) => (e === 'sqlite' ? sqliteCase() : serverCase(e))),
    (c) => c.stop(),
  );
}

/** Rows of the victim table, read outside the engine. */
export async function victimRows(c: EngineCase): Promise<Array<{ id: number; v: string }>> {
  const rows = await c.admin('SELECT id, v FROM victim ORDER BY id');
  return rows.map((r) => ({ id: Number(r.id), v: String(r.v) }));
}

/** A test file's engine and its databases (all three by default): started side by side in `before`, stopped in `after`. */
export function engineAndCases(engines?: EngineName[]): { t: TestEngine; cases: EngineCase[]; ready: Promise<void> } {
  let started!: () => void;
  let failed!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
  ready.catch(() => undefined); // a file that never awaits it still sees the hook's own failure
  const env = { cases: [] as EngineCase[], ready } as { t: TestEngine; cases: EngineCase[]; ready: Promise<void> };
  before(async () => {
    try {
      const [t, cases] = await startAllOrNone<TestEngine | EngineCase[]>([startTestEngine(), allCases(engines)], async (x) =>
        Array.isArray(x) ? void (await Promise.all(x.map((c) => c.stop()))) : x.close(),
      );
      [env.t, env.cases] = [t as TestEngine, cases as EngineCase[]];
      started();
    } catch (err) {
      failed(err as Error);
      throw err;
    }
  });
  after(async () => {
    await env.t?.close();
    await Promise.all(env.cases.map((c) => c.stop()));
  });
  return env;
}
