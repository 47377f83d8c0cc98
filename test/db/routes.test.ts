/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * /api/db on all three engines against real databases: schema, query (several statements, explain,
 * row cap), writable governing people, history, table-data, update-cell, export.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { engineAndCases, USERS, victimRows } from './helpers.js';

const env = engineAndCases();

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(engine, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    const ro = `${engine}-ro`;
    const rw = `${engine}-rw`;
    const skip = () => c().skip;

    before(async () => {
      if (skip()) return;
      assert.equal((await env.t.api('PUT', `/api/db/connections/${ro}`, c().definition({ name: 'read only', rowLimit: 100 }))).status, 200);
      assert.equal((await env.t.api('PUT', `/api/db/connections/${rw}`, c().definition({ writable: true }))).status, 200);
    });

    it('reads the schema: tables, views, columns with types, keys, indexes; cached until ?refresh', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const { status, body } = await env.t.api('GET', `/api/db/${ro}/schema`);
      assert.equal(status, 200, JSON.stringify(body));
      const users = body.tables.find((x: any) => x.name === 'users');
      assert.ok(users, 'users is listed');
      assert.equal(users.kind, 'table');
      assert.deepEqual(users.primaryKey, ['id']);
      assert.deepEqual(users.columns.map((x: any) => x.name), ['id', 'org_id', 'name', 'email', 'score']);
      assert.match(users.columns.find((x: any) => x.name === 'name').type, /varchar|character varying/i);
      assert.equal(users.columns.find((x: any) => x.name === 'name').nullable, false);
      assert.equal(users.foreignKeys.length, 1);
      assert.deepEqual([users.foreignKeys[0].columns, users.foreignKeys[0].refTable, users.foreignKeys[0].refColumns], [['org_id'], 'orgs', ['id']]);
      assert.ok(users.indexes.some((i: any) => i.name === 'users_email' && i.columns[0] === 'email' && !i.unique));
      assert.equal(body.tables.find((x: any) => x.name === 'user_names')?.kind, 'view');
      assert.equal(body.cached, false);

      await c().admin('CREATE TABLE added_later (id INTEGER PRIMARY KEY)');
      const cached = await env.t.api('GET', `/api/db/${ro}/schema`);
      assert.equal(cached.body.cached, true);
      assert.ok(!cached.body.tables.some((x: any) => x.name === 'added_later'), 'the cache answers within 60 s');
      const fresh = await env.t.api('GET', `/api/db/${ro}/schema?refresh`);
      assert.equal(fresh.body.cached, false);
      assert.ok(fresh.body.tables.some((x: any) => x.name === 'added_later'), '?refresh reads again');
    });

    it('runs several statements, caps rows with a note, and explains', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const { status, body } = await env.t.api('POST', `/api/db/${ro}/query`, { sql: 'SELECT count(*) AS n FROM users; SELECT id, name FROM users ORDER BY id' });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.ok, true);
      assert.equal(body.statements.length, 2);
      assert.equal(Number(body.statements[0].rows[0].n), USERS);
      assert.equal(body.statements[1].rows.length, 100, 'the connection rowLimit caps the rows');
      assert.equal(body.statements[1].rowCount, USERS);
      assert.equal(body.statements[1].truncated, true);
      assert.match(body.note, /capped at 100 of 250/);
      assert.deepEqual(body.statements[1].columns, ['id', 'name']);

      const small = await env.t.api('POST', `/api/db/${ro}/query`, { sql: 'SELECT id FROM users ORDER BY id', rowLimit: 5 });
      assert.deepEqual(small.body.statements[0].rows.map((r: any) => Number(r.id)), [1, 2, 3, 4, 5]);

      const plan = await env.t.api('POST', `/api/db/${ro}/query`, { sql: 'SELECT * FROM users WHERE email = \'x\'', mode: 'explain' });
      assert.equal(plan.status, 200, JSON.stringify(plan.body));
      assert.equal(plan.body.ok, true, plan.body.error);
      assert.ok(plan.body.statements[0].rows.length >= 1, 'the plan has rows');
      assert.match(plan.body.statements[0].sql, /^EXPLAIN/);
    });

    it('a person is governed by writable: writes refused on a read-only connection, run on a writable one', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const refused = await env.t.api('POST', `/api/db/${ro}/query`, { sql: "UPDATE victim SET v = 'changed'" });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /read-only/);
      assert.deepEqual((await victimRows(c())).map((r) => r.v), ['intact', 'intact']);

      const done = await env.t.api('POST', `/api/db/${rw}/query`, { sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, v VARCHAR(20)); INSERT INTO scratch VALUES (1, 'a'), (2, 'b'); UPDATE scratch SET v = 'z' WHERE id = 2; SELECT v FROM scratch ORDER BY id" });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.ok, true, done.body.error);
      assert.equal(done.body.class, 'write');
      assert.equal(done.body.statements[1].affected, 2);
      assert.equal(done.body.statements[2].affected, 1);
      assert.deepEqual(done.body.statements[3].rows.map((r: any) => r.v), ['a', 'z']);

      const broken = await env.t.api('POST', `/api/db/${rw}/query`, { sql: 'SELECT 1 AS one; SELECT * FROM no_such_table; SELECT 2' });
      assert.equal(broken.status, 200);
      assert.equal(broken.body.ok, false);
      assert.match(broken.body.error, /no_such_table/);
      assert.equal(broken.body.statements.length, 1, 'the results before the failure are kept');
      assert.match(broken.body.failedStatement, /no_such_table/);
    });

    it('keeps a history per connection: who, when, how long, rows, error', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      await env.t.api('POST', `/api/db/${ro}/query`, { sql: 'SELECT id FROM orgs' });
      await env.t.api('POST', `/api/db/${ro}/query`, { sql: 'SELECT nope FROM orgs' });
      const { status, body } = await env.t.api('GET', `/api/db/${ro}/history`);
      assert.equal(status, 200);
      const [last, prev] = body.history;
      assert.equal(last.sql, 'SELECT nope FROM orgs');
      assert.ok(last.error);
      assert.equal(last.by, 'human');
      assert.equal(prev.rows, 2);
      assert.equal(typeof prev.durationMs, 'number');
      assert.ok(prev.ts <= Date.now());
      const other = await env.t.api('GET', `/api/db/${rw}/history`);
      assert.ok(!other.body.history.some((h: any) => h.sql === 'SELECT nope FROM orgs'), 'history is per connection');
    });

    it('pages a table with filters and sort (limit default 100)', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const first = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users' });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.rows.length, 100);
      assert.equal(first.body.limit, 100);
      assert.equal(first.body.hasMore, true);
      assert.equal(Number(first.body.rows[0].id), 1, 'ordered by the primary key when no sort is given');

      const page = await env.t.api('POST', `/api/db/${ro}/table-data`, {
        table: 'users',
        filters: [{ column: 'org_id', op: '=', value: 2 }, { column: 'email', op: 'is not null' }, { column: 'name', op: 'like', value: 'user0%' }],
        sort: [{ column: 'score', direction: 'desc' }, { column: 'id' }],
        offset: 3,
        limit: 4,
      });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal(page.body.rows.length, 4);
      for (const r of page.body.rows) assert.equal(Number(r.org_id), 2);
      const scores = page.body.rows.map((r: any) => Number(r.score));
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));

      const quoted = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', filters: [{ column: 'name', op: '=', value: "x' OR '1'='1" }] });
      assert.equal(quoted.body.rows.length, 0, 'values are parameters, never SQL');
      const badColumn = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', sort: [{ column: 'id; DROP TABLE victim' }] });
      assert.equal(badColumn.status, 400);
      assert.match(badColumn.body.error, /not a column of users/);
      const noTable = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'nope' });
      assert.equal(noTable.status, 404);
    });

    it('pages by cursor: the order key carries on where the last page ended, even after rows before it are deleted', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const ids: number[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', sort: [{ column: 'name', direction: 'desc' }], limit: 40, ...(cursor ? { cursor } : {}) });
        assert.equal(page.status, 200, JSON.stringify(page.body));
        ids.push(...page.body.rows.map((r: any) => Number(r.id)));
        cursor = page.body.nextCursor;
        assert.equal(Boolean(cursor), page.body.hasMore, 'a cursor exactly while there is more');
        if (!cursor) break;
      }
      const all = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', sort: [{ column: 'name', direction: 'desc' }], limit: 1000 });
      assert.deepEqual(ids, all.body.rows.map((r: any) => Number(r.id)), 'every row once, in the same order as one big page');

      await c().admin('CREATE TABLE keyset_walk (id INTEGER PRIMARY KEY, label VARCHAR(20) NOT NULL)');
      for (let i = 1; i <= 10; i++) await c().admin(`INSERT INTO keyset_walk VALUES (${i}, 'row${i}')`);
      await env.t.api('GET', `/api/db/${ro}/schema?refresh`);
      const first = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'keyset_walk', limit: 3 });
      assert.deepEqual(first.body.rows.map((r: any) => Number(r.id)), [1, 2, 3]);
      await c().admin('DELETE FROM keyset_walk WHERE id IN (1, 2)');
      const next = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'keyset_walk', limit: 3, cursor: first.body.nextCursor });
      assert.deepEqual(next.body.rows.map((r: any) => Number(r.id)), [4, 5, 6], 'read after id 3, not at offset 3');

      const nullable = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', sort: [{ column: 'score' }], limit: 5 });
      assert.equal(nullable.body.hasMore, true);
      assert.equal(nullable.body.nextCursor, undefined, 'no cursor over a column that may hold NULL');
      const refused = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', sort: [{ column: 'score' }], cursor: first.body.nextCursor });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /page it with "offset"/);
      const foreign = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'users', cursor: first.body.nextCursor });
      assert.equal(foreign.status, 400, 'a cursor of keyset_walk does not page users');
      assert.match(foreign.body.error, /not one this engine gave for this table/);
      const forged = Buffer.from(JSON.stringify({ o: JSON.parse(Buffer.from(first.body.nextCursor, 'base64url').toString()).o, v: [{ x: 1 }] })).toString('base64url');
      const garbage = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'keyset_walk', cursor: forged });
      assert.equal(garbage.status, 400, 'a key value that is not a number or string is refused, not sent to the database');
      const otherOrder = await env.t.api('POST', `/api/db/${ro}/table-data`, { table: 'keyset_walk', sort: [{ column: 'label' }], cursor: first.body.nextCursor });
      assert.equal(otherOrder.status, 400);
      assert.match(otherOrder.body.error, /another sort/);
    });

    it('updates one cell by primary key on a writable connection only', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const refused = await env.t.api('POST', `/api/db/${ro}/update-cell`, { table: 'victim', pk: { id: 1 }, set: { v: 'x' } });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /read-only/);
      const ok = await env.t.api('POST', `/api/db/${rw}/update-cell`, { table: 'users', pk: { id: 7 }, set: { email: 'new@example.com' } });
      assert.deepEqual(ok.body, { ok: true, affected: 1 });
      assert.equal((await c().admin('SELECT email FROM users WHERE id = 7'))[0].email, 'new@example.com');
      const none = await env.t.api('POST', `/api/db/${rw}/update-cell`, { table: 'users', pk: { id: 99999 }, set: { email: 'x' } });
      assert.equal(none.body.ok, false);
      assert.equal(none.body.affected, 0);
      const partial = await env.t.api('POST', `/api/db/${rw}/update-cell`, { table: 'users', pk: { name: 'user001' }, set: { email: 'x' } });
      assert.equal(partial.status, 400);
      assert.match(partial.body.error, /exactly the primary key/);
    });

    it('exports csv, json, ndjson and sql, streamed', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const sql = "SELECT id, name, email FROM users WHERE id <= 12 ORDER BY id";
      const csv = await fetch(`${env.t.url}/api/db/${ro}/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, format: 'csv' }) });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
      assert.match(csv.headers.get('content-disposition') ?? '', /attachment/);
      const lines = (await csv.text()).trimEnd().split(/\r?\n/); // PostgreSQL's COPY ends lines with LF
      assert.equal(lines[0], 'id,name,email');
      assert.equal(lines.length, 13);
      assert.equal(lines[1], '1,user001,'); // NULL is empty
      assert.equal(lines[2], '2,user002,u2@example.com');

      const json = await env.t.api('POST', `/api/db/${ro}/export`, { sql, format: 'json' });
      assert.equal(json.body.length, 12);
      assert.equal(json.body[1].email, 'u2@example.com');
      const nd = await env.t.api('POST', `/api/db/${ro}/export`, { sql, format: 'ndjson' });
      assert.equal((nd.body as string).trim().split('\n').map((l) => JSON.parse(l)).length, 12);
      const needsTable = await env.t.api('POST', `/api/db/${ro}/export`, { sql, format: 'sql' });
      assert.equal(needsTable.status, 400);
      const ins = await env.t.api('POST', `/api/db/${ro}/export`, { sql, format: 'sql', table: 'users_copy' });
      const statements = (ins.body as string).trim().split('\n');
      assert.equal(statements.length, 12);
      assert.match(statements[0], /^INSERT INTO .users_copy. \(.id., .name., .email.\) VALUES \(1, 'user001', NULL\);$/);

      // The INSERTs load back into a copy of the table.
      await env.t.api('POST', `/api/db/${rw}/query`, { sql: 'CREATE TABLE users_copy (id INTEGER PRIMARY KEY, name VARCHAR(100), email VARCHAR(200))' });
      const load = await env.t.api('POST', `/api/db/${rw}/query`, { sql: ins.body });
      assert.equal(load.body.ok, true, load.body.error);
      assert.equal(Number((await c().admin('SELECT count(*) AS n FROM users_copy'))[0].n), 12);

      const write = await env.t.api('POST', `/api/db/${rw}/export`, { sql: 'DELETE FROM victim', format: 'csv' });
      assert.equal(write.status, 400, 'an export only reads');
      assert.equal((await victimRows(c())).length, 2);
    });

    it('stops a query that runs past the timeout on the server', async (ctx) => {
      if (skip()) return ctx.skip(skip());
      const id = `${engine}-slow`;
      await env.t.api('PUT', `/api/db/connections/${id}`, c().definition({ timeoutMs: 300 }));
      const slow =
        engine === 'postgres'
          ? 'SELECT pg_sleep(30)'
          : engine === 'mysql'
            ? 'SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b WHERE a.seq + b.seq = 3' // SLEEP() is refused on a read-only connection
            : 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r';
      const { body } = await env.t.api('POST', `/api/db/${id}/query`, { sql: slow, rowLimit: 1 });
      assert.equal(body.ok, false);
      assert.match(body.error, /timeout/);
      if (engine === 'postgres') {
        const running = await c().admin("SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'");
        assert.equal(Number(running[0].n), 0, 'nothing is still running on the server');
      }
      if (engine === 'mysql') {
        const running = await c().admin("SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT COUNT(*) FROM seq_1_to_100000 a%'");
        assert.equal(Number(running[0].n), 0, 'nothing is still running on the server');
      }
      const after = await env.t.api('POST', `/api/db/${id}/query`, { sql: 'SELECT 1 AS one' });
      assert.equal(after.body.ok, true, 'the connection works after a timeout');
    });
  });
}
