/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * Saved connections on all three engines: ids, the path as identity, secrets never returned or
 * written in plain files, round-trip tests with a sentence per failure, pools closed on update,
 * delete and engine stop.
 */
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { collectEvents } from '../support/events.js';
import { freePort } from '../support/databases.js';
import { startTestEngine } from '../support/engine.js';
import { engineAndCases, type EngineCase } from './helpers.js';

const env = engineAndCases();

/** Every file under a folder, as text (to prove a secret is in none of them). */
async function allText(dir: string): Promise<string> {
  let out = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as any).path, entry.name);
    if (file.includes(`${path.sep}secrets.`)) continue; // the encrypted store itself
    out += await readFile(file, 'utf8').catch(() => '');
  }
  return out;
}

/** Sessions the engine holds open on the server (application_name / user). */
async function openSessions(c: EngineCase): Promise<number> {
  if (c.engine === 'postgres') return Number((await c.admin("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'workbench-engine'"))[0].n);
  return Number((await c.admin("SELECT count(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'engine'"))[0].n);
}
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let k = 0; k < 100; k++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(what);
}

describe('connection ids and definitions', () => {
  it('refuses bad ids with a sentence and takes the id from the path, not the body', async () => {
    for (const id of ['a%20b', 'a$b', 'connections', 'test', 'x'.repeat(65)]) {
      const res = await env.t.api('PUT', `/api/db/connections/${id}`, { engine: 'sqlite', path: 'x.db' });
      assert.equal(res.status, 400, id);
      assert.ok(typeof res.body.error === 'string' && res.body.error.length > 10);
    }
    const res = await env.t.api('PUT', '/api/db/connections/my.db-1_x', { id: 'other', engine: 'sqlite', path: 'data/app.db' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, 'my.db-1_x');
    assert.equal(res.body.name, 'app.db');
    assert.equal(res.body.writable, false, 'read-only unless said otherwise');
    const list = await env.t.api('GET', '/api/db');
    assert.ok(list.body.connections.some((x: any) => x.id === 'my.db-1_x'));
    assert.ok(!list.body.connections.some((x: any) => x.id === 'other'));
    assert.equal((await env.t.api('PUT', '/api/db/connections/bad', { engine: 'oracle' })).status, 400);
    assert.equal((await env.t.api('PUT', '/api/db/connections/bad', { engine: 'postgres' })).status, 400);
    assert.equal((await env.t.api('PUT', '/api/db/connections/bad', { engine: 'postgres', url: 'http://x' })).status, 400);
    assert.equal((await env.t.api('GET', '/api/db/nope/schema')).status, 404);
    assert.equal((await env.t.api('POST', '/api/db/nope/query', { sql: 'SELECT 1' })).status, 404);
    assert.equal((await env.t.api('DELETE', '/api/db/connections/nope')).status, 404);
    assert.equal((await env.t.api('POST', '/api/db/my.db-1_x/query', {})).status, 400);
  });

  it('SQLite: a missing file is "no such database"; a relative path is under the workspace', async () => {
    const missing = await env.t.api('POST', '/api/db/test', { engine: 'sqlite', path: 'nowhere/none.db' });
    assert.equal(missing.status, 200);
    assert.equal(missing.body.ok, false);
    assert.match(missing.body.error, /no such database/);
    assert.ok(missing.body.error.includes(path.join(env.t.home, 'workspace', 'nowhere', 'none.db')));
    const created = await env.t.api('PUT', '/api/db/connections/fresh', { engine: 'sqlite', path: 'fresh.db', writable: true });
    assert.equal(created.status, 200);
    assert.equal((await env.t.api('POST', '/api/db/connections/fresh/test')).body.ok, true, 'a writable connection creates its file');
    const q = await env.t.api('POST', '/api/db/fresh/query', { sql: 'CREATE TABLE t (x); INSERT INTO t VALUES (1); SELECT x FROM t' });
    assert.equal(q.body.statements[2].rows[0].x, 1);
  });

  it('SQLite: schema and table-data on a file that does not exist answer 404 with the sentence, and create nothing', async () => {
    for (const writable of [false, true]) {
      const id = `gone-${writable ? 'rw' : 'ro'}`;
      const file = path.join(env.t.home, 'workspace', `${id}.db`);
      assert.equal((await env.t.api('PUT', `/api/db/connections/${id}`, { engine: 'sqlite', path: `${id}.db`, writable })).status, 200);
      const routes = [
        ['GET', `/api/db/${id}/schema`, undefined],
        ['POST', `/api/db/${id}/table-data`, { table: 't' }],
        // A read-only connection refuses a cell edit before it looks at the file.
        ...(writable ? [['POST', `/api/db/${id}/update-cell`, { table: 't', pk: { id: 1 }, set: { x: 2 } }] as const] : []),
      ] as const;
      for (const [method, route, body] of routes) {
        const res = await env.t.api(method, route, body);
        assert.equal(res.status, 404, `${method} ${route}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /^no such database: the SQLite file .* does not exist or cannot be opened; check the path/);
        assert.ok(res.body.error.includes(file));
      }
      await assert.rejects(readFile(file), { code: 'ENOENT' }, 'the file was not created');
    }
  });

  it('notices a hand edit of connections.json on the next lookup, even for an open connection', async () => {
    assert.equal((await env.t.api('PUT', '/api/db/connections/edited', { engine: 'sqlite', path: 'edited.db', name: 'before', writable: true })).status, 200);
    assert.equal((await env.t.api('POST', '/api/db/edited/query', { sql: 'CREATE TABLE t (x); INSERT INTO t VALUES (1)' })).body.ok, true, 'open and writable');
    assert.equal((await env.t.api('GET', '/api/db')).body.connections.find((x: any) => x.id === 'edited').name, 'before');
    const file = path.join(env.t.home, 'db', 'connections.json');
    const saved = JSON.parse(await readFile(file, 'utf8'));
    saved.connections.edited.name = 'after, by hand';
    saved.connections.edited.writable = false;
    delete saved.connections['my.db-1_x'];
    await writeFile(file, JSON.stringify(saved, null, 2));
    const list = (await env.t.api('GET', '/api/db')).body.connections;
    assert.equal(list.find((x: any) => x.id === 'edited').name, 'after, by hand');
    assert.ok(!list.some((x: any) => x.id === 'my.db-1_x'), 'a connection removed by hand is gone');
    assert.equal((await env.t.api('GET', '/api/db/my.db-1_x/history')).status, 404);
    const write = await env.t.api('POST', '/api/db/edited/query', { sql: 'INSERT INTO t VALUES (2)' });
    assert.equal(write.status, 400, 'writable turned off by hand holds for the open connection');
    assert.match(write.body.error, /read-only/);
    const rows = await env.t.api('POST', '/api/db/edited/query', { sql: 'SELECT count(*) AS n FROM t' });
    assert.equal(rows.body.statements[0].rows[0].n, 1);
    // Another file by hand: the open driver is replaced, not kept with the old path.
    saved.connections.edited.path = 'elsewhere.db';
    await writeFile(file, JSON.stringify(saved, null, 2));
    const moved = await env.t.api('POST', '/api/db/edited/query', { sql: 'SELECT count(*) AS n FROM t' });
    assert.notEqual(moved.body.ok, true, JSON.stringify(moved.body));
    assert.match(moved.body.error, /unable to open|no such/);
  });
});

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`${engine} connections`, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    /** Only engines with a server have credentials, sessions and network failures (SQLite's missing file is tested above). */
    const onServer: typeof it = ((name: string, fn: (ctx: any) => Promise<void>) => (engine === 'sqlite' ? undefined : it(name, fn))) as typeof it;

    it('tests saved and unsaved definitions with a real round trip', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const unsaved = await env.t.api('POST', '/api/db/test', c().definition());
      assert.deepEqual([unsaved.status, unsaved.body.ok], [200, true], JSON.stringify(unsaved.body));
      await env.t.api('PUT', `/api/db/connections/${engine}-t`, c().definition());
      const saved = await env.t.api('POST', `/api/db/connections/${engine}-t/test`);
      assert.equal(saved.body.ok, true, JSON.stringify(saved.body));
      assert.equal(typeof saved.body.ms, 'number');
    });

    onServer('says why a connection fails: authentication, unreachable, no such database', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const auth = await env.t.api('POST', '/api/db/test', c().definition({ password: 'wrong-password' }));
      assert.equal(auth.status, 200);
      assert.equal(auth.body.ok, false);
      assert.match(auth.body.error, /^authentication failed for user "(postgres|engine)"/);
      const port = await freePort();
      const down = await env.t.api('POST', '/api/db/test', c().definition({ port }));
      assert.equal(down.body.ok, false);
      assert.match(down.body.error, /^unreachable: cannot connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
      const nodb = await env.t.api('POST', '/api/db/test', c().definition({ database: 'no_such_db' }));
      assert.equal(nodb.body.ok, false);
      assert.match(nodb.body.error, /^no such database "no_such_db"/);
    });

    onServer('keeps the password and the URL as secrets: never returned, never in a file, event or log', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const secret = c().secret!;
      const events = await collectEvents(env.t.url);
      try {
        const put = await env.t.api('PUT', `/api/db/connections/${engine}-s`, c().definition());
        assert.equal(put.body.hasPassword, true);
        assert.equal(put.body.hasUrl, false);
        const url = c().server!.url;
        const viaUrl = await env.t.api('PUT', `/api/db/connections/${engine}-u`, { engine, url, writable: true });
        assert.equal(viaUrl.status, 200, JSON.stringify(viaUrl.body));
        assert.equal(viaUrl.body.hasUrl, true);
        assert.equal((await env.t.api('POST', `/api/db/connections/${engine}-u/test`)).body.ok, true);
        // The masked SQL: a password typed into a query never reaches history or events.
        await env.t.api('POST', `/api/db/${engine}-u/query`, { sql: `SELECT '${secret}' AS leaked` });
        await env.t.api('POST', `/api/db/${engine}-s/query`, { sql: 'SELECT 1 AS one' });
        const names = (await env.t.api('GET', '/api/secrets')).body.names;
        assert.ok(names.includes(`db:${engine}-s:password`) && names.includes(`db:${engine}-u:url`));

        const everything = JSON.stringify([(await env.t.api('GET', '/api/db')).body, (await env.t.api('GET', `/api/db/${engine}-u/history`)).body, events.events, env.t.logs]);
        assert.ok(!everything.includes(secret), 'the password appears in a response, event or log');
        assert.ok(!everything.includes(url));
        assert.ok(!(await allText(env.t.home)).includes(secret), 'the password is in a plain file of the home');
        // Updating without a password keeps the stored one.
        await env.t.api('PUT', `/api/db/connections/${engine}-s`, { ...c().definition(), password: undefined, name: 'renamed' });
        assert.equal((await env.t.api('POST', `/api/db/connections/${engine}-s/test`)).body.ok, true);
      } finally {
        events.close();
      }
    });

    onServer('closes its pool on update and delete; delete removes its secrets and history', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const id = `${engine}-p`;
      await env.t.api('PUT', `/api/db/connections/${id}`, c().definition());
      const before = await openSessions(c());
      await env.t.api('POST', `/api/db/${id}/query`, { sql: 'SELECT 1 AS one' });
      assert.ok((await openSessions(c())) > before, 'the pool holds a session');
      const refused = await env.t.api('POST', `/api/db/${id}/query`, { sql: 'CREATE TABLE made_after_update (id INT)' });
      assert.equal(refused.status, 400);
      await env.t.api('PUT', `/api/db/connections/${id}`, c().definition({ writable: true }));
      await eventually(async () => (await openSessions(c())) <= before, 'the old pool was not closed on update');
      const made = await env.t.api('POST', `/api/db/${id}/query`, { sql: 'CREATE TABLE made_after_update (id INT)' });
      assert.equal(made.body.ok, true, 'the new definition (writable) is in force');
      assert.equal((await env.t.api('DELETE', `/api/db/connections/${id}`)).status, 200);
      await eventually(async () => (await openSessions(c())) <= before, 'the pool was not closed on delete');
      assert.equal((await env.t.api('GET', `/api/db/${id}/history`)).status, 404);
      const names = (await env.t.api('GET', '/api/secrets')).body.names as string[];
      assert.ok(!names.some((n) => n.startsWith(`db:${id}:`)));
    });

    onServer('closes every pool when the engine stops', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const before = await openSessions(c());
      const other = await startTestEngine();
      try {
        await other.api('PUT', '/api/db/connections/x', c().definition({ writable: true }));
        await other.api('POST', '/api/db/x/query', { sql: 'SELECT 1 AS one' });
        await other.api('POST', '/api/db/x/table-data', { table: 'users' });
        assert.ok((await openSessions(c())) > before);
      } finally {
        await other.close();
      }
      await eventually(async () => (await openSessions(c())) <= before, 'sessions left open after stop');
    });
  });
}
