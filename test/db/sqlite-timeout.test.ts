// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
/**
 * What a SQLite timeout stops, and what it must not (src/capabilities/db/drivers/sqlite.ts). A step
 * that yields no row for longer than the timeout ends with the worker terminated; but native code
 * cannot be interrupted, so the terminated worker runs on until its step returns, and only then
 * exits. That late exit must not fail a query already running on the worker that replaced it; and
 * an export whose rows lived in the stopped worker must fail, not end as if it were complete.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { createDriver } from '../../src/capabilities/db/drivers/index.js';
import type { DbDriver } from '../../src/capabilities/db/types.js';

/** One result row after a long native step (about two seconds on a quiet two-core machine, against a timeout of 50 ms): no row to check a deadline at. */
const LONG_STEP = 'SELECT count(*) AS n FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 10000000) SELECT n FROM r)';

describe('sqlite: a timeout stops its own worker, and nothing else', () => {
  let dir: string;
  let file: string;
  let driver: DbDriver;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'engine-sqlite-timeout-'));
    file = path.join(dir, 'data.db');
    const db = new Database(file);
    db.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT)');
    db.exec("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 100000) INSERT INTO big SELECT n, 'row ' || n FROM r");
    db.close();
    driver = createDriver({ id: 'timeouts', engine: 'sqlite', writable: false, rowLimit: 10, timeoutMs: 5000, file });
  });
  after(async () => {
    await driver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a query after a timeout is not failed by the stopped worker exiting late', async () => {
    await assert.rejects(driver.run([LONG_STEP], { readOnly: true, rowLimit: 1, timeoutMs: 50 }), /longer than the timeout/);
    // The same step again on a fresh worker: it starts after the first and runs as long, so the
    // first worker's exit (when its step returns) comes while this one is still running.
    const [result] = await driver.run([LONG_STEP], { readOnly: true, rowLimit: 1, timeoutMs: 60_000 });
    assert.deepEqual(result.rows, [{ n: 10000000 }]);
  });

  it('an export whose worker was stopped by another query fails instead of ending short', async () => {
    const exported = await driver.exportCsv!('SELECT id, v FROM big ORDER BY id', { timeoutMs: 60_000 });
    const chunks = exported.chunks[Symbol.asyncIterator]();
    assert.match(String((await chunks.next()).value), /^id,v\r\n/);
    assert.match(String((await chunks.next()).value), /^1,row 1\r\n/);
    await assert.rejects(driver.run([LONG_STEP], { readOnly: true, rowLimit: 1, timeoutMs: 50 }), /longer than the timeout/);
    await assert.rejects(
      (async () => {
        for (let r = await chunks.next(); !r.done; r = await chunks.next());
      })(),
      /stopped/,
    );
    assert.ok(exported.rows() < 100000, 'not every row was read');
  });
});
