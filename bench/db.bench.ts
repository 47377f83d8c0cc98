/**
 * Databases (issue 18), each side by side with the strongest honest baseline, alternating rounds:
 *   1. A 100-row `table-data` page from a 1 000 000-row table over HTTP, against the same query
 *      through the raw driver in-process (better-sqlite3, pg, mysql2). Aim: within 1.2x + 2 ms.
 *   2. Export of 1 000 000 rows to CSV over HTTP, against `sqlite3 -csv` and
 *      `psql -c "\copy (...) to stdout csv"`. Aim: at least 0.8x their speed, memory growth < 100 MB.
 *
 *   node --import tsx bench/db.bench.ts            (BENCH_ROWS=200000 for a quicker pass)
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startEngine, type Engine } from '../src/engine.js';
import { startMariaDb, startPostgres, type DbServer } from '../test/support/databases.js';
import { fmt, median, result, table } from './lib/report.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PAGE_ROUNDS = 7;
const PAGE_REQUESTS = 40;
const EXPORT_ROUNDS = 3;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Runs a command with stdout drained, resolving with the wall time. */
function runTimed(cmd: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => (bytes += d.length));
    child.on('exit', (code) => (code === 0 && bytes > 0 ? resolve(performance.now() - t0) : reject(new Error(`${cmd} exited ${code} after ${bytes} bytes`))));
  });
}

async function post(engine: Engine, route: string, body: unknown): Promise<Response> {
  const res = await fetch(engine.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** Streams an export to nowhere, sampling this process's RSS growth while it runs. */
async function exportOnce(engine: Engine, id: string, sql: string): Promise<{ ms: number; bytes: number; growthMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const res = await post(engine, `/api/db/${id}/export`, { sql, format: 'csv' });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const ms = performance.now() - t0;
  clearInterval(sampler);
  return { ms, bytes, growthMb: (peak - base) / 1024 / 1024 };
}

async function pageBench(engine: Engine, id: string, raw: (after: number) => Promise<unknown[]>): Promise<{ engine: number; raw: number }> {
  const e: number[] = [];
  const r: number[] = [];
  const at = (k: number) => ((k * 7919) % (ROWS - 200)) + 1;
  const body = (after: number) => ({ table: 'items', filters: [{ column: 'id', op: '>', value: after }], sort: [{ column: 'id' }], limit: 100 });
  // Warm both paths and check they agree.
  const first = (await (await post(engine, `/api/db/${id}/table-data`, body(at(1)))).json()) as { rows: Array<{ id: number }> };
  const check = (await raw(at(1))) as Array<{ id: number }>;
  if (first.rows.length !== 100 || Number(first.rows[0].id) !== Number(check[0].id)) throw new Error('engine and raw driver disagree');
  for (let round = 0; round < PAGE_ROUNDS; round++) {
    const engineFirst = round % 2 === 0;
    for (const side of engineFirst ? ['engine', 'raw'] : ['raw', 'engine']) {
      for (let k = 0; k < PAGE_REQUESTS; k++) {
        const after = at(round * PAGE_REQUESTS + k + 2);
        if (side === 'engine') e.push(await timed(async () => (await post(engine, `/api/db/${id}/table-data`, body(after))).json()));
        else r.push(await timed(() => raw(after)));
      }
    }
  }
  return { engine: median(e), raw: median(r) };
}

async function seedSqlite(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL, created TEXT)');
  db.exec(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS})
           INSERT INTO items SELECT n, 'item-' || n, n * 0.5, '2026-01-01 00:00:00' FROM s`);
  db.close();
}

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-db-'));
  const file = path.join(dir, 'items.db');
  const [, pgServer, myServer] = await Promise.all([seedSqlite(file), startPostgres(), startMariaDb()]);
  const servers: DbServer[] = [pgServer, myServer];
  const engine = await startEngine({ home: path.join(dir, 'home'), port: 0, log: () => undefined, secretsBackend: 'file' });
  const rows: Array<Record<string, string | number>> = [];
  try {
    await pgServer.admin(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value DOUBLE PRECISION, created TIMESTAMP)`);
    await pgServer.admin(`INSERT INTO items SELECT n, 'item-' || n, n * 0.5, '2026-01-01 00:00:00' FROM generate_series(1, ${ROWS}) n`);
    await pgServer.admin('ANALYZE items');
    await myServer.admin('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, value DOUBLE, created DATETIME)');
    await myServer.admin(`INSERT INTO items SELECT seq, CONCAT('item-', seq), seq * 0.5, '2026-01-01 00:00:00' FROM seq_1_to_${ROWS}`);

    const put = (id: string, def: Record<string, unknown>) =>
      fetch(`${engine.url}/api/db/connections/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(def) });
    await put('lite', { engine: 'sqlite', path: file, timeoutMs: 600_000 });
    await put('pg', { engine: 'postgres', ...pgServer.fields, timeoutMs: 600_000 });
    await put('my', { engine: 'mysql', ...myServer.fields, timeoutMs: 600_000 });

    // 1. table-data pages against the raw drivers.
    const lite = new Database(file, { readonly: true });
    const liteStmt = lite.prepare('SELECT * FROM "main"."items" WHERE "id" > ? ORDER BY "id" ASC LIMIT ? OFFSET ?');
    const pgPool = new pg.Pool({ ...pgServer.fields, max: 1 });
    const myPool = mysql.createPool({ ...myServer.fields, connectionLimit: 1 });
    const pages = {
      sqlite: await pageBench(engine, 'lite', async (after) => liteStmt.all(after, 101, 0)),
      postgres: await pageBench(engine, 'pg', async (after) => (await pgPool.query('SELECT * FROM "public"."items" WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2 OFFSET $3', [after, 101, 0])).rows),
      mysql: await pageBench(engine, 'my', async (after) => (await myPool.query('SELECT * FROM `test`.`items` WHERE `id` > ? ORDER BY `id` ASC LIMIT ? OFFSET ?', [after, 101, 0]))[0] as unknown[]),
    };
    lite.close();
    await pgPool.end();
    await myPool.end();
    for (const [name, p] of Object.entries(pages)) {
      rows.push({ bench: `table-data 100 rows (${name})`, engine: `${fmt(p.engine, 2)} ms`, baseline: `raw driver ${fmt(p.raw, 2)} ms`, ratio: fmt(p.engine / p.raw, 2) });
    }

    // 2. CSV export of every row.
    const sql = 'SELECT * FROM items';
    const exp: Record<string, { engine: number[]; base: number[]; growth: number[] }> = { sqlite: { engine: [], base: [], growth: [] }, postgres: { engine: [], base: [], growth: [] } };
    for (let round = 0; round < EXPORT_ROUNDS; round++) {
      for (const name of ['sqlite', 'postgres'] as const) {
        const engineSide = async () => {
          const out = await exportOnce(engine, name === 'sqlite' ? 'lite' : 'pg', sql);
          exp[name].engine.push(out.ms);
          exp[name].growth.push(out.growthMb);
        };
        const baseSide = async () =>
          exp[name].base.push(
            name === 'sqlite'
              ? await runTimed('sqlite3', ['-csv', '-header', file, sql])
              : await runTimed('psql', ['-X', '-q', '-h', '127.0.0.1', '-p', String(pgServer.port), '-U', 'postgres', '-d', 'test', '-c', `\\copy (${sql}) to stdout csv header`], { PGPASSWORD: pgServer.password }),
          );
        if (round % 2 === 0) {
          await engineSide();
          await baseSide();
        } else {
          await baseSide();
          await engineSide();
        }
      }
    }
    for (const [name, e] of Object.entries(exp)) {
      const speed = median(e.base) / median(e.engine);
      rows.push({ bench: `export ${fmt(ROWS)} rows csv (${name})`, engine: `${fmt(median(e.engine))} ms, +${fmt(Math.max(...e.growth))} MB`, baseline: `${name === 'sqlite' ? 'sqlite3 -csv' : 'psql \\copy'} ${fmt(median(e.base))} ms`, ratio: `${fmt(speed, 2)}x speed` });
    }
    table(rows);
    for (const [name, p] of Object.entries(pages)) {
      // The aim "within 1.2x + 2 ms" as one number: engine time under 1.2 x raw + 2 ms.
      result(`db table-data page (${name})`, 'ms', p.engine, p.raw, { under: p.raw * 1.2 + 2 });
    }
    for (const [name, e] of Object.entries(exp)) {
      result(`db export csv speed vs ${name === 'sqlite' ? 'sqlite3' : 'psql'}`, 'rows/ms', ROWS / median(e.engine), ROWS / median(e.base), { ratioAtLeast: 0.8 });
      result(`db export csv memory growth (${name})`, 'MB', Math.max(...e.growth), 100, { under: 100 });
    }
  } finally {
    await engine.close();
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
