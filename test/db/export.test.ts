/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * CSV exports on all three engines: one dialect everywhere (PostgreSQL COPY's: NULL empty, text
 * quoted only when it must be, an empty string as ""), every row of a result larger than many
 * chunks in order, and a client that leaves half-way does not spoil the connection.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sqliteCsvExtension, useSqliteCsvExtension } from '../../src/capabilities/db/drivers/sqlite-native.js';
import { engineAndCases } from './helpers.js';

const env = engineAndCases();
const ROWS = 20_000; // about 300 KB of CSV: more than one chunk on every path

const manyRows: Record<string, string> = {
  sqlite: `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ROWS}) SELECT n, 'row-' || n AS name FROM s ORDER BY n DESC`,
  postgres: `SELECT n, 'row-' || n AS name FROM generate_series(1, ${ROWS}) n ORDER BY n DESC`,
  mysql: `SELECT seq AS n, CONCAT('row-', seq) AS name FROM seq_1_to_${ROWS} ORDER BY seq DESC`,
};
const newline: Record<string, string> = { sqlite: "'line' || char(10) || 'break'", postgres: "E'line\\nbreak'", mysql: "'line\\nbreak'" };

async function exportCsv(id: string, sql: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${env.t.url}/api/db/${id}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, format: 'csv' }) });
  return { status: res.status, text: await res.text() };
}

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(engine, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    const id = `${engine}-csv`;
    const skip = () => c().skip;

    before(async () => {
      if (skip()) return;
      assert.equal((await env.t.api('PUT', `/api/db/connections/${id}`, c().definition())).status, 200);
      await c().admin('CREATE TABLE tricky (id INTEGER PRIMARY KEY, t VARCHAR(50))');
      await c().admin(`INSERT INTO tricky VALUES (1, 'plain'), (2, 'a,b'), (3, 'x"y'), (4, ${newline[engine]}), (5, ''), (6, NULL), (7, ' spaced ')`);
    });

    it('writes one CSV dialect: NULL empty, "" for an empty string, quotes only where needed', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const { status, text } = await exportCsv(id, 'SELECT id, t FROM tricky ORDER BY id');
      assert.equal(status, 200, text);
      // PostgreSQL's COPY ends lines with LF, the others with CRLF; the cells are the same.
      assert.equal(text.replace(/\r\n/g, '\n'), 'id,t\n1,plain\n2,"a,b"\n3,"x""y"\n4,"line\nbreak"\n5,""\n6,\n7, spaced \n');
    });

    it('streams every row of a result larger than many chunks, in order', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const { status, text } = await exportCsv(id, manyRows[engine]);
      assert.equal(status, 200, text.slice(0, 200));
      const lines = text.trimEnd().split(/\r?\n/);
      assert.equal(lines[0], 'n,name');
      assert.equal(lines.length, ROWS + 1);
      assert.equal(lines[1], `${ROWS},row-${ROWS}`);
      assert.equal(lines[ROWS], '1,row-1');
      for (let k = 1; k <= ROWS; k++) if (lines[k] !== `${ROWS + 1 - k},row-${ROWS + 1 - k}`) assert.fail(`line ${k} is ${lines[k]}`);
      const history = (await env.t.api('GET', `/api/db/${id}/history`)).body.history;
      assert.equal(history[0].mode, 'export');
      assert.equal(history[0].rows, ROWS);
    });

    it('survives a client that leaves half-way: the next export is whole', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const abort = new AbortController();
      const res = await fetch(`${env.t.url}/api/db/${id}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: manyRows[engine], format: 'csv' }), signal: abort.signal });
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
      const again = await exportCsv(id, manyRows[engine]);
      assert.equal(again.status, 200);
      assert.equal(again.text.trimEnd().split(/\r?\n/).length, ROWS + 1);
    });
  });
}

describe('sqlite specifics', () => {
  const c = () => env.cases.find((x) => x.engine === 'sqlite')!;

  it('writes bytes as \\x hex, numbers as SQLite does, keeps duplicate column names, and ignores a trailing comment', async () => {
    await env.t.api('PUT', '/api/db/connections/lite-csv', c().definition());
    const sql = "SELECT 1 AS a, 2 AS a, x'00ff' AS b, 1.5 AS r, 2.0 AS whole, 9007199254740993 AS big -- the last line";
    const { status, text } = await exportCsv('lite-csv', sql);
    assert.equal(status, 200, text);
    assert.equal(text, 'a,a,b,r,whole,big\r\n1,2,\\x00ff,1.5,2.0,9007199254740993\r\n');
  });

  it('writes the same bytes with the compiled CSV writer as with the SQL encoder, and uses the writer when built', async (ctx) => {
    const built = sqliteCsvExtension();
    if (!built) {
      // CI installs a compiler (.ci/run), so there the writer must have been built.
      assert.ok(!process.env.CI, 'dist/native/sqlite-csv.* was not built: npm run build compiles it with cc');
      return ctx.skip('dist/native/sqlite-csv.* is not built (npm run build needs a C compiler)');
    }
    const cells = ["'a,b'", 'NULL', "''", "'x\"y'", '3', '2.5', "x'0a'", "'line' || char(10) || 'break'", "' sp '", '-7', "'é ü'", '9223372036854775807', '1e20'];
    const wide = `SELECT ${Array.from({ length: 130 }, (_, i) => `${cells[i % cells.length]} AS c${i}`).join(', ')} FROM tricky`;
    const many = `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 30000) SELECT n, 'q"' || n, n * 0.5 FROM s`;
    const exports = async (id: string) => Promise.all([wide, many].map((sql) => exportCsv(id, sql)));
    await env.t.api('PUT', '/api/db/connections/lite-native', c().definition());
    const native = await exports('lite-native');
    // The worker thread is in this process: the library is mapped once an export has loaded it.
    if (process.platform === 'linux') assert.ok((await readFile('/proc/self/maps', 'utf8')).includes(path.basename(built)), 'the compiled writer is loaded');
    // The writer runs the SQL text it is given, so no query may reach it: not a query, not an export.
    const smuggled = "SELECT * FROM engine_csv_chunks('ATTACH ''/etc/hostname'' AS h', 10)";
    const q = await env.t.api('POST', '/api/db/lite-native/query', { sql: smuggled });
    assert.match(JSON.stringify(q.body), /no such table: engine_csv_chunks/);
    const e = await exportCsv('lite-native', smuggled);
    assert.notEqual(e.status, 200);
    assert.match(e.text, /no such table: engine_csv_chunks/);
    useSqliteCsvExtension(false);
    try {
      await env.t.api('PUT', '/api/db/connections/lite-sql', c().definition());
      const sql = await exports('lite-sql');
      for (const [i, r] of native.entries()) {
        assert.equal(r.status, 200, r.text);
        assert.equal(r.text, sql[i]!.text);
      }
      assert.match(native[0]!.text.split('\r\n')[1]!, /^"a,b",,"","x""y",3,2\.5,\\x0a,"line\nbreak", sp ,-7,é ü,9223372036854775807,1\.0e\+20,/);
      assert.equal(native[1]!.text.split('\r\n').length, 30_002, 'header, 30 000 rows, and the last CRLF');
    } finally {
      useSqliteCsvExtension(true);
    }
  });

  it('exports what a CTE cannot wrap (a PRAGMA that returns rows) through the row encoder', async () => {
    const { status, text } = await exportCsv('lite-csv', 'PRAGMA table_info(tricky)');
    assert.equal(status, 200, text);
    const lines = text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'cid,name,type,notnull,dflt_value,pk');
    assert.equal(lines.length, 3);
    assert.match(lines[1], /^0,id,INTEGER,0,,1$/);
  });
});
