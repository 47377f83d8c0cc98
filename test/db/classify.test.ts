/** The lexer and the classifier alone: splitting, classes and the reasons given. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '../../src/capabilities/db/classify.js';

const cls = (sql: string, engine: 'sqlite' | 'postgres' | 'mysql' = 'postgres') => classify(sql, engine).class;
const split = (sql: string, engine: 'sqlite' | 'postgres' | 'mysql' = 'postgres') => classify(sql, engine).statements.map((s) => s.sql);

describe('splitting', () => {
  it('splits on top-level semicolons only', () => {
    assert.deepEqual(split("SELECT 'a;b'; SELECT \"x;y\" FROM t;  ;SELECT 3 -- ; no\n"), ["SELECT 'a;b'", 'SELECT "x;y" FROM t', 'SELECT 3']);
    assert.deepEqual(split('SELECT $$;$$; SELECT 2'), ['SELECT $$;$$', 'SELECT 2']);
    assert.deepEqual(split('SELECT 1 /* ; /* ; */ ; */; SELECT 2'), ['SELECT 1 /* ; /* ; */ ; */', 'SELECT 2']);
    assert.deepEqual(split("SELECT 'a\\'; SELECT 2", 'mysql'), ["SELECT 'a\\'; SELECT 2"]);
    assert.deepEqual(split("SELECT 'a\\'; SELECT 2", 'postgres'), ["SELECT 'a\\'", 'SELECT 2']);
    assert.deepEqual(split('SELECT 1 # ; x\n; SELECT 2', 'mysql'), ['SELECT 1 # ; x', 'SELECT 2']);
  });

  it('keeps a trigger body whole', () => {
    const sql = 'CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE b SET n = CASE WHEN 1 THEN 2 END; DELETE FROM c; END; SELECT 1';
    assert.equal(split(sql, 'sqlite').length, 2);
  });

  it('holds no statement for comments and semicolons only', () => {
    assert.deepEqual(split(' ;; -- x\n /* y */ '), []);
  });
});

describe('classes', () => {
  it('reads', () => {
    for (const sql of ['SELECT 1', 'with x as (select 1) select * from x', 'VALUES (1)', 'TABLE t', 'SHOW search_path', 'EXPLAIN SELECT 1', '(SELECT 1) UNION (SELECT 2)', "SELECT replace('a', 'b', 'c')", 'SELECT "update" FROM t']) {
      assert.equal(cls(sql), 'read', sql);
    }
    assert.equal(cls('DESCRIBE t', 'mysql'), 'read');
    assert.equal(cls('PRAGMA table_info(t)', 'sqlite'), 'read');
    assert.equal(cls('PRAGMA main.user_version', 'sqlite'), 'read');
  });

  it('writes, with a reason', () => {
    for (const sql of ['INSERT INTO t VALUES (1)', 'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'SELECT * INTO n FROM t', 'EXPLAIN ANALYZE DELETE FROM t', 'SET x = 1', 'BEGIN', 'COMMIT', 'CALL p()', "SELECT set_config('a', 'b', false)", 'SELECT * FROM t FOR UPDATE', 'VACUUM', 'frobnicate the table']) {
      assert.equal(cls(sql), 'write', sql);
    }
    assert.equal(cls('PRAGMA user_version = 1', 'sqlite'), 'write');
    assert.equal(cls('PRAGMA query_only(0)', 'sqlite'), 'write');
    assert.equal(cls('/*!50000 DROP TABLE t */', 'mysql'), 'write');
    assert.equal(cls('SELECT 1 /*! ; DROP TABLE t */', 'mysql'), 'write');
    assert.match(classify('SELECT 1; UPDATE t SET a = 1', 'postgres').reason ?? '', /UPDATE/);
  });

  it('forbidden: outside the database, and anything unterminated', () => {
    assert.equal(cls("COPY t TO PROGRAM 'x'"), 'forbidden');
    assert.equal(cls("SELECT pg_catalog.pg_read_file('/etc/passwd')"), 'forbidden');
    assert.equal(cls("SELECT \"dblink_exec\"('x', 'y')"), 'forbidden');
    assert.equal(cls("SELECT * FROM t INTO OUTFILE '/tmp/x'", 'mysql'), 'forbidden');
    assert.equal(cls("ATTACH 'x.db' AS x", 'sqlite'), 'forbidden');
    assert.equal(cls("SELECT 'open"), 'forbidden');
    assert.equal(cls('SELECT 1 /* open'), 'forbidden');
    assert.equal(cls('SELECT $a$ open'), 'forbidden');
    assert.equal(cls('SELECT 1; SELECT load_extension(\'x\')', 'sqlite'), 'forbidden', 'a batch takes the strictest class');
  });

  it('MySQL -- needs a space to be a comment', () => {
    assert.equal(cls('SELECT 1--1', 'mysql'), 'read');
    assert.deepEqual(split('SELECT 1 --x\n; DELETE FROM t', 'mysql').length, 2);
    assert.equal(cls('SELECT 1 --x\n; DELETE FROM t', 'mysql'), 'write');
  });
});
