/**
// needs: better-sqlite3 (SQLite connections run on it; see scripts/test.mjs --node22)
 * docs/databases.md's walk-through, end to end: a SQLite file in the workspace becomes a writable
 * connection; a chat agent (the scripted model) reads the schema, asks for a write, a person answers
 * the db_query(<connection>) prompt, the row changes, and the model reads the tool's answer.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';

let h: ChatHarness;
let file: string;

before(async () => {
  h = await startChat('openai-compatible');
  file = path.join(h.t.home, 'workspace', 'shop.db');
  const db = new Database(file);
  db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT NOT NULL); INSERT INTO orders VALUES (1, 'open'), (2, 'open');");
  db.close();
});
after(() => h?.close());

const status = (id: number) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT status FROM orders WHERE id = ?').get(id) as { status: string }).status;
  } finally {
    db.close();
  }
};

it('adding a SQLite file, an agent asking for a write, a person answering the prompt', async () => {
  const put = await h.t.api('PUT', '/api/db/connections/shop', { engine: 'sqlite', path: 'shop.db', writable: true });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual((await h.t.api('POST', '/api/db/connections/shop/test')).body.ok, true);

  const update = "UPDATE orders SET status = 'shipped' WHERE id = 2";
  h.model.script(
    { toolCalls: [{ name: 'db_schema', args: { connection: 'shop' } }] },
    { toolCalls: [{ name: 'db_query', args: { connection: 'shop', sql: update } }] },
    { toolCalls: [{ name: 'db_query', args: { connection: 'shop', sql: 'SELECT id, status FROM orders ORDER BY id' } }] },
    { text: 'Order 2 is shipped.' },
  );
  const seq = h.lastSeq();
  assert.equal((await h.send('w1', 'Mark order 2 as shipped in the shop database.', { permissionMode: 'ask' })).status, 202);

  const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'w1');
  assert.equal(asked.tool, 'db_query');
  assert.equal(asked.key, 'db_query(shop)');
  assert.ok(String(asked.display).includes(update), 'the person sees the SQL');
  assert.equal(status(2), 'open', 'nothing ran before the answer');
  const pending = await h.t.api('GET', '/api/permissions/pending');
  assert.equal(pending.body.pending[0].key, 'db_query(shop)');

  const res = await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow', scope: 'once' });
  assert.equal(res.status, 200);
  const end = await h.turnEnd('w1', seq);
  assert.equal(end.kind, 'run.completed');
  assert.equal(status(2), 'shipped');
  assert.equal(status(1), 'open');

  // The model read the schema, the write's answer and the check, as tool results in its context.
  const sent = JSON.stringify(h.model.requests.at(-1)!.body);
  assert.match(sent, /main\.orders \(table\): id INTEGER PK, status TEXT/);
  assert.match(sent, /1 row\(s\) changed/);
  assert.match(sent, /\| 2 \| shipped \|/);
  // Only the write asked; the reads ran at once.
  assert.equal(h.events.events.filter((e) => e.kind === 'permission.requested' && e.runId === end.runId).length, 1);
  const queries = h.events.events.filter((e) => e.kind === 'db.query' && e.runId === end.runId);
  assert.deepEqual(queries.map((e) => e.class), ['write', 'read']);
  const history = (await h.t.api('GET', '/api/db/shop/history')).body.history;
  assert.deepEqual(history.map((x: any) => [x.by, x.sql]), [['model', 'SELECT id, status FROM orders ORDER BY id'], ['model', update]]);
});
