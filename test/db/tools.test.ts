/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * db_connections, db_schema and db_query through the registry and the real permission gate, on all
 * three engines: reads run at once, a write on a read-only connection is refused with a sentence,
 * a write on a writable one asks `db_query(<connection>)` with the SQL shown (masked) and runs only
 * after a yes; `db.query` is emitted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { engineAndCases, victimRows } from './helpers.js';

const env = engineAndCases();
let seq = 0;
let events: EventCollector;
before(async () => {
  await env.ready; // root hooks of one file may start together
  events = await collectEvents(env.t.url);
});
after(() => events?.close());

function call(name: string, args: Record<string, unknown>, attended = true) {
  const run = env.t.engine.runs.start({ source: 'test' });
  const callId = `db-${++seq}`;
  const outcome = env.t.engine.tools.call({ callId, name, args }, { signal: run.signal, emit: run.emit, runId: run.id, attended, agent: 'analyst' });
  return { run, callId, outcome: outcome.finally(() => run.finish('completed')) };
}

describe('db_connections', () => {
  it('lists ids, engines and flags, never a URL or password', async () => {
    const c = env.cases.find((x) => x.engine === 'postgres')!;
    if (!c.skip) await env.t.api('PUT', '/api/db/connections/pg-url', { engine: 'postgres', url: c.server!.url });
    await env.t.api('PUT', '/api/db/connections/lite', { engine: 'sqlite', path: env.cases[0].file, writable: true, rowLimit: 50 });
    const { outcome } = call('db_connections', {});
    const out = await outcome;
    assert.equal(out.isError, false);
    assert.match(out.text, /lite: "data\.db" sqlite, writable, rowLimit 50/);
    if (!c.skip) {
      assert.match(out.text, /pg-url: .* postgres, read-only/);
      assert.ok(!out.text.includes(c.secret!) && !out.text.includes('postgres://'));
    }
    assert.deepEqual(
      env.t.engine.tools.describe().filter((d) => d.group === 'db').map((d) => d.name).sort(),
      ['db_connections', 'db_query', 'db_schema'],
    );
  });
});

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`${engine} tools`, () => {
    const c = () => env.cases.find((x) => x.engine === engine)!;
    const ro = `${engine}-ro`;
    const rw = `${engine}-rw`;
    before(async () => {
      if (c().skip) return;
      await env.t.api('PUT', `/api/db/connections/${ro}`, c().definition());
      await env.t.api('PUT', `/api/db/connections/${rw}`, c().definition({ writable: true }));
    });

    it('db_schema lists tables with types and keys; table expands one with indexes', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const all = await call('db_schema', { connection: ro }).outcome;
      assert.equal(all.isError, false, all.text);
      assert.match(all.text, /\.users \(table\): id [\w()]+ PK, org_id [\w()]+ -> orgs\(id\), name/i);
      assert.match(all.text, /\.user_names \(view\)/);
      const one = await call('db_schema', { connection: ro, table: 'users' }).outcome;
      assert.match(one.text, /Primary key: id/);
      assert.match(one.text, /Foreign key: \(org_id\) -> .*orgs\(id\)/);
      assert.match(one.text, /Index users_email: \(email\)/);
      assert.match(one.text, /name .*NOT NULL/i);
      const none = await call('db_schema', { connection: ro, table: 'nope' }).outcome;
      assert.equal(none.isError, true);
      assert.match(none.text, /No table or view "nope".*users/);
    });

    it('db_query runs a read at once: a summary line and a table; emits db.query', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const { callId, outcome } = call('db_query', { connection: ro, sql: 'SELECT id, name FROM orgs ORDER BY id; SELECT count(*) AS n FROM users' });
      const out = await outcome;
      assert.equal(out.isError, false, out.text);
      assert.match(out.text, new RegExp(`^2 statements ran on "${ro}" \\(${engine}, read\\)`));
      assert.match(out.text, /\| id \| name \|\n\|---\|---\|\n\| 1 \| acme \|\n\| 2 \| globex \|/);
      assert.match(out.text, /\| 250 \|/);
      const ev = await events.waitFor((e: EngineEvent) => e.kind === 'db.query' && e.connection === ro && String(e.sql).startsWith('SELECT id, name FROM orgs'));
      assert.equal(ev.by, 'model');
      assert.equal(ev.agent, 'analyst');
      assert.equal(ev.class, 'read');
      assert.ok(ev.runId, 'the event belongs to the run');
      assert.ok(!events.events.some((e) => e.kind === 'permission.requested' && e.callId === callId), 'a read asks nothing');
      const history = await env.t.api('GET', `/api/db/${ro}/history`);
      assert.equal(history.body.history[0].by, 'model');

      const capped = await call('db_query', { connection: ro, sql: 'SELECT id FROM users ORDER BY id', rowLimit: 3 }).outcome;
      assert.match(capped.text, /250 row\(s\), showing 3/);
      const bad = await call('db_query', { connection: ro, sql: 'SELECT nope FROM users' }).outcome;
      assert.equal(bad.isError, true);
      assert.match(bad.text, /The database refused a statement.*Nothing was changed/s);
    });

    it('a write on a read-only connection is refused with a sentence the model can act on', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const out = await call('db_query', { connection: ro, sql: "UPDATE victim SET v = 'x' WHERE id = 1" }).outcome;
      assert.equal(out.isError, true);
      assert.match(out.text, /^db_query refused on ".*-ro": the connection is read-only and UPDATE .*Rewrite it as a read \(SELECT\), or ask the user to make the connection writable\.$/);
      assert.deepEqual((await victimRows(c())).map((r) => r.v), ['intact', 'intact']);
    });

    it('a write on a writable connection asks db_query(<connection>) with the SQL shown, and runs only after yes', async (ctx) => {
      if (c().skip) return ctx.skip(c().skip);
      const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz123456';
      const sql = `UPDATE victim SET v = 'approved' WHERE id = 2; SELECT '${secret}' AS k`;
      const first = call('db_query', { connection: rw, sql });
      const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.callId === first.callId);
      assert.equal(asked.key, `db_query(${rw})`);
      assert.match(String(asked.display), /UPDATE victim SET v = 'approved' WHERE id = 2/);
      assert.ok(!String(asked.display).includes(secret), 'the prompt masks secret-shaped text');
      assert.deepEqual((await victimRows(c())).map((r) => r.v), ['intact', 'intact'], 'nothing runs before the answer');
      const no = await env.t.api('POST', '/api/permissions/resolve', { runId: first.run.id, callId: first.callId, decision: 'deny' });
      assert.equal(no.status, 200, JSON.stringify(no.body));
      const denied = await first.outcome;
      assert.equal(denied.isError, true);
      assert.match(denied.text, /Permission denied for db_query/);
      assert.deepEqual((await victimRows(c())).map((r) => r.v), ['intact', 'intact']);

      const second = call('db_query', { connection: rw, sql });
      await events.waitFor((e) => e.kind === 'permission.requested' && e.callId === second.callId);
      await env.t.api('POST', '/api/permissions/resolve', { runId: second.run.id, callId: second.callId, decision: 'allow' });
      const ran = await second.outcome;
      assert.equal(ran.isError, false, ran.text);
      assert.match(ran.text, /\[1\] 1 row\(s\) changed/);
      assert.deepEqual((await victimRows(c())).map((r) => r.v), ['intact', 'approved']);
      const ev = await events.waitFor((e) => e.kind === 'db.query' && e.connection === rw && e.class === 'write');
      assert.ok(!String(ev.sql).includes(secret), 'db.query carries masked SQL');
      await c().admin("UPDATE victim SET v = 'intact'");
    });
  });
}
