/**
// needs: better-sqlite3 (the shared database helpers seed a SQLite file too)
 * Issue 24: a read-only connection is read-only on the server, whatever the SQL text says. A corpus
 * of more than 80 statements per server engine (comment terminators \r \v \f, nested block
 * comments, dollar quoting, E'' and U& strings, version comments, escapes, multi-statements, CTEs,
 * functions with effects outside the transaction, COPY variants) runs against a real PostgreSQL and
 * a real MariaDB on three routes: the person's query route, db_query in ask mode through the
 * engine's tool registry and permission gate, and the export. Every entry that is not a harmless
 * read must be refused, and after every call nothing has changed on the server: the victim table
 * is intact, no new table, no file, no advisory or user lock held, no setting changed.
 *
 * Then each lock alone: with the read-only transaction removed (a test seam) the corpus still
 * holds by classification; with the classifier removed, the server's read-only transaction stops
 * every write (the entries that act outside the transaction are left out there: only the
 * classifier stops those, which is why it refuses them by name).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readOnlyLocks } from '../../src/capabilities/db/seams.js';
import { engineAndCases, type EngineCase } from './helpers.js';

/** write: changes data or schema (the server's read-only transaction stops it too); outside: acts outside the transaction (only the classifier stops it); read: harmless, may run. */
type Kind = 'write' | 'outside' | 'read';
interface Entry {
  sql: string;
  kind: Kind;
}
const W = (sql: string): Entry => ({ sql, kind: 'write' });
const O = (sql: string): Entry => ({ sql, kind: 'outside' });
const H = (sql: string): Entry => ({ sql, kind: 'read' });

const PWNED = path.join(os.tmpdir(), `engine-corpus-${process.pid}`);

const POSTGRES: Entry[] = [
  // Comment terminators: -- ends at \n and \r, not at \v or \f (PostgreSQL 15 reads \v as no space at all).
  O("SELECT 1 AS a -- \r, dblink_exec('dbname=postgres', 'CREATE TABLE pwned_dbl (x int)') AS b\n, 2 AS c"),
  O('SELECT 1 AS a -- \r, pg_advisory_lock(24) AS b\n, 2 AS c'),
  O("SELECT 1 AS a -- \r, pg_read_file('/etc/hostname') AS b\n, 2 AS c"),
  W("SELECT 1 AS a -- \r, set_config('work_mem', '77MB', false) AS b\n, 2 AS c"),
  W('SELECT 1 AS a -- \r; DELETE FROM victim'),
  W('SELECT 1 AS a --\r; DROP TABLE victim'),
  W('SELECT 1 AS a -- x\r\n; DROP TABLE victim'),
  H('SELECT 1 AS a -- \v; DROP TABLE victim'),
  H('SELECT 1 AS a -- \f; DROP TABLE victim'),
  W('SELECT 1 AS a \v; DROP TABLE victim'),
  W('SELECT 1 AS a \f; DROP TABLE victim'),
  W('SELECT 1 AS a\r;DELETE FROM victim'),
  // Nested block comments.
  H('SELECT 1 AS a /* /* */ ; DROP TABLE victim; -- */'),
  W('SELECT 1 AS a /* /* */ */; DROP TABLE victim'),
  W('SELECT 1 AS a /* /* */; DROP TABLE victim'),
  O("SELECT 1 AS a /* /* */ , pg_read_file('/etc/hostname') -- */ */ , pg_advisory_lock(25)"),
  W('/* a */ /* b /* c */ d */ DELETE FROM victim'),
  W("SELECT 1 AS a /* x */; /* /* */ */ UPDATE victim SET v = 'pwned'"),
  // Dollar quoting.
  H('SELECT $$ ; DROP TABLE victim; $$ AS a'),
  W('SELECT $a$ $$ ; $a$ AS a; DROP TABLE victim'),
  W('SELECT $a$x$a$ AS a; DELETE FROM victim'),
  W('SELECT $_$;$_$ AS a, $b$ $a$ ; $b$ AS b; CREATE TABLE pwned_dollar (x int)'),
  W('DO $$ BEGIN DELETE FROM victim; END $$'),
  O('DO $x$ BEGIN PERFORM pg_advisory_lock(26); END $x$'),
  W("DO LANGUAGE plpgsql $$ BEGIN EXECUTE 'DROP TABLE victim'; END $$"),
  // E'' strings and standard strings.
  H("SELECT E'\\'; DROP TABLE victim; --' AS a"),
  W("SELECT E'a\\\\'; DROP TABLE victim; --' AS a"),
  W("SELECT 'a\\'; DROP TABLE victim; --' AS a"),
  H("SELECT e'\\x27; DELETE FROM victim; --' AS a"),
  W("SELECT E'\\047'; DELETE FROM victim; --'"),
  H("SELECT 'x'';DROP TABLE victim;--' AS a"),
  // Unicode escapes.
  O("SELECT U&\"pg\\005fread_file\"('/etc/hostname')"),
  O("SELECT U&\"dblink\\005fexec\"('dbname=postgres', 'DROP TABLE victim')"),
  O("SELECT U&\"!0070g_advisory_lock\" UESCAPE '!' (27)"),
  W("SELECT U&'\\0027'; DELETE FROM victim; --'"),
  W('SELECT * FROM U&"victim"; DELETE FROM U&"\\0076ictim"'),
  W("SELECT \"pg_catalog\".\"set_config\"('work_mem', '78MB', false)"),
  O('SELECT pg_catalog . pg_advisory_lock (28)'),
  O('SELECT "PG_ADVISORY_LOCK"(29)'), // a quoted name keeps its case: no such function, refused all the same
  // Several statements, transaction control.
  W('SELECT 1; DELETE FROM victim'),
  W('SELECT 1;;; DROP TABLE victim;;'),
  W('COMMIT; DROP TABLE victim'),
  W('ROLLBACK; CREATE TABLE pwned_a (x int)'),
  W('END; DROP TABLE victim'),
  W('ABORT; DROP TABLE victim'),
  W('BEGIN READ WRITE; DELETE FROM victim; COMMIT'),
  W('COMMIT AND CHAIN; DELETE FROM victim'),
  W('SET TRANSACTION READ WRITE; DELETE FROM victim'),
  W('SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE FROM victim'),
  W('RESET ALL; DROP TABLE victim'),
  W('SET default_transaction_read_only = off; COMMIT; DROP TABLE victim'),
  W("SELECT 1; SET work_mem = '79MB'"),
  W('PREPARE p AS DELETE FROM victim; EXECUTE p'),
  W('DECLARE c CURSOR FOR SELECT 1; DELETE FROM victim'),
  W('SELECT 1 UNION SELECT 2; DELETE FROM victim'),
  // Data-modifying CTEs, EXPLAIN ANALYZE, SELECT INTO, row locks.
  W('WITH d AS (DELETE FROM victim RETURNING *) SELECT * FROM d'),
  W("WITH u AS (UPDATE victim SET v = 'pwned' RETURNING *) SELECT count(*) FROM u"),
  W("WITH i AS (INSERT INTO victim VALUES (3, 'pwned') RETURNING *) SELECT 1"),
  W('WITH a AS (SELECT 1), b AS (DELETE FROM victim RETURNING 1) SELECT * FROM a'),
  W('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2), d AS (DELETE FROM victim RETURNING 1) SELECT * FROM r'),
  O('WITH a AS MATERIALIZED (SELECT pg_advisory_lock(30)) SELECT * FROM a'),
  W('EXPLAIN ANALYZE WITH d AS (DELETE FROM victim RETURNING 1) SELECT 1'),
  W('EXPLAIN (ANALYZE) DELETE FROM victim'),
  W("EXPLAIN (ANALYZE, FORMAT JSON) UPDATE victim SET v = 'pwned'"),
  O('EXPLAIN ANALYZE SELECT pg_advisory_lock(31)'),
  W('SELECT * INTO pwned_into FROM victim'),
  W('SELECT * INTO TEMP pwned_tmp FROM victim'),
  W('CREATE TABLE pwned_ctas AS SELECT 1 AS x'),
  W('SELECT * FROM victim FOR UPDATE'),
  W('SELECT * FROM victim FOR NO KEY UPDATE NOWAIT'),
  W('SELECT * FROM victim FOR SHARE SKIP LOCKED'),
  W('SELECT * FROM (SELECT * FROM victim FOR UPDATE) s'),
  // Functions with effects outside the rows they read, wherever they stand.
  O('SELECT pg_advisory_lock(32)'),
  O('SELECT pg_try_advisory_lock(33)'),
  O('SELECT pg_advisory_lock_shared(34)'),
  O('SELECT * FROM generate_series(1, 1) g, LATERAL (SELECT pg_advisory_lock(35)) l'),
  O('SELECT (SELECT pg_advisory_lock(36))'),
  O("SELECT coalesce(NULL, pg_catalog.pg_advisory_lock(37)::text)"),
  O('VALUES (pg_advisory_lock(38))'),
  O('SELECT 1 WHERE EXISTS (SELECT pg_advisory_lock(39))'),
  W("SELECT set_config('work_mem', '80MB', false)"),
  W("SELECT set_config('default_transaction_read_only', 'off', false); DELETE FROM victim"),
  W("SELECT pg_notify('engine', 'x')"),
  W("SELECT query_to_xml('DELETE FROM victim RETURNING 1', true, true, '')"),
  O("SELECT pg_read_file('/etc/hostname')"),
  O("SELECT pg_read_binary_file('/etc/hostname')"),
  O("SELECT pg_ls_dir('.')"),
  O("SELECT pg_stat_file('postgresql.conf')"),
  O("SELECT lo_import('/etc/hostname')"),
  O(`SELECT lo_export(lo_from_bytea(0, 'x'), '${PWNED}-lo')`),
  O("SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(x int)"),
  O('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE false'),
  O('SELECT pg_cancel_backend(0)'),
  O('SELECT pg_reload_conf()'),
  W("SELECT nextval('pwned_seq')"),
  // COPY: every direction and target, and the export wrapper's escapes.
  O('COPY victim TO STDOUT'),
  O('COPY victim FROM STDIN'),
  O(`COPY victim TO '${PWNED}-copy'`),
  O(`COPY (SELECT 1) TO PROGRAM 'touch ${PWNED}-prog'`),
  O(`copy victim to program 'touch ${PWNED}-lower'`),
  O("COPY victim FROM PROGRAM 'echo 9,pwned'"),
  O("COPY victim FROM '/etc/hostname'"),
  O(`SELECT 1 AS a -- \r) TO PROGRAM 'touch ${PWNED}-issue' --`),
  O(`SELECT 1) TO PROGRAM 'touch ${PWNED}-paren' --`),
  O(`SELECT 1 /* */) TO '${PWNED}-c2' -- `),
  H(`SELECT 1 AS a /* /* */ ) TO PROGRAM 'touch ${PWNED}-nest' -- */`), // all one nested comment: SELECT 1
  // Statements that load code or reach the server's configuration.
  O("LOAD 'plpgsql'"),
  O("ALTER SYSTEM SET work_mem = '81MB'"),
  W('CREATE EXTENSION IF NOT EXISTS dblink'),
  W('LOCK TABLE victim'),
  W('TRUNCATE victim'),
  W('VACUUM victim'),
  W('LISTEN engine'),
  W('CALL pwned_proc()'),
  W('GRANT ALL ON victim TO PUBLIC'),
  // Harmless reads that look otherwise.
  H("SELECT 'DROP TABLE victim' AS a"),
  H('SELECT v AS "DROP TABLE victim" FROM victim'),
  H('SELECT $$DROP TABLE victim$$ AS a'),
  H('SELECT v FROM victim /* ; DROP TABLE victim */'),
  H('SHOW work_mem'),
  H('EXPLAIN SELECT * FROM victim'),
  H('TABLE victim'),
];

const mysql = (files: string): Entry[] => {
  const out = (name: string) => `${files}/${name}`;
  return [
    // The example and version comments: run on new enough servers, skipped on older ones.
    O(`SELECT 1 /*!99999 '*/ INTO OUTFILE '${out('issue')}' -- ' */`),
    O(`SELECT 1 /*M!999999 '*/ INTO OUTFILE '${out('m6')}' -- ' */`),
    O(`SELECT 1 /*!99999 /* '*/ */ INTO DUMPFILE '${out('nested')}' -- ' */`),
    O(`SELECT 1 /*!50000 INTO OUTFILE '${out('v5')}' */`),
    O(`SELECT 1 /*M!100000 INTO OUTFILE '${out('m10')}' */`),
    O(`SELECT 1 /*! INTO OUTFILE '${out('bare')}' */`),
    H(`SELECT 1 /*m!100000 INTO OUTFILE '${out('lower')}' */`),
    W('SELECT 1; /*!99999 DROP TABLE victim */'),
    W('/*!50000 DROP TABLE victim */'),
    W('SELECT 1 /*! ; DROP TABLE victim */'),
    W("SELECT 1 /*!50000 , '*/' */ ; DELETE FROM victim"),
    W('SELECT 1 /*!50000 /*!50000 */ */; DELETE FROM victim'),
    W('SELECT 1 /*!5070 */; DELETE FROM victim'),
    W('/*!99999 SELECT 1; */ DELETE FROM victim'),
    H('SELECT 1 /*!99999 ; DROP TABLE victim */'),
    // Comment terminators: -- needs a space or control character after it; -- and # end at \n only.
    W('SELECT 1 --x\n; DELETE FROM victim'),
    H('SELECT 1 -- \r; DROP TABLE victim'),
    H('SELECT 1 # \r; DROP TABLE victim'),
    H('SELECT 1 --\v; DROP TABLE victim'),
    H('SELECT 1 --\f; DROP TABLE victim'),
    H('SELECT 1 --\x7f; DROP TABLE victim'),
    H('SELECT 1 --\x01; DROP TABLE victim'),
    W('SELECT 1 --\n; DROP TABLE victim'),
    W('SELECT 1 # x\n; DROP TABLE victim'),
    W('SELECT 1-- x\n;DELETE FROM victim'),
    H('SELECT 1--1'),
    W('SELECT 1 /* ; */ ; DROP TABLE victim'),
    W('SELECT 1 /* /* */ ; DROP TABLE victim; -- */'),
    W('SELECT 1 /* unterminated; DROP TABLE victim'),
    W('SELECT 1 \0; DROP TABLE victim'),
    W('SELECT 1 # \0\n; DROP TABLE victim'),
    // Strings: backslash and doubled-quote escapes, double-quoted strings, hex literals.
    W("SELECT 'a\\\\'; DROP TABLE victim; -- '"),
    H("SELECT 'a\\'; DROP TABLE victim; -- '"),
    H(`SELECT 'a\\' INTO OUTFILE '${out('sqlmode')}' -- '`), // one string, as the pinned sql_mode reads it (NO_BACKSLASH_ESCAPES would write a file)
    H("SELECT 'a''; DROP TABLE victim; -- '"),
    H('SELECT "x\\"; DROP TABLE victim; -- "'),
    H('SELECT "x""; DROP TABLE victim; -- "'),
    W("SELECT x'\\'; DROP TABLE victim; -- '"),
    W("SELECT X'41'; DELETE FROM victim"),
    W("SELECT b'1'; DELETE FROM victim"),
    W("SELECT _utf8mb4'a\\\\'; DELETE FROM victim; -- '"),
    H("SELECT N'a\\'; DELETE FROM victim; -- '"),
    H('SELECT `DROP TABLE victim` FROM (SELECT 1 AS `DROP TABLE victim`) t'),
    W('SELECT `a``b`; DELETE FROM victim'),
    W("SELECT 'a' 'b'; DELETE FROM victim"),
    // Several statements and transaction control.
    W('SELECT 1; DELETE FROM victim'),
    W('SELECT 1;;; DROP TABLE victim;;'),
    W('COMMIT; DROP TABLE victim'),
    W('ROLLBACK; DELETE FROM victim'),
    W('BEGIN; DELETE FROM victim; COMMIT'),
    W('START TRANSACTION READ WRITE; DELETE FROM victim; COMMIT'),
    W('SET SESSION TRANSACTION READ WRITE; START TRANSACTION; DELETE FROM victim; COMMIT'),
    W('SET autocommit = 1; DELETE FROM victim'),
    W('SET @@SESSION.transaction_read_only = 0; DELETE FROM victim'),
    W("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'"),
    W("SET sql_mode = 'ANSI_QUOTES'; SELECT \"a\""),
    W('XA START 0x01; DELETE FROM victim; XA END 0x01; XA PREPARE 0x01; XA COMMIT 0x01'),
    W('SAVEPOINT a; DELETE FROM victim; RELEASE SAVEPOINT a'),
    W("PREPARE s FROM 'DELETE FROM victim'; EXECUTE s"),
    W("HANDLER victim OPEN; HANDLER victim READ FIRST"),
    // CTEs and statements inside reads.
    W('WITH x AS (SELECT 1) DELETE FROM victim'),
    W('WITH x AS (SELECT 1) SELECT * FROM x; DROP TABLE victim'),
    W('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 2) SELECT * FROM r; DELETE FROM victim'),
    W('SELECT * FROM victim FOR UPDATE'),
    W('SELECT * FROM victim LOCK IN SHARE MODE'),
    W('SELECT 1 INTO @pwned'),
    W('SELECT v FROM victim LIMIT 1 INTO @pwned'),
    W('CREATE TABLE pwned_a AS SELECT 1 AS x'),
    W('CREATE TEMPORARY TABLE pwned_t (x INT)'),
    W('CREATE VIEW pwned_v AS SELECT 1'),
    W('ANALYZE SELECT * FROM victim'),
    W('EXPLAIN DELETE FROM victim'),
    // Functions and statements that act outside the transaction.
    O("SELECT GET_LOCK('pwned', 0)"),
    O("SELECT get_lock/**/('pwned', 0)"),
    O("SELECT `get_lock`('pwned', 0)"),
    O("SELECT GET_LOCK ('pwned', 0)"),
    O("SELECT 1 /*! , GET_LOCK('pwned', 0) */"),
    O("ANALYZE SELECT GET_LOCK('pwned', 0)"),
    O("EXPLAIN ANALYZE SELECT GET_LOCK('pwned', 0)"),
    W('SELECT SLEEP(0)'),
    W('SELECT BENCHMARK(1, 1)'),
    W('DO SLEEP(0)'),
    O("SELECT LOAD_FILE('/etc/hostname')"),
    O("SELECT load_file ('/etc/hostname')"),
    O(`SELECT * FROM victim INTO OUTFILE '${out('outfile')}'`),
    O(`SELECT v FROM victim LIMIT 1 INTO DUMPFILE '${out('dumpfile')}'`),
    O(`SELECT * FROM victim INTO/**/OUTFILE '${out('comment')}'`),
    O(`SELECT * FROM victim INTO\nOUTFILE '${out('newline')}'`),
    O(`LOAD DATA INFILE '${out('none')}' INTO TABLE victim`),
    O("LOAD XML INFILE '/etc/hostname' INTO TABLE victim"),
    O("SELECT sys_exec('touch /tmp/pwned')"),
    O('SET GLOBAL max_connections = 77'),
    O('SET @@GLOBAL.max_connections = 78'),
    O('KILL QUERY 999999'),
    O('SHUTDOWN'),
    O("INSTALL SONAME 'ha_blackhole'"),
    O("CREATE FUNCTION pwned RETURNS STRING SONAME 'pwned.so'"),
    O("CREATE SERVER pwned FOREIGN DATA WRAPPER mysql OPTIONS (HOST '127.0.0.1')"),
    W('FLUSH TABLES'),
    W('TRUNCATE victim'),
    W('DROP TABLE victim'),
    W("UPDATE victim SET v = 'pwned'"),
    W("REPLACE INTO victim VALUES (1, 'pwned')"),
    O("GRANT ALL ON *.* TO 'pwned'@'%' IDENTIFIED BY 'x'"), // account tables are not transactional: left out without the classifier
    // Harmless reads that look otherwise.
    H("SELECT 'DROP TABLE victim'"),
    H('SELECT v FROM victim # ; DROP TABLE victim'),
    H('SHOW TABLES'),
    H('DESCRIBE victim'),
  ];
};

const env = engineAndCases();
let callSeq = 0;

async function modelCall(sql: string, connection: string) {
  const run = env.t.engine.runs.start({ source: 'test' });
  try {
    return await env.t.engine.tools.call({ callId: `corpus-${++callSeq}`, name: 'db_query', args: { connection, sql } }, { signal: run.signal, emit: run.emit, runId: run.id, attended: true });
  } finally {
    await run.finish('completed');
  }
}

async function exportCall(id: string, sql: string) {
  const res = await fetch(`${env.t.url}/api/db/${id}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, format: 'csv' }) });
  await res.text();
  return res.status;
}

/**
 * What "no effect" means on each server, checked outside the engine in one query (the victim's
 * rows, new tables, locks, a server-wide setting), the files, and one session setting through it.
 */
function effects(engine: 'postgres' | 'mysql', c: () => EngineCase) {
  const files = () => (engine === 'mysql' ? path.join(c().server!.dir, 'files') : os.tmpdir());
  const ours = (f: string) => engine === 'mysql' || f.startsWith(path.basename(PWNED));
  const setting = async () => {
    const sql = engine === 'postgres' ? "SELECT current_setting('work_mem') AS s" : 'SELECT @@SESSION.sql_mode AS s';
    const res = await env.t.api('POST', `/api/db/${engine}-ro/query`, { sql });
    return res.body.statements?.[0]?.rows?.[0]?.s;
  };
  const server = async () => {
    const [row] = await c().admin(
      engine === 'postgres'
        ? `SELECT (SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM victim) AS victim,
                  (SELECT count(*)::int FROM pg_class WHERE relname LIKE 'pwned%') AS tables,
                  (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory') AS locks,
                  (SELECT count(*)::int FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf') AS global`
        : `SELECT (SELECT GROUP_CONCAT(CONCAT(id, ':', v) ORDER BY id) FROM victim) AS victim,
                  (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME LIKE 'pwned%') AS tables,
                  1 - IS_FREE_LOCK('pwned') AS locks, @@GLOBAL.max_connections AS global`,
    );
    return { victim: String(row.victim), tables: Number(row.tables), locks: Number(row.locks), global: String(row.global) };
  };
  let baseline: { setting: unknown; global: string } | undefined;
  return {
    files,
    async record() {
      baseline = { setting: await setting(), global: (await server()).global };
      assert.ok(baseline.setting, 'the setting check reads a value');
    },
    async assertNone(what: string) {
      const now = await server();
      assert.equal(now.victim, '1:intact,2:intact', `victim changed after: ${what}`);
      assert.equal(now.tables, 0, `something new exists after: ${what}`);
      assert.equal(now.locks, 0, `a lock is held after: ${what}`);
      assert.equal(now.global, baseline!.global, `a server setting changed after: ${what}`);
      assert.deepEqual(readdirSync(files()).filter(ours), [], `a file was written after: ${what}`);
      assert.equal(await setting(), baseline!.setting, `a session setting changed after: ${what}`);
    },
  };
}

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`${engine}: the issue 24 corpus`, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    const fx = effects(engine, c);
    const corpus = () => (engine === 'postgres' ? POSTGRES : mysql(fx.files()));
    const refusal = /refused|read-only|never run/;

    /** Every entry on the three routes (and the person's explain mode); non-reads refused on each; no effect after any. */
    const holds = async (withExplain = false) => {
      for (const entry of corpus()) {
        if (withExplain) {
          // Mode explain runs EXPLAIN of each statement on the read-only session: it may answer a plan, never an effect.
          const explained = await env.t.api('POST', `/api/db/${engine}-ro/query`, { sql: entry.sql, mode: 'explain' });
          // An EXPLAIN ANALYZE would run what it explains: refused, not left to the session's end to undo.
          if (entry.kind !== 'read' && /^(EXPLAIN\s*\(?\s*)?ANALYZE\b/i.test(entry.sql)) assert.equal(explained.status, 400, `explain mode ran ${entry.sql}`);
          await fx.assertNone(`the person's explain of ${JSON.stringify(entry.sql)}`);
        }
        const person = await env.t.api('POST', `/api/db/${engine}-ro/query`, { sql: entry.sql });
        if (entry.kind !== 'read') {
          assert.equal(person.status, 400, `not refused for a person: ${JSON.stringify(entry.sql)}\n${JSON.stringify(person.body)}`);
          assert.match(person.body.error ?? person.body.message ?? JSON.stringify(person.body), /not run/);
        }
        await fx.assertNone(`the person's ${JSON.stringify(entry.sql)}`);
        const model = await modelCall(entry.sql, `${engine}-ro`);
        if (entry.kind !== 'read') {
          assert.equal(model.isError, true, `not refused for a model: ${JSON.stringify(entry.sql)}\n${model.text}`);
          assert.match(model.text, refusal, `the refusal is a sentence: ${JSON.stringify(entry.sql)}\n${model.text}`);
        }
        await fx.assertNone(`db_query ${JSON.stringify(entry.sql)}`);
        const exported = await exportCall(`${engine}-ro`, entry.sql);
        if (entry.kind !== 'read') assert.equal(exported, 400, `export not refused: ${JSON.stringify(entry.sql)}`);
        await fx.assertNone(`the export of ${JSON.stringify(entry.sql)}`);
      }
    };

    it('has at least 80 entries of every kind', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const list = corpus();
      assert.ok(list.length >= 80, `${list.length} entries`);
      for (const kind of ['write', 'outside', 'read'] as const) assert.ok(list.some((e) => e.kind === kind), kind);
      assert.equal(new Set(list.map((e) => e.sql)).size, list.length, 'no entry twice');
      assert.equal(readdirSync(fx.files()).filter((f) => engine === 'mysql' || f.startsWith(path.basename(PWNED))).length, 0);
      // A server whose sql_mode reads quotes otherwise must not change how the engine's sessions read them.
      if (engine === 'mysql') await c().admin("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES,ANSI_QUOTES')");
      assert.equal((await env.t.api('PUT', `/api/db/connections/${engine}-ro`, c().definition())).status, 200);
      await fx.record();
    });

    it('holds on the person route, through db_query in ask mode, and through the export', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      await holds(true);
    });

    it('still holds by classification alone, with the read-only transaction removed', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      readOnlyLocks.serverTransaction = false;
      try {
        await holds();
      } finally {
        readOnlyLocks.serverTransaction = true;
      }
    });

    it('the read-only transaction alone stops every write, with the classifier removed', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      readOnlyLocks.classifier = false;
      let stopped = 0;
      try {
        // What acts outside the transaction is left out: only the classifier stops it, by name.
        for (const entry of corpus().filter((e) => e.kind !== 'outside')) {
          const person = await env.t.api('POST', `/api/db/${engine}-ro/query`, { sql: entry.sql });
          if (entry.kind === 'write' && (person.status !== 200 || person.body.ok === false)) stopped++;
          await fx.assertNone(`the person's ${JSON.stringify(entry.sql)} without the classifier`);
          await exportCall(`${engine}-ro`, entry.sql);
          await fx.assertNone(`the export of ${JSON.stringify(entry.sql)} without the classifier`);
        }
      } finally {
        readOnlyLocks.classifier = true;
      }
      assert.ok(stopped > 40, `the server refused ${stopped} writes`);
    });
  });
}

for (const engine of ['postgres', 'mysql'] as const) {
  it(`${engine}: a privileged role is named in the connection test and GET /api/db; the docs' read-only role is not`, async (ctx) => {
    const c = env.cases.find((x) => x.engine === engine)!;
    if (c.skip) return ctx.skip(c.skip);
    const id = `${engine}-privileged`;
    assert.equal((await env.t.api('PUT', `/api/db/connections/${id}`, c.definition())).status, 200);
    const tested = await env.t.api('POST', `/api/db/connections/${id}/test`);
    assert.equal(tested.body.ok, true);
    assert.match(tested.body.warning, engine === 'postgres' ? /the role is a superuser: .*read-only here rests on the engine's checks alone/ : /the user has FILE and SUPER: .*read-only here rests/);
    const listed = (await env.t.api('GET', '/api/db')).body.connections.find((x: { id: string }) => x.id === id);
    assert.equal(listed.warning, tested.body.warning);
    const unsaved = await env.t.api('POST', '/api/db/test', c.definition());
    assert.equal(unsaved.body.warning, tested.body.warning);

    // The read-only role of docs/databases.md, made with its two statements.
    if (engine === 'postgres') {
      await c.admin("CREATE ROLE reader LOGIN PASSWORD 'reader-pw' IN ROLE pg_read_all_data");
      await c.admin('ALTER ROLE reader SET default_transaction_read_only = on');
    } else {
      await c.admin("CREATE USER 'reader'@'%' IDENTIFIED BY 'reader-pw'");
      await c.admin("GRANT SELECT, SHOW VIEW ON test.* TO 'reader'@'%'");
    }
    const reader = c.definition({ user: 'reader', password: 'reader-pw' });
    assert.equal((await env.t.api('PUT', '/api/db/connections/reader', reader)).status, 200);
    const plain = await env.t.api('POST', '/api/db/connections/reader/test');
    assert.equal(plain.body.ok, true, JSON.stringify(plain.body));
    assert.equal(plain.body.warning, undefined);
    assert.equal((await env.t.api('GET', '/api/db')).body.connections.find((x: { id: string }) => x.id === 'reader').warning, undefined);
    const read = await env.t.api('POST', '/api/db/reader/query', { sql: 'SELECT count(*) AS n FROM victim' });
    assert.equal(Number(read.body.statements[0].rows[0].n), 2, 'the role reads');
    await env.t.api('DELETE', '/api/db/connections/reader');
  });
}

after(() => {
  for (const f of readdirSync(os.tmpdir()).filter((x) => x.startsWith(path.basename(PWNED)))) assert.fail(`${f} was written`);
});
