/**
 * Pool mode (issue 43) with three engines on the real PostgreSQL the suite starts: one view from
 * anywhere (definitions, runs, every run's events), runs spread over every worker, a gate resolved
 * through another engine, the database URL masked, a definition row edited by hand judged like a file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { missing, startPostgres, type DbServer } from '../support/databases.js';
import type { TestEngine } from '../support/engine.js';
import { gated, poolEngine, sleeper, until } from './support.js';

const skip = missing('postgres');
let pg: DbServer;
let engines: TestEngine[] = [];
let sockets: EventCollector[] = [];

before(async () => {
  if (skip) return;
  pg = await startPostgres();
  // One after the other: the first creates the schema and the queue, the others find them.
  for (let i = 0; i < 3; i++) engines.push(await poolEngine(pg.url, { concurrency: 1 }));
  sockets = await Promise.all(engines.map((e) => collectEvents(e.url)));
});

after(async () => {
  for (const s of sockets) s.close();
  for (const e of engines) await e.close().catch(() => undefined);
  await pg?.stop();
});

test('a workflow saved on one engine is listed on the others; runs started on one spread over all three, each listed and streamed everywhere', { skip }, async () => {
  const [a, b, c] = engines;
  const ids = ['nap-1', 'nap-2', 'nap-3', 'nap-4', 'nap-5', 'nap-6'];
  for (const id of ids) assert.equal((await a.api('PUT', `/api/workflows/${id}`, sleeper(id, 3000))).status, 200);
  for (const e of [b, c]) await until(`${ids.length} workflows listed on ${e.url}`, async () => (await e.api('GET', '/api/workflows')).body.filter((w: any) => ids.includes(w.id) && !w.error).length === ids.length);

  const runIds: string[] = [];
  for (const id of ids) {
    const started = await a.api('POST', `/api/runs/${id}`, {});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    runIds.push(started.body.runId);
    if (id !== ids[0]) continue;
    // The pool-wide guard: a second start of a queued or running workflow is refused on any engine.
    const again = await c.api('POST', `/api/runs/${id}`, {});
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.match(again.body.error, /already running/);
  }

  // Engine B's socket sees every run start and end, whichever engine executed it.
  const ended = await Promise.all(runIds.map((runId) => sockets[1].waitFor((e) => e.runId === runId && e.kind === 'run.completed', 60_000)));
  assert.equal(ended.length, ids.length);
  const started = runIds.map((runId) => sockets[1].events.find((e) => e.runId === runId && e.kind === 'run.started'));
  const workers = new Set(started.map((e) => e?.worker));
  const status = await Promise.all(engines.map(async (e) => (await e.api('GET', '/api/status')).body));
  assert.deepEqual(new Set(status.map((s) => s.worker)), workers, 'each run.started names the worker of the engine that ran it; all three ran some');
  for (const s of status) {
    assert.equal(s.pool.engines.length, 3, 'every engine lists the live engines of the pool');
    assert.ok(s.pool.engines.some((m: any) => m.self && m.worker === s.worker));
  }
  // seq stays monotonic on each socket, relayed events included.
  for (const s of sockets) for (let i = 1; i < s.events.length; i++) assert.ok(s.events[i].seq > s.events[i - 1].seq, 'seq is monotonic per socket');

  // Every engine lists every run of the pool, ended, and serves each run's whole log.
  for (const e of engines) {
    const runs = (await until(`runs ended on ${e.url}`, async () => {
      const listed = (await e.api('GET', '/api/runs')).body.runs.filter((r: any) => runIds.includes(r.runId));
      return listed.length === runIds.length && listed.every((r: any) => r.status === 'completed') && listed;
    })) as any[];
    assert.equal(runs.length, runIds.length);
  }
  const log = (await c.api('GET', `/api/runs/${runIds[0]}/events`)).body.events.map((e: any) => e.kind);
  assert.deepEqual(log.filter((k: string) => k.startsWith('run.')), ['run.started', 'run.completed']);
  assert.ok(log.includes('node.completed'));
});

test('a gate waiting in a run executed by one engine is listed by all and resolved through another', { skip }, async () => {
  const [a, b, c] = engines;
  assert.equal((await b.api('PUT', '/api/workflows/ship', gated('ship'))).status, 200);
  await until('ship listed on A', async () => (await a.api('GET', '/api/workflows')).body.some((w: any) => w.id === 'ship'));
  const { runId } = (await a.api('POST', '/api/runs/ship', { payload: { what: 'v2' } })).body;
  const waiting = await sockets[2].waitFor((e) => e.runId === runId && e.kind === 'gate.waiting', 30_000);
  const key = `${runId}:review`;
  assert.equal(waiting.key, key);
  for (const e of engines) await until(`gate listed on ${e.url}`, async () => (await e.api('GET', '/api/gates')).body.pending.includes(key));
  const runner = sockets[2].events.find((e) => e.runId === runId && e.kind === 'run.started')!.worker;
  const statuses = await Promise.all(engines.map(async (e) => (await e.api('GET', '/api/status')).body.worker));
  const through = engines[(statuses.indexOf(runner) + 1) % 3];
  assert.equal((await through.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: true, note: 'go' })).status, 200);
  const done = await sockets[0].waitFor((e) => e.runId === runId && e.kind === 'run.completed', 30_000);
  assert.ok(done);
  const resolved = sockets[0].events.find((e) => e.runId === runId && e.kind === 'gate.resolved');
  assert.equal(resolved?.approved, true);
  assert.equal((await c.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: true })).status, 404, 'a gate is answered once, pool-wide');
  for (const e of engines) await until(`gate gone on ${e.url}`, async () => !(await e.api('GET', '/api/gates')).body.pending.includes(key));
});

test('rules, the unattended default and notifications are the pool\'s; the database URL is masked everywhere', { skip }, async () => {
  const [a, b, c] = engines;
  assert.equal((await a.api('POST', '/api/permissions/rule', { key: 'run_shell(git status:*)', decision: 'allow' })).status, 200);
  assert.equal((await b.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
  const seen = await until('rules on C', async () => {
    const p = (await c.api('GET', '/api/permissions')).body;
    return p.unattended === 'allow' && p.rules.some((r: any) => r.key === 'run_shell(git status:*)') && p;
  });
  assert.ok(seen);
  assert.equal((await c.api('PUT', '/api/permissions/defaults', { unattended: 'deny' })).status, 200);

  await a.engine.notifications.notify({ title: 'from A', level: 'info' });
  const on = await until('notification on B', async () => (await b.api('GET', '/api/notifications')).body.notifications.find((n: any) => n.title === 'from A'));
  assert.equal((await c.api('POST', `/api/notifications/${on.id}/dismiss`)).status, 200);
  await until('dismissed on A', async () => !(await a.api('GET', '/api/notifications')).body.notifications.some((n: any) => n.id === on.id));

  // The URL and its password never leave an engine: not in a log line, an event, a response.
  a.engine.bus.emit('probe', { text: `connecting to ${pg.url} with ${pg.password}` });
  const probe = await sockets[0].waitFor('probe');
  assert.doesNotMatch(String(probe.text), new RegExp(pg.password));
  const everything = JSON.stringify([sockets.map((s) => s.events), engines.map((e) => e.logs), await a.api('GET', '/api/status')]);
  assert.ok(!everything.includes(pg.password), 'the database password is masked everywhere');
});

test('a definition row edited by hand is judged like a hand-edited file, and a person\'s', { skip }, async () => {
  const [a, b] = engines;
  assert.equal((await a.api('PUT', '/api/workflows/hand', sleeper('hand', 10))).status, 200);
  await pg.admin(`UPDATE engine_pool.workflows SET text = $1 WHERE id = 'hand'`, ['{"id": "hand", "formatVersion": 2, "nodes": [{"id": "x", "type": "no.such.type"}], "edges": []}']);
  const listed = await until('the edit seen on B', async () => (await b.api('GET', '/api/workflows')).body.find((w: any) => w.id === 'hand' && w.error));
  assert.match(listed.error, /no\.such\.type/);
  const refused = await b.api('POST', '/api/runs/hand', {});
  assert.equal(refused.status, 400);
  // Versions are the pool's too: listed from another engine than the one that saved.
  const versions = (await b.api('GET', '/api/history/workflow/nap-1')).body.versions;
  assert.ok(versions.length >= 1);
});

test('who wrote a workflow is kept with its definition: a model\'s save is the model\'s on every engine until a person edits the row', { skip }, async () => {
  const [a, b, c] = engines;
  const author = { by: 'model' as const, runId: 'run-1-1', mode: 'ask' as const, rules: [], at: new Date().toISOString() };
  await a.engine.workflows.store.save('by-model', sleeper('by-model', 10), 'saved by a model', author);
  const row = (await pg.admin(`SELECT text, author FROM engine_pool.workflows WHERE id = 'by-model'`))[0];
  assert.equal(row.author.author.by, 'model');
  assert.equal(row.author.sha256, createHash('sha256').update(row.text).digest('hex'));
  for (const e of [b, c]) await until(`the model's authorship on ${e.url}`, () => e.engine.workflows.store.authorOf('by-model').by === 'model');
  // A person's hand edit of the row (the text no longer hashes to the model's record) is a person's.
  await pg.admin(`UPDATE engine_pool.workflows SET text = replace(text, '"ms": 10', '"ms": 20') WHERE id = 'by-model'`);
  for (const e of [b, c]) await until(`a person's edit on ${e.url}`, () => e.engine.workflows.store.authorOf('by-model').by === 'person');
});
