/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * The read-only bypass corpus (issue 18): every trick the database MCP servers have shipped, and
 * more, against real SQLite, PostgreSQL and MariaDB. Each entry goes through the model's path
 * (db_query through the registry and the real gate) and the person's path on a read-only
 * connection; afterwards the victim table is intact and nothing new exists. The second lock is
 * tested alone: writes sent straight to the driver's read-only session, past the classifier, fail
 * at the database. Grow this corpus whenever a new trick is found.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDriver } from '../../src/capabilities/db/drivers/index.js';
import type { DbDriver } from '../../src/capabilities/db/types.js';
import { engineAndCases, victimRows, type EngineCase, type EngineName } from './helpers.js';

/** `refused`: never runs for a model; `harmless`: may run (it is a read in disguise) but changes nothing. */
interface Entry {
  sql: string;
  expect: 'refused' | 'harmless';
}
const R = (sql: string): Entry => ({ sql, expect: 'refused' });
const H = (sql: string): Entry => ({ sql, expect: 'harmless' });

const PWNED = path.join(os.tmpdir(), `engine-pwned-${process.pid}`);

const COMMON: Entry[] = [
  R('DROP TABLE victim'),
  R('COMMIT; DROP TABLE victim'),
  R('ROLLBACK; DELETE FROM victim'),
  R('SELECT 1; DELETE FROM victim'),
  R('SELECT 1;DELETE FROM victim;'),
  R('/* just a comment */ DELETE FROM victim'),
  R('-- a comment\nDELETE FROM victim'),
  R('  dElEtE\tFROM victim'),
  R("UPDATE victim SET v = 'pwned'"),
  R("INSERT INTO victim VALUES (3, 'pwned')"),
  R('CREATE TABLE pwned (id INT)'),
  R('ALTER TABLE victim ADD COLUMN pwned INT'),
  R('BEGIN; DELETE FROM victim; COMMIT'),
  R("SELECT 'a'; DROP TABLE victim; SELECT 'b'"),
  R('WITH x AS (SELECT 1) DELETE FROM victim'),
  R('SELECT * FROM victim FOR UPDATE'),
  R('SAVEPOINT a; DELETE FROM victim; RELEASE SAVEPOINT a'),
  R('CREATE VIEW pwned AS SELECT 1'),
  R('CREATE INDEX pwned ON victim(v)'),
  R('DROP VIEW user_names'),
  R('SELECT 1; COMMIT'),
  R("SELECT '1"), // unterminated: the server's reading is unknowable
  R('SELECT 1 /* unterminated'),
  H("SELECT 'x'';DROP TABLE victim;--'"),
  H('SELECT 1 AS "DROP TABLE victim"'),
  H('SELECT v FROM victim -- ; DROP TABLE victim'),
];

const BY_ENGINE: Record<EngineName, Entry[]> = {
  postgres: [
    R('SET default_transaction_read_only = off; DROP TABLE victim'),
    R('SET default_transaction_read_only = off'),
    R('SET TRANSACTION READ WRITE; DELETE FROM victim'),
    R('SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE'),
    R('RESET ALL; DELETE FROM victim'),
    R("SELECT set_config('default_transaction_read_only', 'off', false); DELETE FROM victim"),
    R("SELECT pg_catalog.set_config('transaction_read_only', 'off', true)"),
    R(`COPY victim TO PROGRAM 'touch ${PWNED}'`),
    R(`COPY (SELECT 1) TO '${PWNED}'`),
    R('COPY victim FROM STDIN'),
    R("SELECT pg_read_file('/etc/passwd')"),
    R("SELECT \"pg_read_file\"('/etc/passwd')"),
    R("SELECT pg_catalog.pg_read_file('/etc/passwd')"),
    R("SELECT U&\"pg\\005fread_file\"('/etc/passwd')"),
    R("SELECT pg_ls_dir('.')"),
    R(`SELECT lo_export(lo_from_bytea(0, 'x'), '${PWNED}')`),
    R("SELECT * FROM dblink('dbname=test', 'DROP TABLE victim') AS t(x text)"),
    R("SELECT dblink_exec('dbname=test', 'DROP TABLE victim')"),
    R("SELECT query_to_xml('DELETE FROM victim RETURNING 1', true, true, '')"),
    R('DO $$ BEGIN DELETE FROM victim; END $$'),
    R('WITH d AS (DELETE FROM victim RETURNING *) SELECT * FROM d'),
    R('SELECT * INTO pwned FROM victim'),
    R('CREATE TEMP TABLE pwned AS SELECT 1'),
    R('PREPARE p AS DELETE FROM victim; EXECUTE p'),
    R('EXPLAIN ANALYZE DELETE FROM victim'),
    R('EXPLAIN (ANALYZE, COSTS OFF) UPDATE victim SET v = 1'),
    R('SELECT pg_terminate_backend(pg_backend_pid())'),
    R('SELECT pg_reload_conf()'),
    R('SELECT txid_current()'),
    R("SELECT nextval('victim_seq')"),
    R("SELECT pg_advisory_lock(1)"),
    R('LOCK TABLE victim'),
    R('SELECT * FROM victim FOR SHARE'),
    R('TRUNCATE victim'),
    R('VACUUM victim'),
    R('NOTIFY pwned'),
    R('LISTEN pwned'),
    R('DISCARD ALL'),
    R('CALL pwned()'),
    R('MERGE INTO victim USING orgs ON victim.id = orgs.id WHEN MATCHED THEN DELETE'),
    R("SELECT '\\'; DROP TABLE victim; --'"), // standard strings: '\' is whole, DROP is a statement
    R('CREATE EXTENSION dblink'),
    R("LOAD 'plpgsql'"),
    R("ALTER SYSTEM SET work_mem = '1MB'"),
    H("SELECT E'\\'; DROP TABLE victim; --'"), // an E-string: \' escapes, all one string
    H('SELECT $$; DROP TABLE victim; $$'),
    H('SELECT $tag$ $$ ; DROP TABLE victim; $$ $tag$'),
    H('SELECT 1 /* outer /* nested */ ; DROP TABLE victim; */'),
    H('SHOW transaction_read_only'),
  ],
  mysql: [
    R('/*!50000 DROP TABLE victim */'),
    R('/*! DELETE FROM victim */'),
    R('/*M!100000 DELETE FROM victim */'),
    R('SELECT 1 /*! ; DROP TABLE victim */'),
    R('SELECT 1 /*!99999 , (SELECT 1) */; DELETE FROM victim'),
    R('SET SESSION TRANSACTION READ WRITE; DELETE FROM victim'),
    R('SET autocommit = 1; COMMIT; DELETE FROM victim'),
    R('SET @@session.transaction_read_only = 0'),
    R("SELECT * FROM victim INTO OUTFILE '/tmp/engine-outfile.txt'"),
    R("SELECT v FROM victim INTO DUMPFILE '/tmp/engine-dumpfile.txt'"),
    R('SELECT v INTO @x FROM victim LIMIT 1'),
    R("SELECT LOAD_FILE('/etc/passwd')"),
    R("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE victim"),
    R("LOAD DATA INFILE '/etc/passwd' INTO TABLE victim"),
    R("REPLACE INTO victim VALUES (1, 'pwned')"),
    R('HANDLER victim OPEN'),
    R('CALL pwned()'),
    R('DO SLEEP(0)'),
    R("SELECT GET_LOCK('pwned', 0)"),
    R('SELECT * FROM victim LOCK IN SHARE MODE'),
    R('EXPLAIN ANALYZE DELETE FROM victim'),
    R('ANALYZE TABLE victim'),
    R('OPTIMIZE TABLE victim'),
    R('FLUSH TABLES'),
    R('USE mysql'),
    R("CREATE USER 'pwned'@'%'"),
    R('GRANT ALL ON *.* TO engine'),
    R('RENAME TABLE victim TO pwned'),
    R("XA START 'pwned'"),
    R('TRUNCATE victim'),
    R("INSTALL SONAME 'ha_blackhole'"),
    R("CREATE FUNCTION pwned RETURNS STRING SONAME 'pwned.so'"),
    R("SELECT 'a\\\\'; DROP TABLE victim; -- '"), // 'a\\' ends the string: DROP is a statement
    H("SELECT 'a\\'; DROP TABLE victim; -- '"), // \' escapes: all one string
    H("SELECT \"x\\\"; DROP TABLE victim; -- \""),
    H('SELECT 1 # ; DROP TABLE victim'),
    H('SELECT 1--1'),
    H('SELECT `DROP TABLE victim` FROM (SELECT 1 AS `DROP TABLE victim`) t'),
    H('SHOW TABLES'),
  ],
  sqlite: [
    R(`ATTACH DATABASE '${PWNED}.db' AS p`),
    R(`ATTACH '${PWNED}.db' AS p; CREATE TABLE p.t (x)`),
    R('DETACH main'),
    R('PRAGMA query_only = 0; DELETE FROM victim'),
    R('PRAGMA query_only(0)'),
    R('PRAGMA main.query_only = OFF'),
    R('PRAGMA writable_schema = 1'),
    R('PRAGMA journal_mode = DELETE'),
    R('PRAGMA user_version = 5'),
    R('PRAGMA wal_checkpoint(TRUNCATE)'),
    R("SELECT load_extension('/tmp/pwned.so')"),
    R(`SELECT writefile('${PWNED}', 'x')`),
    R(`VACUUM INTO '${PWNED}.db'`),
    R('VACUUM'),
    R('REINDEX'),
    R('ANALYZE'),
    R('BEGIN IMMEDIATE; DELETE FROM victim; COMMIT'),
    R("INSERT OR REPLACE INTO victim VALUES (1, 'pwned')"),
    R("REPLACE INTO victim VALUES (1, 'pwned')"),
    R("INSERT INTO victim VALUES (1, 'x') ON CONFLICT(id) DO UPDATE SET v = 'pwned'"),
    R('CREATE TRIGGER pwned AFTER INSERT ON victim BEGIN DELETE FROM victim; END'),
    R('SELECT [v] FROM victim; DROP TABLE victim'),
    R('SELECT `v` FROM victim; DELETE FROM victim'),
    H('SELECT "DROP TABLE victim"'),
    H('SELECT [DROP TABLE victim] FROM (SELECT 1 AS [DROP TABLE victim])'),
    H('PRAGMA table_info(victim)'),
    H('PRAGMA query_only'),
    H('EXPLAIN QUERY PLAN SELECT * FROM victim'),
  ],
};

const env = engineAndCases();
let callSeq = 0;

async function modelCall(sql: string, connection: string) {
  const run = env.t.engine.runs.start({ source: 'test' });
  try {
    return await env.t.engine.tools.call({ callId: `bypass-${++callSeq}`, name: 'db_query', args: { connection, sql } }, { signal: run.signal, emit: run.emit, runId: run.id, attended: true });
  } finally {
    await run.finish('completed');
  }
}

async function assertUntouched(c: EngineCase, sql: string) {
  assert.deepEqual(await victimRows(c), [{ id: 1, v: 'intact' }, { id: 2, v: 'intact' }], `victim changed after: ${sql}`);
  const tables = await c.admin(
    c.engine === 'sqlite'
      ? "SELECT name FROM sqlite_schema WHERE name LIKE 'pwned%'"
      : c.engine === 'postgres'
        ? "SELECT relname AS name FROM pg_class WHERE relname LIKE 'pwned%'"
        : "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_NAME LIKE 'pwned%'",
  );
  assert.deepEqual(tables, [], `something new exists after: ${sql}`);
  const files = readdirSync(os.tmpdir()).filter((f) => f.startsWith(path.basename(PWNED)) || f.startsWith('engine-outfile') || f.startsWith('engine-dumpfile'));
  assert.deepEqual(files, [], `a file was written after: ${sql}`);
}

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`${engine}: read-only holds`, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    const corpus = [...COMMON, ...BY_ENGINE[engine]];

    before(async () => {
      if (c().skip) return;
      // MariaDB: a server whose sql_mode reads backslashes literally must not change how the model's session lexes.
      if (engine === 'mysql') await c().admin("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')");
      assert.equal((await env.t.api('PUT', `/api/db/connections/${engine}-ro`, c().definition())).status, 200);
      assert.equal((await env.t.api('PUT', `/api/db/connections/${engine}-rw`, c().definition({ writable: true }))).status, 200);
    });

    it(`refuses the corpus through db_query on a read-only connection (${corpus.length} entries)`, async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      for (const entry of corpus) {
        const out = await modelCall(entry.sql, `${engine}-ro`);
        if (entry.expect === 'refused') {
          assert.equal(out.isError, true, `not refused: ${entry.sql}\n${out.text}`);
          assert.match(out.text, /refused|read-only|never run/, `refusal is a sentence: ${entry.sql}\n${out.text}`);
        }
        await assertUntouched(c(), entry.sql);
      }
    });

    it('refuses the corpus for a person on a read-only connection', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      for (const entry of corpus) {
        const res = await env.t.api('POST', `/api/db/${engine}-ro/query`, { sql: entry.sql });
        if (entry.expect === 'refused') assert.equal(res.status, 400, `not refused: ${entry.sql}\n${JSON.stringify(res.body)}`);
        await assertUntouched(c(), entry.sql);
      }
    });

    it('never runs what reaches outside the database for a model, even on a writable connection', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const outside = corpus.filter((e) => /pg_read_file|COPY|lo_export|dblink|query_to_xml|OUTFILE|DUMPFILE|LOAD_FILE|LOAD DATA|ATTACH|load_extension|writefile|VACUUM INTO|U&|EXTENSION|SONAME|ALTER SYSTEM|^LOAD '/i.test(e.sql));
      assert.ok(outside.length >= 3);
      for (const entry of outside) {
        const out = await modelCall(entry.sql, `${engine}-rw`);
        assert.equal(out.isError, true, `ran on a writable connection: ${entry.sql}`);
        assert.match(out.text, /never run for a model/);
        await assertUntouched(c(), entry.sql);
      }
    });

    it('the database itself refuses writes on the read-only session, past the classifier', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const conn = await env.t.engine.home.readJson<any>('db/connections.json', {});
      assert.ok(conn.connections[`${engine}-ro`]);
      const resolved = { id: 'direct', engine, writable: false, rowLimit: 10, timeoutMs: 5000, file: c().file, ...(c().server?.fields ?? {}) } as const;
      const driver: DbDriver = createDriver(resolved);
      const attempts: string[][] = [
        ['DELETE FROM victim'],
        ["UPDATE victim SET v = 'pwned'"],
        ['DROP TABLE victim'],
        ['CREATE TABLE pwned (id INT)'],
        ['COMMIT', 'DROP TABLE victim'],
        ['ROLLBACK', "INSERT INTO victim VALUES (9, 'pwned')"],
        ...(engine === 'postgres'
          ? [
              ['SET TRANSACTION READ WRITE', 'DELETE FROM victim'],
              ['SET default_transaction_read_only = off', 'DELETE FROM victim'],
              ["SELECT set_config('default_transaction_read_only', 'off', false)", 'DELETE FROM victim'],
              ['SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE', 'DELETE FROM victim'],
              ['DELETE FROM victim'], // the session setting above was rolled back with its transaction
              ['COMMIT; DROP TABLE victim'], // two statements in one extended-protocol message are refused by the server
            ]
          : engine === 'mysql'
            ? [
                ['SET SESSION TRANSACTION READ WRITE', 'DELETE FROM victim'],
                ['COMMIT; DROP TABLE victim'], // multipleStatements is off
                ['SET autocommit = 1', 'DELETE FROM victim'],
              ]
            : [
                ['PRAGMA query_only = 0', 'DELETE FROM victim'],
                [`ATTACH DATABASE '${PWNED}.db' AS p`],
                [`VACUUM INTO '${PWNED}.db'`],
                ['DELETE FROM victim; DROP TABLE victim'],
              ]),
      ];
      try {
        for (const statements of attempts) {
          await assert.rejects(driver.run(statements, { readOnly: true, rowLimit: 10, timeoutMs: 5000 }), `the database accepted: ${statements.join(' ; ')}`);
          await assertUntouched(c(), statements.join('; '));
        }
        // And the session is still read-only afterwards (nothing leaked into the pool).
        await assert.rejects(driver.run(['DELETE FROM victim'], { readOnly: true, rowLimit: 10, timeoutMs: 5000 }));
        await assertUntouched(c(), 'the last DELETE');
      } finally {
        await driver.close();
      }
    });
  });
}

after(() => {
  for (const f of [PWNED, `${PWNED}.db`]) assert.equal(existsSync(f), false, `${f} must not exist`);
});
