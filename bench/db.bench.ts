/**
 * Databases (issue 18), each side by side with the strongest honest baseline, alternating rounds:
 *   1. A 100-row `table-data` page from a 1 000 000-row table over HTTP, against the same query
 *      through the raw driver in-process (better-sqlite3, pg, mysql2). Aim: within 1.2x + 2 ms.
 *   1b. The same page as SQL through POST /query (the classifier on the path: PostgreSQL's parser,
 *      the MariaDB lexer), against the raw driver, and the classification alone timed in-process.
 *   2. Export of 1 000 000 rows to CSV over HTTP, against `sqlite3 -csv` and
 *      `psql -c "\copy (...) to stdout csv"`. Aim: at least 0.8x their speed, memory growth < 100 MB.
 *      MariaDB against `mariadb --batch` (its tab-separated text), for information: no aim.
 *      Fair both ways: the same rows and columns, every side read to the end by a client in a
 *      process of its own (the baselines write to a pipe; the engine answers curl, which writes to a
 *      pipe) that this process drains, counting the lines of both; the engine runs in this process,
 *      so its memory growth is this process's RSS.
 *
 *   npm run bench -- db.bench           (BENCH_ROWS=200000 for a quicker pass; BENCH_DB_PARTS=export
 *                                        for the exports only)
 */
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { startEngine, type Engine } from '../src/engine.js';
import { startMariaDb, startPostgres, type DbServer } from '../test/support/databases.js';
import { fmt, median, result, table } from './lib/report.js';
import { alternate, describe } from './lib/rounds.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PAGE_ROUNDS = 7;
const PAGE_REQUESTS = 40;
const EXPORT_ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 5);
const PARTS = (process.env.BENCH_DB_PARTS ?? 'pages,query,export').split(',');

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Drained {
  ms: number;
  bytes: number;
  lines: number;
}

/** Runs a command with stdout drained (lines counted), resolving with the wall time. */
function runTimed(cmd: string, args: string[], env: Record<string, string> = {}): Promise<Drained> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let bytes = 0;
    let lines = 0;
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      for (let at = d.indexOf(10); at !== -1; at = d.indexOf(10, at + 1)) lines++;
    });
    child.on('close', (code) => (code === 0 && bytes > 0 ? resolve({ ms: performance.now() - t0, bytes, lines }) : reject(new Error(`${cmd} exited ${code} after ${bytes} bytes`))));
  });
}

const hasCommand = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

async function post(engine: Engine, route: string, body: unknown): Promise<Response> {
  const res = await fetch(engine.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return res;
}

/**
 * One CSV export read to the end by curl (its output drained here like a baseline's), sampling
 * this process's RSS growth, which is the engine's. Without curl, an in-process fetch reads it,
 * which charges the client's own work to the engine's thread.
 */
async function exportOnce(engine: Engine, id: string, sql: string): Promise<Drained & { growthMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const body = JSON.stringify({ sql, format: 'csv' });
  const url = `${engine.url}/api/db/${id}/export`;
  let out: Drained;
  if (CURL) {
    out = await runTimed('curl', ['-sS', '--fail', '-X', 'POST', '-H', 'content-type: application/json', '--data-binary', body, url]);
  } else {
    const t0 = performance.now();
    const res = await post(engine, `/api/db/${id}/export`, { sql, format: 'csv' });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    }
    out = { ms: performance.now() - t0, bytes, lines };
  }
  clearInterval(sampler);
  return { ...out, growthMb: (peak - base) / 1024 / 1024 };
}
const CURL = hasCommand('curl');

/** A 100-row page through the engine (table-data, or a query through the classifier) against the raw driver. */
async function pageBench(engine: Engine, id: string, raw: (after: number) => Promise<unknown[]>, route: 'table-data' | 'query' = 'table-data'): Promise<{ engine: number; raw: number }> {
  const e: number[] = [];
  const r: number[] = [];
  const at = (k: number) => ((k * 7919) % (ROWS - 200)) + 1;
  const body = (after: number) =>
    route === 'query'
      ? { sql: `SELECT * FROM items WHERE id > ${after} ORDER BY id LIMIT 100` }
      : { table: 'items', filters: [{ column: 'id', op: '>', value: after }], sort: [{ column: 'id' }], limit: 100 };
  const rowsOf = (out: { rows?: Array<{ id: number }>; statements?: Array<{ rows: Array<{ id: number }> }> }) => out.rows ?? out.statements?.[0]?.rows ?? [];
  // Warm both paths and check they agree.
  const first = { rows: rowsOf((await (await post(engine, `/api/db/${id}/${route}`, body(at(1)))).json()) as never) };
  const check = (await raw(at(1))) as Array<{ id: number }>;
  if (first.rows.length !== 100 || Number(first.rows[0].id) !== Number(check[0].id)) throw new Error('engine and raw driver disagree');
  for (let round = 0; round < PAGE_ROUNDS; round++) {
    const engineFirst = round % 2 === 0;
    for (const side of engineFirst ? ['engine', 'raw'] : ['raw', 'engine']) {
      for (let k = 0; k < PAGE_REQUESTS; k++) {
        const after = at(round * PAGE_REQUESTS + k + 2);
        if (side === 'engine') e.push(await timed(async () => (await post(engine, `/api/db/${id}/${route}`, body(after))).json()));
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
    const pages: Record<string, { engine: number; raw: number }> = {};
    if (PARTS.includes('pages')) {
      const lite = new Database(file, { readonly: true });
      const liteStmt = lite.prepare('SELECT * FROM "main"."items" WHERE "id" > ? ORDER BY "id" ASC LIMIT ? OFFSET ?');
      const pgPool = new pg.Pool({ ...pgServer.fields, max: 1 });
      const myPool = mysql.createPool({ ...myServer.fields, connectionLimit: 1 });
      pages.sqlite = await pageBench(engine, 'lite', async (after) => liteStmt.all(after, 101, 0));
      pages.postgres = await pageBench(engine, 'pg', async (after) => (await pgPool.query('SELECT * FROM "public"."items" WHERE "id" > $1 ORDER BY "id" ASC LIMIT $2 OFFSET $3', [after, 101, 0])).rows);
      pages.mysql = await pageBench(engine, 'my', async (after) => (await myPool.query('SELECT * FROM `test`.`items` WHERE `id` > ? ORDER BY `id` ASC LIMIT ? OFFSET ?', [after, 101, 0]))[0] as unknown[]);
      lite.close();
      await pgPool.end();
      await myPool.end();
    }
    for (const [name, p] of Object.entries(pages)) {
      rows.push({ bench: `table-data 100 rows (${name})`, engine: `${fmt(p.engine, 2)} ms`, baseline: `raw driver ${fmt(p.raw, 2)} ms`, ratio: fmt(p.engine / p.raw, 2) });
    }

    // 1b. The same page as SQL through POST /query: classification (PostgreSQL's parser, the
    // MariaDB lexer) is on this path; the parse alone is timed in-process below.
    const queries: Record<string, { engine: number; raw: number }> = {};
    if (PARTS.includes('query')) {
      const pgPool = new pg.Pool({ ...pgServer.fields, max: 1 });
      const myPool = mysql.createPool({ ...myServer.fields, connectionLimit: 1 });
      const page = (after: number) => `SELECT * FROM items WHERE id > ${after} ORDER BY id LIMIT 100`;
      queries.postgres = await pageBench(engine, 'pg', async (after) => (await pgPool.query(page(after))).rows, 'query');
      queries.mysql = await pageBench(engine, 'my', async (after) => (await myPool.query(page(after)))[0] as unknown[], 'query');
      await pgPool.end();
      await myPool.end();
      for (const [name, p] of Object.entries(queries)) {
        rows.push({ bench: `query 100 rows (${name})`, engine: `${fmt(p.engine, 2)} ms`, baseline: `raw driver ${fmt(p.raw, 2)} ms`, ratio: fmt(p.engine / p.raw, 2) });
      }
      const classify = await import('../src/capabilities/db/classify.js').catch(() => undefined);
      // Issue 39: what the page calls judged by the server's catalog (cached after the first page), beside the structure alone.
      const judges = await import('../src/capabilities/db/judge.js').catch(() => undefined);
      if (classify && 'classifySql' in classify) {
        for (const [name, server] of [['postgres', pgServer], ['mysql', myServer]] as const) {
          await classify.classifySql(page(1), name);
          const n = 5000;
          const t0 = performance.now();
          for (let i = 0; i < n; i++) classify.classify(page(i), name);
          const structure = ((performance.now() - t0) / n) * 1000;
          rows.push({ bench: `classify the page's SQL (${name})`, engine: `${fmt(structure, 1)} µs`, baseline: '', ratio: '(info)' });
          if (!judges) continue;
          const { createDriver } = await import('../src/capabilities/db/drivers/index.js');
          const driver = createDriver({ id: 'bench', engine: name, ...server.fields, writable: false, rowLimit: 100, timeoutMs: 600_000 });
          const judge = judges.createJudge(driver)!;
          await classify.classifySql(page(1), name, judge.judge);
          const t1 = performance.now();
          for (let i = 0; i < n; i++) await classify.classifySql(page(i), name, judge.judge);
          const judged = ((performance.now() - t1) / n) * 1000;
          rows.push({ bench: `classify and judge it by the catalog, cached (${name})`, engine: `${fmt(judged, 1)} µs`, baseline: `structure alone ${fmt(structure, 1)} µs`, ratio: '(info)' });
          await driver.close();
        }
      }
    }

    // 2. CSV export of every row.
    const sql = 'SELECT * FROM items';
    const mariadbCli = hasCommand('mariadb') ? 'mariadb' : hasCommand('mysql') ? 'mysql' : undefined;
    const exports = [
      { name: 'sqlite', id: 'lite', label: 'sqlite3 -csv', aim: true, base: () => runTimed('sqlite3', ['-csv', '-header', file, sql]) },
      {
        name: 'postgres',
        id: 'pg',
        label: 'psql \\copy',
        aim: true,
        base: () => runTimed('psql', ['-X', '-q', '-h', '127.0.0.1', '-p', String(pgServer.port), '-U', 'postgres', '-d', 'test', '-c', `\\copy (${sql}) to stdout csv header`], { PGPASSWORD: pgServer.password }),
      },
      ...(mariadbCli
        ? [{ name: 'mariadb', id: 'my', label: `${mariadbCli} --batch`, aim: false, base: () => runTimed(mariadbCli, ['--batch', '-h', '127.0.0.1', '-P', String(myServer.port), '-u', myServer.user, 'test', '-e', sql], { MYSQL_PWD: myServer.password }) }]
        : []),
    ];
    const exp: Record<string, { engine: number[]; base: number[]; growth: number[] }> = {};
    if (PARTS.includes('export')) {
      for (const x of exports) {
        const e = (exp[x.name] = { engine: [] as number[], base: [] as number[], growth: [] as number[] });
        const check = (side: string, out: Drained) => {
          // Header plus one line a row on both sides: the same rows, read to the end.
          if (out.lines !== ROWS + 1) throw new Error(`${x.name} ${side}: ${out.lines} lines for ${ROWS} rows`);
        };
        const samples = await alternate(EXPORT_ROUNDS, {
          engine: async () => {
            const out = await exportOnce(engine, x.id, sql);
            check('engine', out);
            e.growth.push(out.growthMb);
            return out.ms;
          },
          baseline: async () => {
            const out = await x.base();
            check(x.label, out);
            return out.ms;
          },
        });
        e.engine = samples.engine;
        e.base = samples.baseline;
        const speed = median(e.base) / median(e.engine);
        rows.push({
          bench: `export ${fmt(ROWS)} rows csv (${x.name})${CURL ? '' : ' [fetch client in-process]'}`,
          engine: `${describe(e.engine, 0)} ms, +${fmt(Math.max(...e.growth))} MB`,
          baseline: `${x.label} ${describe(e.base, 0)} ms`,
          ratio: `${fmt(speed, 2)}x speed${x.aim ? '' : ' (info)'}`,
        });
      }
    }
    if (exp.sqlite) {
      // For information: better-sqlite3 stepping every row of the same query into JavaScript, nothing
      // encoded or sent. The floor of any export that hands rows to JavaScript one by one; the engine's
      // compiled writer (native/sqlite-csv.c) hands over ~64 KB chunks of CSV instead.
      const lite = new Database(file, { readonly: true });
      const stmt = lite.prepare(sql).raw(true);
      const floor: number[] = [];
      for (let i = 0; i < EXPORT_ROUNDS; i++) {
        const t0 = performance.now();
        for (const _row of stmt.iterate()) void _row;
        floor.push(performance.now() - t0);
      }
      lite.close();
      rows.push({
        bench: `better-sqlite3 stepping the same ${fmt(ROWS)} rows into JavaScript, nothing encoded or sent`,
        engine: `${describe(floor, 0)} ms`,
        baseline: `sqlite3 -csv ${describe(exp.sqlite.base, 0)} ms`,
        ratio: `${fmt(median(exp.sqlite.base) / median(floor), 2)}x speed (info)`,
      });
    }
    table(rows);
    for (const [name, p] of Object.entries(pages)) {
      // The aim "within 1.2x + 2 ms" as one number: engine time under 1.2 x raw + 2 ms.
      result(`db table-data page (${name})`, 'ms', p.engine, p.raw, { under: p.raw * 1.2 + 2 });
    }
    // The query pages are in the table for information: their aim (within 1.2x of the engine before
    // issue 24) is a before/after comparison of two runs, recorded in docs/performance.md.
    for (const x of exports) {
      const e = exp[x.name];
      if (!e || !x.aim) continue; // MariaDB is in the table, for information: the issue sets it no aim
      result(`db export csv speed vs ${x.label.split(' ')[0]}`, 'rows/ms', e.engine.map((ms) => ROWS / ms), e.base.map((ms) => ROWS / ms), { ratioAtLeast: 0.8 });
      result(`db export csv memory growth (${x.name})`, 'MB', Math.max(...e.growth), 100, { under: 100 });
    }
  } finally {
    await engine.close();
    await Promise.all(servers.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
