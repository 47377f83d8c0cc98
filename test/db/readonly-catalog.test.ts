/**
// needs: better-sqlite3 (the shared database helpers load it)
 * Issue 39: a read is judged by the server's own catalog. Through a chat turn (the scripted model
 * calls db_query in ask mode on a read-only connection) the statement is refused without a
 * prompt, runs no program and writes no row, while a harmless ts_stat runs; MariaDB's stored
 * functions are judged by declaration and body. The catalog the engine keeps is dropped when the
 * engine runs a write, so a function replaced through the engine is judged afresh at once. (The
 * full matrix of routes and locks is test/db/corpus.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDriver } from '../../src/capabilities/db/drivers/index.js';
import { judgePgStatement } from '../../src/capabilities/db/judge-pg.js';
import { createPgCatalog } from '../../src/capabilities/db/pg-catalog.js';
import { loadPgParser, parsePg } from '../../src/capabilities/db/pg-parser.js';
import { LIMITS } from '../../src/kernel/limits.js';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { serverCase, startAllOrNone, victimRows, type EngineCase } from './helpers.js';

let h: ChatHarness;
let pg: EngineCase;
let my: EngineCase;
const MARKER = path.join(os.tmpdir(), `engine-catalog-${process.pid}`);

before(async () => {
  const started = await startAllOrNone<ChatHarness | EngineCase>([startChat('openai-compatible'), serverCase('postgres'), serverCase('mysql')], (x) =>
    'model' in x ? x.close() : x.stop(),
  );
  [h, pg, my] = started as [ChatHarness, EngineCase, EngineCase];
});
after(async () => {
  await h?.close();
  await Promise.all([pg, my].map((c) => c?.stop()));
  assert.equal(existsSync(MARKER), false, 'no program ran');
});

/** One chat turn in ask mode whose model calls db_query once per statement; the tool answers it read, in order. */
async function turn(session: string, connection: string, statements: string[]): Promise<string[]> {
  h.model.script(...statements.map((sql) => ({ toolCalls: [{ name: 'db_query', args: { connection, sql } }] })), { text: 'Done.' });
  const seq = h.lastSeq();
  assert.equal((await h.send(session, 'Read the database.', { permissionMode: 'ask' })).status, 202);
  // A turn of several tool calls (each with its checkpoint) is slow on a loaded machine: wait for its end, however long.
  const started = await h.events.waitFor((e) => e.kind === 'run.started' && e.sessionId === session && e.seq > seq, 120_000);
  const end = await h.events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 300_000);
  assert.equal(end.kind, 'run.completed');
  assert.equal(h.events.events.filter((e) => e.kind === 'permission.requested' && e.seq > seq).length, 0, 'a refusal asks nobody');
  const results = h.events.events.filter((e) => e.kind === 'tool.result' && e.runId === end.runId && e.tool === 'db_query');
  assert.equal(results.length, statements.length);
  return results.map((e) => String(e.result));
}

describe('postgres', () => {
  it("the issue's statement through a chat turn: refused without a prompt, no program, no row; a harmless ts_stat runs", async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    await pg.admin('CREATE EXTENSION dblink');
    assert.equal((await h.t.api('PUT', '/api/db/connections/pg-ro', pg.definition())).status, 200);
    const link = `dbname=test user=postgres host=${pg.server!.dir} port=${pg.server!.port}`;
    const [program, row, harmless] = await turn('pg-chat', 'pg-ro', [
      `select * from ts_stat($$select to_tsvector('simple', t) from dblink('${link}', 'copy (select 1) to program ''id > ${MARKER}''') as x(t text)$$)`,
      `select * from ts_stat($$select to_tsvector('simple', t) from dblink('${link}', 'insert into victim values (5, ''pwned'') returning v') as x(t text)$$)`,
      `select word, ndoc from ts_stat($$select to_tsvector('simple', v) from victim$$)`,
    ]);
    assert.match(program, /db_query refused on "pg-ro": the query ts_stat\(\) runs: dblink\(\) acts outside the database/);
    assert.match(row, /db_query refused on "pg-ro"/);
    assert.match(harmless, /\| intact \| 2 \|/);
    assert.equal(existsSync(MARKER), false, 'no program ran');
    assert.deepEqual(await victimRows(pg), [{ id: 1, v: 'intact' }, { id: 2, v: 'intact' }]);
    const sent = JSON.stringify(h.model.requests.at(-1)!.body);
    assert.match(sent, /never run for a model/, 'the model read why');
  });

  it('a VOLATILE function whose body reaches outside is never run for a model, even on a writable connection (no prompt)', async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    const link = `dbname=test user=postgres host=${pg.server!.dir} port=${pg.server!.port}`;
    await pg.admin(`CREATE FUNCTION reaches_out() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM dblink_exec('${link}', 'CREATE TABLE pwned_out (x int)'); RETURN 1; END $$`);
    assert.equal((await h.t.api('PUT', '/api/db/connections/pg-writable', pg.definition({ writable: true }))).status, 200);
    const [out] = await turn('pg-out', 'pg-writable', ['SELECT reaches_out()']);
    assert.match(out, /db_query refused on "pg-writable": reaches_out\(\): dblink_exec\(\) acts outside the database .*never run for a model/);
    assert.deepEqual(await pg.admin("SELECT relname FROM pg_class WHERE relname = 'pwned_out'"), []);
  });

  it('a function replaced through the engine is judged afresh at once (the engine drops its catalog on a write)', async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    await pg.admin('CREATE FUNCTION flip() RETURNS int LANGUAGE sql STABLE AS $$ SELECT 1 $$');
    assert.equal((await h.t.api('PUT', '/api/db/connections/pg-rw', pg.definition({ writable: true }))).status, 200);
    const first = await h.t.api('POST', '/api/db/pg-ro/query', { sql: 'SELECT flip() AS f' });
    assert.equal(first.body.statements?.[0]?.rows?.[0]?.f, 1, JSON.stringify(first.body));
    const replaced = await h.t.api('POST', '/api/db/pg-rw/query', {
      sql: "CREATE OR REPLACE FUNCTION flip() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN INSERT INTO victim VALUES (20, 'pwned'); RETURN 1; END $$",
    });
    assert.equal(replaced.body.ok, true, JSON.stringify(replaced.body));
    const again = await h.t.api('POST', '/api/db/pg-ro/query', { sql: 'SELECT flip() AS f' });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'not run: the connection is read-only and flip() is VOLATILE, so not known to be free of effects');
  });

  it('an implicit cast through a function that is not harmless taints every read while it exists', async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    await pg.admin('CREATE TYPE wrapped AS (v int)');
    await pg.admin("CREATE FUNCTION wrapped_text(wrapped) RETURNS text LANGUAGE plpgsql VOLATILE AS $$ BEGIN INSERT INTO victim VALUES (21, 'pwned'); RETURN 'x'; END $$");
    await pg.admin('CREATE CAST (wrapped AS text) WITH FUNCTION wrapped_text(wrapped) AS IMPLICIT');
    // Made through the engine: the catalog it kept is dropped, so the cast is seen at once.
    assert.equal((await h.t.api('POST', '/api/db/pg-rw/query', { sql: 'CREATE TABLE wrapped_rows (w wrapped)' })).body.ok, true);
    const tainted = await h.t.api('POST', '/api/db/pg-ro/query', { sql: 'SELECT lower(w) FROM wrapped_rows' });
    assert.equal(tainted.status, 400);
    assert.match(tainted.body.error, /an implicit cast of this database: wrapped_text\(\) is VOLATILE/);
    assert.equal((await h.t.api('POST', '/api/db/pg-rw/query', { sql: 'DROP CAST (wrapped AS text)' })).body.ok, true);
    assert.equal((await h.t.api('POST', '/api/db/pg-ro/query', { sql: 'SELECT count(*) FROM wrapped_rows' })).status, 200);
  });

  it("the catalog reads get their own budget on the server, whatever the connection's shorter timeout, and only for themselves", async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    // A connection whose timeout is shorter than a catalog read may take under load (2 s; connecting is bounded by it too).
    const driver = createDriver({ id: 'pg-budget', ...(pg.definition() as { engine: 'postgres' }), writable: false, rowLimit: 10, timeoutMs: 2000 });
    try {
      const slow = 'SELECT 1 AS one FROM pg_sleep(2.5)';
      await assert.rejects(driver.select(slow, []), /statement timeout/);
      assert.deepEqual(await driver.select(slow, [], { timeoutMs: LIMITS.dbCatalogTimeoutMs }), [{ one: 1 }]);
      await assert.rejects(driver.select(slow, []), /statement timeout/, "the session keeps the connection's own timeout after");
    } finally {
      await driver.close();
    }
  });

  it('a catalog dropped while a statement is judged keeps none of that judgement (a name read before the drop, looked up after)', async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    const driver = createDriver({ id: 'pg-race', ...(pg.definition() as { engine: 'postgres' }), writable: false, rowLimit: 10, timeoutMs: 10_000 });
    // The write lands between the catalog's read of the statement's names and their judgement: the
    // engine's write path would drop the catalog then (service.ts schemaChanged).
    let reads = 0;
    let midway: (() => Promise<void>) | undefined;
    const catalog = createPgCatalog({
      ...driver,
      select: async (sql, params, options) => {
        const rows = await driver.select(sql, params, options);
        if (++reads === 2 && midway) await midway(); // the first read is the search path, the second the names
        return rows;
      },
    });
    midway = async () => {
      await pg.admin("CREATE FUNCTION late_effect() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN INSERT INTO victim VALUES (31, 'pwned'); RETURN 1; END $$");
      await pg.admin('CREATE VIEW late_view AS SELECT late_effect() AS x');
      catalog.forget();
    };
    const judge = async (sql: string) => {
      const parsed = parsePg(sql);
      assert.ok(parsed.ok);
      return judgePgStatement(parsed.statements[0].kind, parsed.statements[0].node, catalog);
    };
    try {
      await loadPgParser();
      assert.equal(await judge('SELECT x FROM late_view'), undefined, 'judged on the names read before the view existed');
      midway = undefined;
      assert.match((await judge('SELECT x FROM late_view'))?.reason ?? 'judged harmless', /late_effect\(\) is VOLATILE/);
    } finally {
      await driver.close();
    }
  });

  it('a VOLATILE built-in off the allowlist is refused (pg_sleep, on it, runs bounded by the timeout: routes.test.ts)', async (ctx) => {
    if (pg.skip) return ctx.skip(pg.skip);
    const volatile = await h.t.api('POST', '/api/db/pg-ro/query', { sql: 'SELECT pg_stat_clear_snapshot()' });
    assert.equal(volatile.status, 400);
    assert.equal(volatile.body.error, 'not run: the connection is read-only and pg_stat_clear_snapshot() is VOLATILE, so not known to be free of effects');
  });
});

describe('mariadb', () => {
  it('stored functions through a chat turn: judged by declaration and body; a harmless one runs', async (ctx) => {
    if (my.skip) return ctx.skip(my.skip);
    await my.admin("CREATE FUNCTION liar() RETURNS INT DETERMINISTIC READS SQL DATA BEGIN INSERT INTO victim VALUES (9, 'pwned'); RETURN 1; END");
    await my.admin('CREATE FUNCTION undeclared() RETURNS INT READS SQL DATA RETURN 1');
    await my.admin('CREATE FUNCTION counts() RETURNS INT DETERMINISTIC READS SQL DATA RETURN (SELECT COUNT(*) FROM victim)');
    assert.equal((await h.t.api('PUT', '/api/db/connections/my-ro', my.definition())).status, 200);
    const [liar, undeclared, counts] = await turn('my-chat', 'my-ro', ['SELECT liar()', 'SELECT undeclared()', 'SELECT counts() AS n']);
    assert.match(liar, /db_query refused on "my-ro": the connection is read-only and test\.liar\(\)'s body holds INSERT/);
    assert.match(undeclared, /test\.undeclared\(\) is not declared DETERMINISTIC/);
    assert.match(counts, /\| n \|[\s\S]*\| 2 \|/);
    assert.deepEqual(await victimRows(my), [{ id: 1, v: 'intact' }, { id: 2, v: 'intact' }]);
  });

  it('a body that selects INTO a user variable is not a read (the variable outlives the call); INTO its own variables is', async (ctx) => {
    if (my.skip) return ctx.skip(my.skip);
    await my.admin('CREATE FUNCTION keeps_count() RETURNS INT DETERMINISTIC READS SQL DATA BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM victim; SELECT n INTO @seen; RETURN n; END');
    await my.admin('CREATE FUNCTION own_count() RETURNS INT DETERMINISTIC READS SQL DATA BEGIN DECLARE n, m INT; SELECT COUNT(*), MAX(id) INTO n, m FROM victim; RETURN n + m; END');
    const kept = await h.t.api('POST', '/api/db/my-ro/query', { sql: 'SELECT keeps_count()' });
    assert.equal(kept.status, 400);
    assert.match(kept.body.error, /test\.keeps_count\(\)'s body puts a value INTO something it did not DECLARE/);
    const own = await h.t.api('POST', '/api/db/my-ro/query', { sql: 'SELECT own_count() AS n' });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(own.body.statements[0].rows, [{ n: 4 }]);
  });

  it("a body written under an sql_mode that reads quotes otherwise is not judged by the engine's reading", async (ctx) => {
    if (my.skip) return ctx.skip(my.skip);
    // Under NO_BACKSLASH_ESCAPES 'a\' is a whole string and LOAD_FILE a call; read with backslash
    // escapes, LOAD_FILE sits inside a string and the comment's quote closes the last one: a harmless read.
    await my.admin("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'; CREATE FUNCTION moded() RETURNS TEXT DETERMINISTIC NO SQL RETURN CONCAT('a\\', LOAD_FILE('/etc/hostname'), '' /* ' */)");
    const res = await h.t.api('POST', '/api/db/my-ro/query', { sql: 'SELECT moded()' });
    assert.equal(res.status, 400);
    assert.match(res.body.error, /test\.moded\(\) was created under sql_mode NO_BACKSLASH_ESCAPES/);
  });

  it('a function replaced through the engine is judged afresh at once', async (ctx) => {
    if (my.skip) return ctx.skip(my.skip);
    await my.admin('CREATE FUNCTION flip() RETURNS INT DETERMINISTIC NO SQL RETURN 1');
    assert.equal((await h.t.api('PUT', '/api/db/connections/my-rw', my.definition({ writable: true }))).status, 200);
    assert.equal((await h.t.api('POST', '/api/db/my-ro/query', { sql: 'SELECT flip() AS f' })).status, 200);
    const replaced = await h.t.api('POST', '/api/db/my-rw/query', { sql: "DROP FUNCTION flip; CREATE FUNCTION flip() RETURNS INT DETERMINISTIC NO SQL RETURN GET_LOCK('x', 0)" });
    assert.equal(replaced.body.ok, true, JSON.stringify(replaced.body));
    const again = await h.t.api('POST', '/api/db/my-ro/query', { sql: 'SELECT flip() AS f' });
    assert.equal(again.status, 400);
    assert.match(again.body.error, /test\.flip\(\): get_lock\(\) takes locks/);
  });
});
