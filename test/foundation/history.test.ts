import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('record, list newest first, read one version, skip an identical save', async () => {
  const h = t.engine.history;
  await h.record('workflow', 'daily', '{"v":1}', 'created');
  await h.record('workflow', 'daily', '{"v":2}');
  await h.record('workflow', 'daily', '{"v":2}');
  const list = await t.api('GET', '/api/history/workflow/daily');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.versions.map((v: any) => v.version), [2, 1]);
  assert.equal(list.body.versions[1].note, 'created');
  const one = await t.api('GET', '/api/history/workflow/daily/1');
  assert.equal(one.body.content, '{"v":1}');
});

test('restore writes the item through the default adapter and snapshots the current state first', async () => {
  const file = path.join(t.home, 'agents', 'helper.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, 'v1');
  await t.engine.history.record('agent', 'helper', 'v1');
  await writeFile(file, 'v2 edited by hand, never recorded');
  const r = await t.api('POST', '/api/history/agent/helper/1/restore');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(await readFile(file, 'utf8'), 'v1');
  assert.equal(r.body.snapshot, 2);
  // The restore is undoable: the hand edit is a version now.
  const snap = await t.api('GET', '/api/history/agent/helper/2');
  assert.equal(snap.body.content, 'v2 edited by hand, never recorded');
  await t.api('POST', '/api/history/agent/helper/2/restore');
  assert.equal(await readFile(file, 'utf8'), 'v2 edited by hand, never recorded');
});

test('a registered adapter replaces the default one', async () => {
  const store = new Map<string, string>([['w1', 'live']]);
  t.engine.history.registerAdapter('widget', { read: async (n) => store.get(n), write: async (n, c) => void store.set(n, c) });
  await t.engine.history.record('widget', 'w1', 'old');
  await t.api('POST', '/api/history/widget/w1/1/restore');
  assert.equal(store.get('w1'), 'old');
});

test('skills live in the workspace', async () => {
  const file = path.join(t.home, 'workspace', '.claude', 'skills', 'pdf', 'SKILL.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, 'now');
  await t.engine.history.record('skill', 'pdf', 'before');
  await t.api('POST', '/api/history/skill/pdf/1/restore');
  assert.equal(await readFile(file, 'utf8'), 'before');
});

test('bad kinds and names are 400, unknown items and versions 404', async () => {
  for (const route of ['/api/history/robot/x', '/api/history/agent/..%2Fx', '/api/history/agent/.hidden', '/api/history/agent/helper/abc']) {
    const r = await t.api('GET', route);
    assert.equal(r.status, 400, route);
    assert.equal(typeof r.body.error, 'string');
  }
  assert.equal((await t.api('GET', '/api/history/agent/nobody')).status, 404);
  assert.equal((await t.api('GET', '/api/history/agent/helper/99')).status, 404);
  assert.equal((await t.api('POST', '/api/history/agent/helper/99/restore')).status, 404);
});
