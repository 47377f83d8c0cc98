/**
 * Scale curves for the table browser (POST /api/db/<id>/table-data) on SQLite tables of 100k, 1M
 * and 10M rows (SCALE=0.01 for a quick look), 100 rows a page, in primary-key order:
 *
 *   page 1                              flat
 *   page 1 000 by cursor                flat: the nextCursor of page 999, read by key
 *   last page by cursor                 flat: as fast at row 10M as at row 100
 *   page 1 000 by offset (context)      steps over 99 900 rows at every size
 *   last page by offset (context)       OFFSET steps over every row before the page: linear in n,
 *                                       the cost the cursor removes
 *
 * The cursors are what the engine answers (the cursor after row n-100 comes from the page before
 * it); the table is written with one recursive INSERT, then the engine reads it over its own driver.
 */
// needs: better-sqlite3
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startEngine } from '../src/engine.js';
import { printCurve, medianMs, scaled, type Point } from './lib/curve.js';
import { loadNote } from './lib/rounds.js';
import { since } from './scale-workspace.js';

const SIZES = [1, 10, 100].map((f) => f * Math.max(1000, scaled(100_000))); // a few pages at least, at any SCALE
const LIMIT = 100;

const curves = { first: [] as Point[], cursor1000: [] as Point[], cursorLast: [] as Point[], offset1000: [] as Point[], offsetLast: [] as Point[] };
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-scale-table-'));
const engine = await startEngine({ home: path.join(dir, 'home'), port: 0, log: () => undefined, files: { watch: false } });
try {
  for (const n of SIZES) {
    const file = path.join(dir, `t${n}.db`);
    const t0 = performance.now();
    const db = new Database(file);
    db.pragma('journal_mode = OFF');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL)');
    db.prepare(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) INSERT INTO items SELECT i, 'item ' || i, i % 997 FROM c`).run(n);
    db.close();
    console.log(`fixture: ${n} rows in ${since(t0)} s`);
    const id = `t${n}`;
    const put = await fetch(`${engine.url}/api/db/connections/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ engine: 'sqlite', path: file }) });
    if (put.status !== 200) throw new Error(await put.text());
    const page = async (body: Record<string, unknown>) => {
      const res = await fetch(`${engine.url}/api/db/${id}/table-data`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ table: 'items', limit: LIMIT, ...body }) });
      const out = (await res.json()) as { rows: Array<{ id: number }>; nextCursor?: string; error?: string };
      if (res.status !== 200) throw new Error(out.error);
      return out;
    };
    const expectFirst = async (body: Record<string, unknown>, first: number) => {
      const out = await page(body);
      if (out.rows[0]?.id !== first) throw new Error(`expected the page to start at row ${first}, got ${out.rows[0]?.id}`);
    };
    const pages = Math.max(2, Math.min(1000, Math.floor(n / LIMIT)));
    let cursor: string | undefined;
    for (let p = 1; p < pages; p++) cursor = (await page(cursor ? { cursor } : {})).nextCursor;
    const cursorFar = (await page({ offset: n - 2 * LIMIT })).nextCursor;
    const runs = n >= 5_000_000 ? 3 : 5;
    // Keyed reads take about a millisecond: 15 of them, so a burst of load on the shared box moves the median less.
    curves.first.push({ size: n, ms: await medianMs(() => expectFirst({}, 1), 15) });
    curves.cursor1000.push({ size: n, ms: await medianMs(() => expectFirst({ cursor }, (pages - 1) * LIMIT + 1), 15) });
    curves.cursorLast.push({ size: n, ms: await medianMs(() => expectFirst({ cursor: cursorFar }, n - LIMIT + 1), 15) });
    curves.offset1000.push({ size: n, ms: await medianMs(() => expectFirst({ offset: (pages - 1) * LIMIT }, (pages - 1) * LIMIT + 1), runs) });
    curves.offsetLast.push({ size: n, ms: await medianMs(() => expectFirst({ offset: n - LIMIT }, n - LIMIT + 1), runs) });
    await fetch(`${engine.url}/api/db/connections/${id}`, { method: 'DELETE' });
    rmSync(file, { force: true });
  }
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(await loadNote());
printCurve({ path: 'table-data page 1', unit: 'rows', expected: 'flat', points: curves.first });
printCurve({ path: 'table-data page 1 000 by cursor', unit: 'rows', expected: 'flat', points: curves.cursor1000 });
printCurve({ path: 'table-data last page by cursor', unit: 'rows', expected: 'flat', points: curves.cursorLast });
printCurve({ path: 'table-data page 1 000 by offset', unit: 'rows', expected: 'flat', points: curves.offset1000 });
printCurve({ path: 'table-data last page by offset', unit: 'rows', expected: 'linear', points: curves.offsetLast });
const ratio = (a: Point[], b: Point[]) => (a.at(-1)!.ms / b.at(-1)!.ms).toFixed(2);
console.log(`RESULT scale table-data at ${SIZES.at(-1)} rows: page 1 000 by cursor / page 1 = ${ratio(curves.cursor1000, curves.first)}, last page by cursor / page 1 = ${ratio(curves.cursorLast, curves.first)}, last page by offset / page 1 = ${ratio(curves.offsetLast, curves.first)}`);
