import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('status answers with real, empty data', async () => {
  const { status, body } = await t.api('GET', '/api/status');
  assert.equal(status, 200);
  assert.deepEqual(body.running, []);
  assert.ok(Array.isArray(body.tools));
});

test('a run reaches the socket and its own log', async () => {
  const events = await collectEvents(t.url);
  const run = t.engine.runs.start({ source: 'test' });
  run.emit('node.started', { nodeId: 'a' });
  await run.finish('completed');
  await events.waitFor('run.completed');
  const log = await t.api('GET', `/api/runs/${run.id}/events`);
  assert.deepEqual(log.body.events.map((e: { kind: string }) => e.kind), ['run.started', 'node.started', 'run.completed']);
  const list = await t.api('GET', '/api/runs');
  assert.equal(list.body.runs[0].runId, run.id);
  assert.equal(list.body.runs[0].status, 'completed');
  events.close();
});
