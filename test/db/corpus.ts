/**
 * The read-only corpus (issues 24 and 39), shared by the readonly-corpus-*.test.ts files (one per
 * server engine and part, PostgreSQL's in two halves, so each file stays well under the runner's
 * ceiling on a loaded machine).
 * A read-only connection is read-only on the server, whatever the SQL text says: more than 80
 * statements per server engine (comment terminators \r \v \f, nested block comments, dollar
 * quoting, E'' and U& strings, version comments, escapes, multi-statements, CTEs, functions with
 * effects outside the transaction, COPY variants) and, from issue 39, what a statement reaches
 * through the server's catalog: SQL text run by ts_stat, ts_rewrite and query_to_xml (with dblink,
 * COPY ... TO PROGRAM, pg_read_file and INSERT ... RETURNING inside), user functions, views,
 * operators, domains, casts, aggregates, foreign tables, overloads and the search path; MariaDB
 * stored functions (not deterministic, MODIFIES SQL DATA, a body that writes, locks or reads a
 * file) and UDFs. Each entry runs on three routes against a real server: the person's query route,
 * db_query in ask mode through the engine's tool registry and permission gate, and the export.
 * Every entry that is not a harmless read must be refused, every harmless read must run, and after
 * every call nothing has changed on the server: the victim table is intact, no new table, no file
 * written, no program run (its marker file), no server file read (its secret never in an answer),
 * no advisory or user lock held, no setting changed.
 *
 * The "locks" part takes each lock alone: with the read-only transaction removed (a test seam) the
 * corpus still holds by the engine's judgement alone; with the classifier removed, the server's
 * read-only transaction stops every write (the entries that act outside the transaction are left
 * out there: only the engine's judgement stops those).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { readOnlyLocks } from '../../src/capabilities/db/seams.js';
import type { DbServer } from '../support/databases.js';
import { engineAndCases, type EngineCase } from './helpers.js';

/**
 * write: changes data or schema (the server's read-only transaction stops it too); outside: acts
 * outside the transaction (only the engine's judgement stops it); read: harmless, may run (or be
 * refused by a cautious rule); runs: a harmless read that must run.
 */
type Kind = 'write' | 'outside' | 'read' | 'runs';
interface Entry {
  sql: string;
  kind: Kind;
}
const W = (sql: string): Entry => ({ sql, kind: 'write' });
const O = (sql: string): Entry => ({ sql, kind: 'outside' });
const H = (sql: string): Entry => ({ sql, kind: 'read' });
const R = (sql: string): Entry => ({ sql, kind: 'runs' });

const PWNED = path.join(os.tmpdir(), `engine-corpus-${process.pid}`);
/** A server file's content that must never appear in an answer. */
const SECRET = `secret-${process.pid}-${Math.random().toString(36).slice(2)}`;

/** Issue 24's PostgreSQL corpus. */
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

/**
 * Issue 39: what a statement reaches through the server's catalog. `setup` makes the objects (as the
 * database owner) the entries use; `link` is a dblink connection string to the same server.
 */
const POSTGRES_CATALOG = (server: DbServer) => {
  const link = `dbname=test user=postgres host=${server.dir} port=${server.port}`;
  const secret = path.join(server.dir, 'secret.txt');
  const writes = (n: number) => `BEGIN INSERT INTO victim VALUES (${n}, 'pwned'); RETURN NULL; END`;
  return {
    secret,
    setup: [
      'CREATE EXTENSION dblink',
      'CREATE EXTENSION file_fdw',
      'CREATE SERVER files FOREIGN DATA WRAPPER file_fdw',
      `CREATE FOREIGN TABLE program_rows (x text) SERVER files OPTIONS (program 'id > ${PWNED}-fdw')`,
      'CREATE TABLE parent_rows (x text)',
      `CREATE FOREIGN TABLE child_rows () INHERITS (parent_rows) SERVER files OPTIONS (program 'id > ${PWNED}-child')`,
      `CREATE FUNCTION linked() RETURNS int LANGUAGE plpgsql STABLE AS $$ BEGIN PERFORM dblink_exec('${link}', 'CREATE TABLE pwned_linked (x int)'); RETURN 1; END $$`,
      `CREATE FUNCTION writes_row() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ ${writes(11)} $$`,
      'CREATE FUNCTION as_owner() RETURNS int LANGUAGE sql STABLE SECURITY DEFINER AS $$ SELECT 1 $$',
      `CREATE FUNCTION dynamic() RETURNS int LANGUAGE plpgsql STABLE AS $$ BEGIN EXECUTE 'SELECT 1'; RETURN 1; END $$`,
      'CREATE FUNCTION sql_reads(a int) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT a + count(*) FROM victim $$',
      'CREATE FUNCTION pl_reads(a int) RETURNS int LANGUAGE plpgsql STABLE AS $$ DECLARE n int := 0; BEGIN SELECT count(*) INTO n FROM victim; n := n + a; RETURN n; END $$',
      `CREATE FUNCTION sql_links() RETURNS int LANGUAGE sql STABLE AS $$ SELECT count(*)::int FROM dblink('${link}', 'SELECT 1') AS t(x int) $$`,
      'CREATE VIEW writes_view AS SELECT writes_row() AS x',
      'CREATE VIEW reads_view AS SELECT v FROM victim',
      `CREATE FUNCTION writes_eq(int, int) RETURNS bool LANGUAGE plpgsql VOLATILE AS $$ ${writes(12)} $$`,
      'CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = writes_eq)',
      `CREATE FUNCTION writes_check(int) RETURNS bool LANGUAGE plpgsql VOLATILE AS $$ ${writes(13)} $$`,
      'CREATE DOMAIN checked_int AS int CHECK (writes_check(VALUE))',
      'CREATE TYPE boxed AS (v int)',
      `CREATE FUNCTION writes_cast(boxed) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ ${writes(14)} $$`,
      'CREATE CAST (boxed AS int) WITH FUNCTION writes_cast(boxed)',
      `CREATE FUNCTION writes_attr(victim) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ ${writes(15)} $$`,
      `CREATE FUNCTION writes_step(int, int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ ${writes(16)} $$`,
      'CREATE AGGREGATE writes_agg(int) (SFUNC = writes_step, STYPE = int)',
      `CREATE FUNCTION public.upper(int) RETURNS text LANGUAGE plpgsql VOLATILE AS $$ ${writes(17)} $$`,
      'CREATE SCHEMA hidden',
      `CREATE FUNCTION hidden.lower(text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$ ${writes(18)} $$`,
    ],
    entries: [
      // The issue's statements: SQL text inside ts_stat / ts_rewrite / query_to_xml.
      O(`SELECT * FROM ts_stat($$SELECT to_tsvector('simple', t) FROM dblink('${link}', 'COPY (SELECT 1) TO PROGRAM ''id > ${PWNED}-ts-stat''') AS x(t text)$$)`),
      O(`SELECT * FROM ts_stat($$SELECT to_tsvector('simple', t) FROM dblink('${link}', 'INSERT INTO victim VALUES (7, ''pwned'') RETURNING v') AS x(t text)$$)`),
      O(`SELECT * FROM ts_stat($$SELECT to_tsvector('simple', pg_read_file('${secret}'))$$)`),
      O(`SELECT * FROM ts_stat('SELECT to_tsvector(''simple'', t) FROM dblink(''${link}'', ''SELECT pg_read_file(''''${secret}'''')'') AS x(t text)', 'a')`),
      O(`SELECT ts_rewrite('a'::tsquery, $$SELECT 'a'::tsquery, to_tsquery('simple', pg_read_file('${secret}'))$$)`),
      O(`SELECT query_to_xml($$SELECT * FROM dblink('${link}', 'COPY (SELECT 1) TO PROGRAM ''id > ${PWNED}-xml''') AS x(t text)$$, true, true, '')`),
      O(`SELECT xpath('//text()', query_to_xml($$SELECT pg_read_file('${secret}') AS x$$, true, true, ''))`),
      O(`SELECT * FROM ts_stat(concat($$SELECT to_tsvector('simple', t) FROM dblink('${link}', 'COPY (SELECT 1) TO PROGRAM ''id > ${PWNED}-concat''') AS x(t text)$$, ''))`),
      W(`SELECT * FROM ts_stat($$WITH i AS (INSERT INTO victim VALUES (8, 'pwned') RETURNING v) SELECT to_tsvector('simple', v) FROM i$$)`),
      W("SELECT query_to_xml_and_xmlschema('SELECT writes_row()', true, true, '')"),
      W("SELECT table_to_xml('writes_view', true, true, '')"),
      // Functions, views, operators, types and relations, judged by the catalog.
      O('SELECT linked()'),
      O('SELECT sql_links()'),
      O('SELECT * FROM program_rows'),
      O('SELECT count(*) FROM parent_rows'), // its inheritance child is a foreign table
      W('SELECT writes_row()'),
      W('SELECT as_owner()'),
      W('SELECT dynamic()'),
      W('SELECT * FROM writes_view'),
      W('SELECT 1 === 2'),
      W('SELECT 1::checked_int'),
      W('SELECT ROW(1)::boxed::int'),
      W('SELECT victim.writes_attr FROM victim'),
      W('SELECT writes_agg(id) FROM victim'),
      W('SELECT upper(1)'), // an overload on the search path: every candidate is judged
      W("SELECT hidden.lower('A')"),
      // Harmless reads that run: judged SQL text, user functions with harmless bodies, the volatile allowlist, the search path.
      R("SELECT * FROM ts_stat($$SELECT to_tsvector('simple', v) FROM victim$$)"),
      R("SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery')"),
      R("SELECT query_to_xml('SELECT v FROM victim ORDER BY id', true, true, '')"),
      R('SELECT sql_reads(1), pl_reads(2)'),
      R('SELECT * FROM reads_view'),
      R('SELECT random() < 2 AS r, clock_timestamp() IS NOT NULL AS c, pg_sleep(0) AS s, now() AS n'),
      R("SELECT lower('A')"), // hidden.lower is not on the search path
      R('SELECT count(*) FROM pg_stat_activity'),
    ],
  };
};

/** Issue 24's MariaDB corpus; `files` is the server's secure_file_priv folder. */
const MARIADB = (files: string): Entry[] => {
  const out = (name: string) => `${files}/${name}`;
  return [
    // The issue's example and version comments: run on new enough servers, skipped on older ones.
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

/** Issue 39 on MariaDB: stored functions, views and UDFs, judged by the server's catalog. */
const MARIADB_CATALOG = (files: string) => {
  const secret = path.join(files, 'secret.txt');
  return {
    secret,
    setup: [
      'CREATE FUNCTION not_declared() RETURNS INT READS SQL DATA RETURN 1',
      "CREATE FUNCTION liar() RETURNS INT DETERMINISTIC READS SQL DATA BEGIN INSERT INTO victim VALUES (9, 'pwned'); RETURN 1; END",
      'CREATE FUNCTION declares_writes() RETURNS INT DETERMINISTIC MODIFIES SQL DATA RETURN 1',
      "CREATE FUNCTION locker() RETURNS INT DETERMINISTIC NO SQL RETURN GET_LOCK('pwned', 0)",
      `CREATE FUNCTION reader() RETURNS TEXT DETERMINISTIC READS SQL DATA RETURN LOAD_FILE('${secret}')`,
      'CREATE FUNCTION reads_victim(a INT) RETURNS INT DETERMINISTIC READS SQL DATA BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM victim; SET n = n + a; RETURN n; END',
      'CREATE FUNCTION wraps() RETURNS INT DETERMINISTIC READS SQL DATA RETURN reads_victim(1) + liar()',
      'CREATE VIEW liar_view AS SELECT liar() AS x',
      'CREATE VIEW locker_view AS SELECT id, locker() AS x FROM victim',
      'CREATE VIEW reads_view AS SELECT reads_victim(1) AS n',
      "INSERT INTO mysql.func VALUES ('metaphon', 0, 'udf_example.so', 'function')",
    ],
    entries: [
      W('SELECT not_declared()'),
      W('SELECT test.not_declared()'),
      W('SELECT liar()'),
      W('SELECT declares_writes()'),
      O('SELECT locker()'),
      O('SELECT reader()'),
      W('SELECT wraps()'),
      O('SELECT metaphon(v) FROM victim'),
      W('SELECT * FROM liar_view'),
      O('SELECT id FROM locker_view'),
      W('SELECT no_such_function(1)'),
      R('SELECT reads_victim(1), test.reads_victim(2)'),
      R('SELECT n FROM reads_view'),
      R("SELECT CONCAT('a', UPPER(v)), JSON_OBJECT('v', v), NOW() IS NOT NULL, RAND() < 2, CAST(id AS DECIMAL(10, 2)) FROM victim"),
      R('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r'),
    ],
  };
};

const refusal = /refused|read-only|never run/;
const harmless = (e: Entry) => e.kind === 'read' || e.kind === 'runs';
let callSeq = 0;

/** Entries run this many at a time: a server round trip waits while another entry's runs. Any effect, whenever it shows, fails the run. */
const LANES = 4;
async function concurrently<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: LANES }, async () => {
    while (next < items.length) await run(items[next++]);
  }));
}

/** Connections held open for the effect checks (a new one per check costs a password handshake each time). */
async function adminSession(server: DbServer): Promise<{ query(sql: string): Promise<Record<string, unknown>[]>; close(): Promise<void> }> {
  if (server.engine === 'postgres') {
    const pool = new pg.Pool({ ...server.fields, max: LANES });
    pool.on('error', () => undefined); // an idle client the stopping server ended
    return { query: async (sql) => (await pool.query(sql)).rows, close: () => pool.end() };
  }
  const pool = mysql.createPool({ ...server.fields, connectionLimit: LANES });
  return { query: async (sql) => (await pool.query(sql))[0] as Record<string, unknown>[], close: () => pool.end() };
}

/**
 * The corpus of one server engine, in one of two parts: `routes` (every entry on the three routes
 * and the person's explain mode) or `locks` (each lock alone, and the privileged-role warning).
 * Each part is a test file of its own with its own engine and server. `share` (1 of 2 ...) takes
 * every other entry, so PostgreSQL's larger corpus spreads over more files, each well under the
 * runner's ceiling under load; every share sets up the same server objects, and the whole corpus is
 * still counted in the first test.
 */
export function corpusSuite(engine: 'postgres' | 'mysql', part: 'routes' | 'locks', share: { index: number; of: number } = { index: 1, of: 1 }) {
  const env = engineAndCases([engine]);
  const c = (): EngineCase => env.cases[0];
  const id = `${engine}-ro`;
  const files = () => (engine === 'mysql' ? path.join(c().server!.dir, 'files') : os.tmpdir());
  const catalog = () => (engine === 'postgres' ? POSTGRES_CATALOG(c().server!) : MARIADB_CATALOG(files()));
  const whole = () => [...(engine === 'postgres' ? POSTGRES : MARIADB(files())), ...catalog().entries];
  const corpus = () => whole().filter((_, k) => k % share.of === share.index - 1);
  /** Files the server must not write: ours in the temp folder (PostgreSQL runs programs there), anything but the secret in MariaDB's file folder. */
  const written = () => readdirSync(files()).filter((f) => (engine === 'mysql' ? f !== 'secret.txt' : f.startsWith(path.basename(PWNED))));

  const modelCall = async (sql: string) => {
    const run = env.t.engine.runs.start({ source: 'test' });
    try {
      return await env.t.engine.tools.call({ callId: `corpus-${++callSeq}`, name: 'db_query', args: { connection: id, sql } }, { signal: run.signal, emit: run.emit, runId: run.id, attended: true });
    } finally {
      await run.finish('completed');
    }
  };
  const exportCall = async (sql: string) => {
    const res = await fetch(`${env.t.url}/api/db/${id}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, format: 'csv' }) });
    return { status: res.status, text: await res.text() };
  };
  /** No answer may carry the secret file's content. */
  const unread = (text: string, what: string) => assert.ok(!text.includes(SECRET), `a server file was read: ${what}`);

  // What "no effect" means, checked outside the engine in one query (the victim's rows, new tables,
  // locks, a server-wide setting), the files, and one session setting through the engine.
  const setting = async () => {
    const sql = engine === 'postgres' ? "SELECT current_setting('work_mem') AS s" : 'SELECT @@SESSION.sql_mode AS s';
    const res = await env.t.api('POST', `/api/db/${id}/query`, { sql });
    return res.body.statements?.[0]?.rows?.[0]?.s;
  };
  let admin: ReturnType<typeof adminSession> | undefined;
  const server = async () => {
    admin ??= adminSession(c().server!);
    const [row] = await (await admin).query(
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
  /** After each call; `session` also asks the engine's pool for a setting (once per entry: it is a query of its own). */
  const assertNone = async (what: string, session = false) => {
    const now = await server();
    assert.equal(now.victim, '1:intact,2:intact', `victim changed after: ${what}`);
    assert.equal(now.tables, 0, `something new exists after: ${what}`);
    assert.equal(now.locks, 0, `a lock is held after: ${what}`);
    assert.equal(now.global, baseline!.global, `a server setting changed after: ${what}`);
    assert.deepEqual(written(), [], `a file was written or a program ran after: ${what}`);
    if (session) assert.equal(await setting(), baseline!.setting, `a session setting changed after: ${what}`);
  };

  /** Every entry on the three routes (and the person's explain mode); non-reads refused on each, reads run; no effect after any. */
  const holds = async (withExplain = false) => {
    await concurrently(corpus(), async (entry) => {
      const what = JSON.stringify(entry.sql);
      if (withExplain) {
        // Mode explain runs EXPLAIN of each statement on the read-only session: it may answer a plan, never an effect.
        const explained = await env.t.api('POST', `/api/db/${id}/query`, { sql: entry.sql, mode: 'explain' });
        // An EXPLAIN ANALYZE would run what it explains: refused, not left to the session's end to undo.
        if (!harmless(entry) && /^(EXPLAIN\s*\(?\s*)?ANALYZE\b/i.test(entry.sql)) assert.equal(explained.status, 400, `explain mode ran ${entry.sql}`);
        unread(JSON.stringify(explained.body), `the person's explain of ${what}`);
        await assertNone(`the person's explain of ${what}`);
      }
      const person = await env.t.api('POST', `/api/db/${id}/query`, { sql: entry.sql });
      if (!harmless(entry)) {
        assert.equal(person.status, 400, `not refused for a person: ${what}\n${JSON.stringify(person.body)}`);
        assert.match(person.body.error ?? JSON.stringify(person.body), /not run/);
      } else if (entry.kind === 'runs') assert.equal(person.body.ok, true, `a harmless read did not run: ${what}\n${JSON.stringify(person.body)}`);
      unread(JSON.stringify(person.body), `the person's ${what}`);
      await assertNone(`the person's ${what}`);
      const model = await modelCall(entry.sql);
      if (!harmless(entry)) {
        assert.equal(model.isError, true, `not refused for a model: ${what}\n${model.text}`);
        assert.match(model.text, refusal, `the refusal is a sentence: ${what}\n${model.text}`);
      } else if (entry.kind === 'runs') assert.notEqual(model.isError, true, `a harmless read did not run for a model: ${what}\n${model.text}`);
      unread(model.text, `db_query ${what}`);
      await assertNone(`db_query ${what}`);
      const exported = await exportCall(entry.sql);
      if (!harmless(entry)) assert.equal(exported.status, 400, `export not refused: ${what}`);
      else if (entry.kind === 'runs') assert.equal(exported.status, 200, `the export of a harmless read was refused: ${what}\n${exported.text}`);
      unread(exported.text, `the export of ${what}`);
      await assertNone(`the export of ${what}`, true);
    });
  };

  describe(`${engine}: the read-only corpus (${part}${share.of > 1 ? `, share ${share.index} of ${share.of}` : ''})`, () => {
    after(async () => (await admin)?.close()); // before the file's own hook stops the server
    it('has at least 80 entries of every kind, and its server objects', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const list = whole();
      assert.ok(list.length >= 80, `${list.length} entries`);
      for (const kind of ['write', 'outside', 'read', 'runs'] as const) assert.ok(list.some((e) => e.kind === kind), kind);
      assert.equal(new Set(list.map((e) => e.sql)).size, list.length, 'no entry twice');
      const { secret, setup } = catalog();
      await writeFile(secret, SECRET);
      for (const sql of setup) await c().admin(sql);
      assert.deepEqual(written(), []);
      // A server whose sql_mode reads quotes otherwise must not change how the engine's sessions read them.
      if (engine === 'mysql') await c().admin("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES,ANSI_QUOTES')");
      assert.equal((await env.t.api('PUT', `/api/db/connections/${id}`, c().definition())).status, 200);
      baseline = { setting: await setting(), global: (await server()).global };
      assert.ok(baseline.setting, 'the setting check reads a value');
    });

    if (part === 'routes') {
      it('holds on the person route, through db_query in ask mode, and through the export', async (ctx) => {
        if (c().skip) return ctx.skip(c().skip);
        await holds(true);
      });
      return;
    }

    it('still holds by the engine alone, with the read-only transaction removed', async (ctx) => {
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
        // What acts outside the transaction is left out: only the engine's judgement stops it.
        await concurrently(corpus().filter((e) => e.kind !== 'outside'), async (entry) => {
          const person = await env.t.api('POST', `/api/db/${id}/query`, { sql: entry.sql });
          if (entry.kind === 'write' && (person.status !== 200 || person.body.ok === false)) stopped++;
          await assertNone(`the person's ${JSON.stringify(entry.sql)} without the classifier`);
          await exportCall(entry.sql);
          await assertNone(`the export of ${JSON.stringify(entry.sql)} without the classifier`, true);
        });
      } finally {
        readOnlyLocks.classifier = true;
      }
      assert.ok(stopped > 40 / share.of, `the server refused ${stopped} writes`);
    });

    it("a privileged role is named in the connection test and GET /api/db; the docs' read-only role is not", async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      if (share.index !== 1) return ctx.skip('in share 1');
      const privileged = `${engine}-privileged`;
      assert.equal((await env.t.api('PUT', `/api/db/connections/${privileged}`, c().definition())).status, 200);
      const tested = await env.t.api('POST', `/api/db/connections/${privileged}/test`);
      assert.equal(tested.body.ok, true);
      assert.match(tested.body.warning, engine === 'postgres' ? /the role is a superuser: .*read-only here rests on the engine's checks alone/ : /the user has FILE and SUPER: .*read-only here rests/);
      const listed = (await env.t.api('GET', '/api/db')).body.connections.find((x: { id: string }) => x.id === privileged);
      assert.equal(listed.warning, tested.body.warning);
      const unsaved = await env.t.api('POST', '/api/db/test', c().definition());
      assert.equal(unsaved.body.warning, tested.body.warning);

      // The read-only role of docs/databases.md, made with its two statements.
      if (engine === 'postgres') {
        await c().admin("CREATE ROLE reader LOGIN PASSWORD 'reader-pw' IN ROLE pg_read_all_data");
        await c().admin('ALTER ROLE reader SET default_transaction_read_only = on');
      } else {
        await c().admin("CREATE USER 'reader'@'%' IDENTIFIED BY 'reader-pw'");
        await c().admin("GRANT SELECT, SHOW VIEW ON test.* TO 'reader'@'%'");
      }
      const reader = c().definition({ user: 'reader', password: 'reader-pw' });
      assert.equal((await env.t.api('PUT', '/api/db/connections/reader', reader)).status, 200);
      const plain = await env.t.api('POST', '/api/db/connections/reader/test');
      assert.equal(plain.body.ok, true, JSON.stringify(plain.body));
      assert.equal(plain.body.warning, undefined);
      assert.equal((await env.t.api('GET', '/api/db')).body.connections.find((x: { id: string }) => x.id === 'reader').warning, undefined);
      const read = await env.t.api('POST', '/api/db/reader/query', { sql: 'SELECT count(*) AS n FROM victim' });
      assert.equal(Number(read.body.statements[0].rows[0].n), 2, 'the role reads');
      await env.t.api('DELETE', '/api/db/connections/reader');
    });
  });
}
