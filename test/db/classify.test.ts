/** The classifier alone: PostgreSQL from its parser, MySQL/MariaDB and SQLite from the lexer; splitting, classes and reasons. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { classify } from '../../src/capabilities/db/classify.js';
import { loadPgParser, wrapVerified } from '../../src/capabilities/db/pg-parser.js';

const cls = (sql: string, engine: 'sqlite' | 'postgres' | 'mysql' = 'postgres') => classify(sql, engine).class;
const split = (sql: string, engine: 'sqlite' | 'postgres' | 'mysql' = 'postgres') => classify(sql, engine).statements.map((s) => s.sql);

before(() => loadPgParser());

describe('splitting', () => {
  it('splits where the server does', () => {
    assert.deepEqual(split("SELECT 'a;b'; SELECT \"x;y\" FROM t;  ;SELECT 3 -- ; no\n"), ["SELECT 'a;b'", 'SELECT "x;y" FROM t', 'SELECT 3 -- ; no']);
    assert.deepEqual(split('SELECT $$;$$; SELECT 2'), ['SELECT $$;$$', 'SELECT 2']);
    assert.deepEqual(split('SELECT 1 /* ; /* ; */ ; */; SELECT 2'), ['SELECT 1 /* ; /* ; */ ; */', 'SELECT 2'], 'PostgreSQL block comments nest');
    assert.deepEqual(split("SELECT 'a\\'; SELECT 2", 'mysql'), ["SELECT 'a\\'; SELECT 2"]);
    assert.deepEqual(split("SELECT 'a\\'; SELECT 2", 'postgres'), ["SELECT 'a\\'", 'SELECT 2']);
    assert.deepEqual(split('SELECT 1 # ; x\n; SELECT 2', 'mysql'), ['SELECT 1 # ; x', 'SELECT 2']);
    assert.deepEqual(split('SELECT 1 AS a -- \r; SELECT 2'), ['SELECT 1 AS a --', 'SELECT 2'], 'PostgreSQL ends -- at \\r');
    assert.deepEqual(split('SELECT 1 AS a -- \r; SELECT 2', 'mysql'), ['SELECT 1 AS a -- \r; SELECT 2'], 'MariaDB does not');
  });

  it('keeps a trigger body whole', () => {
    const sql = 'CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE b SET n = CASE WHEN 1 THEN 2 END; DELETE FROM c; END; SELECT 1';
    assert.equal(split(sql, 'sqlite').length, 2);
  });

  it('holds no statement for comments and semicolons only', () => {
    assert.deepEqual(split(' ;; -- x\n /* y */ '), []);
    assert.deepEqual(split(' ;; -- x\n /* y */ ', 'mysql'), []);
  });
});

describe('classes', () => {
  it('reads', () => {
    for (const sql of ['SELECT 1', 'with x as (select 1) select * from x', 'VALUES (1)', 'TABLE t', 'SHOW search_path', 'EXPLAIN SELECT 1', '(SELECT 1) UNION (SELECT 2)', "SELECT replace('a', 'b', 'c')", 'SELECT "update" FROM t']) {
      assert.equal(cls(sql), 'read', sql);
    }
    assert.equal(cls('DESCRIBE t', 'mysql'), 'read');
    assert.equal(cls("SELECT 'it\\'s'", 'mysql'), 'read');
    assert.equal(cls('/*!50000 SELECT 1 */', 'mysql'), 'read', 'a version comment that holds the whole statement');
    assert.equal(cls('PRAGMA table_info(t)', 'sqlite'), 'read');
    assert.equal(cls('PRAGMA main.user_version', 'sqlite'), 'read');
  });

  it('writes, with a reason', () => {
    for (const sql of ['INSERT INTO t VALUES (1)', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'SELECT * INTO n FROM t', 'EXPLAIN ANALYZE DELETE FROM t', 'SET x = 1', 'BEGIN', 'COMMIT', 'CALL p()', "SELECT set_config('a', 'b', false)", 'SELECT * FROM t FOR UPDATE', 'SELECT * FROM t FOR KEY SHARE', 'VACUUM', 'SELECT pg_advisory_lock(1)']) {
      assert.equal(cls(sql), 'write', sql);
    }
    assert.equal(cls('PRAGMA user_version = 1', 'sqlite'), 'write');
    assert.equal(cls('PRAGMA query_only(0)', 'sqlite'), 'write');
    assert.equal(cls('/*!50000 DROP TABLE t */', 'mysql'), 'write');
    assert.equal(cls('SELECT 1; /*!99999 DROP TABLE t */', 'mysql'), 'write', 'a version comment is read both ways: run or skipped');
    assert.equal(cls('SELECT GET_LOCK("a", 0)', 'mysql'), 'write');
    assert.equal(cls('SELECT SLEEP(5)', 'mysql'), 'write');
    assert.match(classify('SELECT 1; UPDATE t SET a = 1', 'postgres').reason ?? '', /UPDATE/);
    assert.match(classify('SELECT 1; UPDATE t SET a = 1', 'mysql').reason ?? '', /UPDATE/);
  });

  it('forbidden: outside the database, what does not parse, and anything unterminated', () => {
    assert.equal(cls("COPY t TO PROGRAM 'x'"), 'forbidden');
    assert.equal(cls("COPY t TO '/tmp/x'"), 'forbidden');
    assert.equal(cls('COPY t FROM STDIN'), 'forbidden');
    assert.equal(cls("SELECT pg_catalog.pg_read_file('/etc/passwd')"), 'forbidden');
    assert.equal(cls("SELECT \"dblink_exec\"('x', 'y')"), 'forbidden');
    assert.equal(cls("SELECT U&\"pg\\005fread_file\"('/etc/passwd')"), 'forbidden', 'the parser resolves U& escapes');
    assert.equal(cls("SELECT 1 AS a -- \r, dblink_exec('x', 'CREATE TABLE t') AS b\n, 2 AS c"), 'forbidden', 'issue 24: -- ends at \\r');
    assert.equal(cls("SELECT * FROM t INTO OUTFILE '/tmp/x'", 'mysql'), 'forbidden');
    assert.equal(cls("SELECT 1 /*!99999 '*/ INTO OUTFILE '/tmp/engine-x' -- ' */", 'mysql'), 'forbidden', 'issue 24: a skipped version comment ends at its first */');
    assert.equal(cls("SELECT 1 /*!99999 '*/ INTO OUTFILE 'a' -- ' */", 'mysql'), 'forbidden');
    assert.equal(cls('SELECT 1 /*! ; DROP TABLE t */', 'mysql'), 'forbidden', 'a ; inside a version comment');
    assert.equal(cls("SELECT x'\\'; DROP TABLE t; -- '", 'mysql'), 'forbidden', "X'' holds hex digits only");
    assert.equal(cls('SELECT 1\0', 'mysql'), 'forbidden');
    assert.equal(cls("ATTACH 'x.db' AS x", 'sqlite'), 'forbidden');
    assert.equal(cls("SELECT 'open"), 'forbidden');
    assert.equal(cls('SELECT 1 /* open'), 'forbidden');
    assert.equal(cls('SELECT 1 /* /* */'), 'forbidden', 'nested: the outer comment is still open');
    assert.equal(cls('SELECT $a$ open'), 'forbidden');
    assert.equal(cls('select from from'), 'forbidden');
    assert.match(classify('select from from', 'postgres').reason ?? '', /syntax error/);
    assert.equal(cls('SELECT 1; SELECT load_extension(\'x\')', 'sqlite'), 'forbidden', 'a batch takes the strictest class');
  });

  it('MySQL -- needs a space or a control character to be a comment', () => {
    assert.equal(cls('SELECT 1--1', 'mysql'), 'read');
    assert.deepEqual(split('SELECT 1 --x\n; DELETE FROM t', 'mysql').length, 2);
    assert.equal(cls('SELECT 1 --x\n; DELETE FROM t', 'mysql'), 'write');
    assert.equal(split('SELECT 1 --\x7f; DELETE FROM t', 'mysql').length, 1, 'DEL is a control character');
  });
});

describe('the export wrapper', () => {
  const copy = (sql: string) => wrapVerified('COPY (\n', sql, ') TO STDOUT WITH (FORMAT csv, HEADER)');
  it('wraps one SELECT, trailing comments included', () => {
    assert.match(copy('SELECT 1 -- x'), /^COPY \(\nSELECT 1 -- x\n\) TO STDOUT/);
  });
  it('refuses what would leave the wrapper or is not one SELECT', () => {
    for (const sql of ["SELECT 1) TO PROGRAM 'id' --", 'SELECT 1; SELECT 2', 'DELETE FROM t RETURNING *', "SELECT 1 AS a -- \r) TO PROGRAM 'id'"]) {
      assert.throws(() => copy(sql), /export/, sql);
    }
  });
});
