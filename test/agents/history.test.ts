import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('every agent save records a version, and a restore brings an old definition back', async () => {
  assert.equal((await t.api('PUT', '/api/agents/scribe', { description: 'First', system: 'One.' })).status, 200);
  assert.equal((await t.api('PUT', '/api/agents/scribe', { description: 'Second', system: 'Two.', tools: ['set_plan'] })).status, 200);
  const list = await t.api('GET', '/api/history/agent/scribe');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.versions.length, 2);
  const oldest = list.body.versions.at(-1);
  const v1 = await t.api('GET', `/api/history/agent/scribe/${oldest.version}`);
  assert.match(v1.body.content, /description: First/);
  const restore = await t.api('POST', `/api/history/agent/scribe/${oldest.version}/restore`);
  assert.equal(restore.status, 200, JSON.stringify(restore.body));
  const now = await t.api('GET', '/api/agents/scribe');
  assert.equal(now.body.description, 'First');
  assert.equal(now.body.tools, undefined);
});

test('every skill save records a version, and a restore brings an old skill back', async () => {
  await t.api('PUT', '/api/skills/checklist', { description: 'v1', body: 'Step one.' });
  await t.api('PUT', '/api/skills/checklist', { description: 'v2', body: 'Step two.' });
  const list = await t.api('GET', '/api/history/skill/checklist');
  assert.equal(list.body.versions.length, 2);
  const oldest = list.body.versions.at(-1);
  assert.equal((await t.api('POST', `/api/history/skill/checklist/${oldest.version}/restore`)).status, 200);
  const now = await t.api('GET', '/api/skills/checklist');
  assert.equal(now.body.description, 'v1');
  assert.equal(now.body.body, 'Step one.\n');
});
