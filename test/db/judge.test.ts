/**
 * What the catalog judges are given, without a server: the references pg-refs.ts finds in
 * PostgreSQL's parse tree (including what syntax applies without naming it, and typed fields the
 * tree holds unwrapped), the SQL text a function runs, and the calls judge-mysql.ts finds in
 * MariaDB tokens (not syntax before a parenthesis, not a CTE's column list). The judgements
 * themselves run against real servers: test/db/corpus.ts, test/db/readonly-catalog.test.ts.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { callSites } from '../../src/capabilities/db/judge-mysql.js';
import { loadPgParser, parsePg } from '../../src/capabilities/db/pg-parser.js';
import { collectRefs, constantText } from '../../src/capabilities/db/pg-refs.js';
import { lex } from '../../src/capabilities/db/sql-lexer.js';

before(() => loadPgParser());

const refs = (sql: string) => {
  const parsed = parsePg(sql);
  assert.ok(parsed.ok, sql);
  return collectRefs(parsed.statements[0].kind, parsed.statements[0].node);
};
const names = (list: Array<{ schema?: string; name: string }>) => [...new Set(list.map((x) => (x.schema ? `${x.schema}.${x.name}` : x.name)))].sort();

describe('PostgreSQL references', () => {
  it('functions with their argument counts, schema-qualified or not, in every clause', () => {
    const r = refs("SELECT count(*), pg_catalog.lower('A'), f(a => 1) FROM g(1, 2) AS x WHERE EXISTS (SELECT h()) GROUP BY k(1) ORDER BY m()");
    const calls = r.functions.filter((f) => !f.attribute).map((f) => `${f.schema ? f.schema + '.' : ''}${f.name}/${f.nargs}${f.named ? ' named' : ''}`);
    assert.deepEqual(calls.sort(), ['count/0', 'f/1 named', 'g/2', 'h/0', 'k/1', 'm/0', 'pg_catalog.lower/1']);
  });

  it('operators written and operators syntax applies', () => {
    assert.deepEqual(names(refs('SELECT 1 + 2, - b * a, a OPERATOR(public.===) b').operators), ['*', '+', '-', 'public.==='].sort());
    assert.ok(refs('SELECT - a').operators.some((o) => o.name === '-' && o.prefix));
    assert.deepEqual(names(refs('SELECT 1 WHERE a IN (1, 2)').operators), ['=']);
    assert.deepEqual(names(refs('SELECT 1 WHERE a BETWEEN 1 AND 2').operators), ['<', '<=', '>', '>=']);
    assert.deepEqual(names(refs("SELECT 1 WHERE a LIKE 'x%'").operators), ['~~']);
    assert.deepEqual(names(refs('SELECT CASE a WHEN 1 THEN 2 END').operators), ['=']);
    assert.deepEqual(names(refs('SELECT * FROM t JOIN u USING (id)').operators), ['=']);
    assert.deepEqual(names(refs('SELECT 1 WHERE a IN (SELECT b FROM u)').operators), ['=']);
    assert.deepEqual(names(refs('SELECT 1 WHERE a = ANY (ARRAY[1])').operators), ['=']);
    assert.deepEqual(names(refs('SELECT a FROM t ORDER BY a USING <').operators), ['<']);
  });

  it('types, wrapped in the tree or held unwrapped by a typed field (TypeCast.typeName, a column definition list)', () => {
    assert.deepEqual(names(refs("SELECT 1::checked_int, CAST(2 AS public.boxed), date '2020-01-01', '{}'::int[] FROM f() AS x(t text)").types), [
      'checked_int',
      'date',
      'pg_catalog.int4',
      'public.boxed',
      'text',
    ]);
  });

  it('relations in FROM, joins, subqueries and CTEs; t.f and (row).f may be calls', () => {
    assert.deepEqual(names(refs('WITH c AS (SELECT * FROM s.a) SELECT * FROM b JOIN c ON true, LATERAL (SELECT * FROM d) x').relations), ['b', 'c', 'd', 's.a']);
    const attribute = refs('SELECT victim.writes_attr, (v).other FROM victim').functions.filter((f) => f.attribute);
    assert.deepEqual(attribute.map((f) => `${f.name}/${f.nargs}`).sort(), ['other/1', 'writes_attr/1']);
  });

  it('the SQL text of a constant argument, whatever its quoting; nothing for an expression', () => {
    const arg = (sql: string) => constantText(refs(sql).functions[0].args[0]);
    assert.equal(arg("SELECT ts_stat('SELECT 1')"), 'SELECT 1');
    assert.equal(arg('SELECT ts_stat($$SELECT 2$$)'), 'SELECT 2');
    assert.equal(arg("SELECT ts_stat(E'SELECT \\'3\\'')"), "SELECT '3'");
    assert.equal(arg("SELECT ts_stat('SELECT 4'::text)"), 'SELECT 4');
    assert.equal(arg("SELECT ts_stat('')"), '');
    assert.equal(arg("SELECT ts_stat('SELECT ' || 'x')"), undefined);
    assert.equal(arg('SELECT ts_stat(q) FROM t'), undefined);
  });
});

describe('MariaDB calls', () => {
  const calls = (sql: string) => callSites(lex(sql, 'mysql').tokens, sql).map((c) => `${c.schema ? c.schema + '.' : ''}${c.name}${c.empty ? '()' : ''}`);
  it('names before a parenthesis that are calls, quoted or qualified', () => {
    assert.deepEqual(calls('SELECT f(1), `get_lock`(2), Db.g(3), LAST_INSERT_ID(), h (4) FROM t'), ['f', 'get_lock', 'Db.g', 'last_insert_id()', 'h']);
  });
  it('not syntax, a CTE column list, or an alias with columns', () => {
    assert.deepEqual(calls('WITH RECURSIVE r(n) AS (SELECT 1) SELECT * FROM r WHERE n IN (1, 2) AND EXISTS (SELECT 1) AND x NOT IN (3)'), []);
    assert.deepEqual(calls('SELECT COUNT(*) OVER (PARTITION BY a) FROM t USE INDEX (i) JOIN u USING (id)'), ['count']);
    assert.deepEqual(calls("SELECT * FROM JSON_TABLE('[]', '$[*]' COLUMNS (x INT PATH '$', y VARCHAR(10) PATH '$')) AS j"), ['json_table', 'varchar']);
  });
});
