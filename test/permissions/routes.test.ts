/** The permission rule routes over real HTTP, with every field validated. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('an empty home has no rules and denies unattended code by default', async () => {
  const res = await t.api('GET', '/api/permissions');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { rules: [], unattended: 'deny' });
});

test('rules are added newest first, replaced by key, removed, and persisted', async () => {
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell(git status:*)', decision: 'allow' })).status, 200);
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell(rm:*)', decision: 'deny' })).status, 200);
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'db_query(main)', decision: 'allow' })).status, 200);
  // The same key again moves to the front with its new decision.
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell(git status:*)', decision: 'deny' })).status, 200);
  let res = await t.api('GET', '/api/permissions');
  assert.deepEqual(res.body.rules, [
    { key: 'run_shell(git status:*)', decision: 'deny' },
    { key: 'db_query(main)', decision: 'allow' },
    { key: 'run_shell(rm:*)', decision: 'deny' },
  ]);
  const file = JSON.parse(await readFile(path.join(t.home, 'permissions.json'), 'utf8'));
  assert.deepEqual(file.rules, res.body.rules);

  const del = await t.api('DELETE', '/api/permissions/rule?key=' + encodeURIComponent('run_shell(rm:*)'));
  assert.equal(del.status, 200);
  res = await t.api('GET', '/api/permissions');
  assert.deepEqual(res.body.rules.map((r: { key: string }) => r.key), ['run_shell(git status:*)', 'db_query(main)']);

  const missing = await t.api('DELETE', '/api/permissions/rule?key=' + encodeURIComponent('run_shell(rm:*)'));
  assert.equal(missing.status, 404);
  assert.match(missing.body.error, /no rule has the key/);
});

test('the unattended default is set and persisted', async () => {
  assert.equal((await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
  assert.equal((await t.api('GET', '/api/permissions')).body.unattended, 'allow');
  const file = JSON.parse(await readFile(path.join(t.home, 'permissions.json'), 'utf8'));
  assert.equal(file.unattended, 'allow');
  assert.equal((await t.api('PUT', '/api/permissions/defaults', { unattended: 'deny' })).status, 200);
});

test('every field is validated with a sentence', async () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ['POST', '/api/permissions/rule', { key: 'run_shell(git:*)', decision: 'maybe' }, /decision must be "allow" or "deny"/],
    ['POST', '/api/permissions/rule', { decision: 'allow' }, /key must be a non-empty string/],
    ['POST', '/api/permissions/rule', { key: '', decision: 'allow' }, /key must be a non-empty string/],
    ['POST', '/api/permissions/rule', { key: 'run shell', decision: 'allow' }, /is not a rule key/],
    ['POST', '/api/permissions/rule', { key: 'a\nb', decision: 'allow' }, /one line/],
    ['POST', '/api/permissions/rule', { key: 'x'.repeat(5000), decision: 'allow' }, /longer than/],
    ['POST', '/api/permissions/rule', { key: 'x', decision: 'allow', extra: 1 }, /unknown field "extra"/],
    ['POST', '/api/permissions/rule', [1, 2], /JSON object/],
    ['PUT', '/api/permissions/defaults', { unattended: 'ask' }, /unattended must be "allow" or "deny"/],
    ['PUT', '/api/permissions/defaults', {}, /unattended must be/],
    ['DELETE', '/api/permissions/rule', undefined, /query parameter key must be/],
    ['POST', '/api/permissions/resolve', { runId: 'run-1-1', decision: 'allow' }, /callId must be/],
    ['POST', '/api/permissions/resolve', { runId: 5, callId: 'c', decision: 'allow' }, /runId must be/],
    ['POST', '/api/permissions/resolve', { runId: 'run-1-1', callId: 'c', decision: 'yes' }, /decision must be/],
    ['POST', '/api/permissions/resolve', { runId: 'run-1-1', callId: 'c', decision: 'allow', scope: 'forever' }, /scope must be "once" or "always"/],
  ];
  for (const [method, route, body, message] of cases) {
    const res = await t.api(method, route, body);
    assert.equal(res.status, 400, `${method} ${route} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
    assert.match(res.body.error, message);
  }
});

test('resolving an unknown call is a 404 with a sentence', async () => {
  const res = await t.api('POST', '/api/permissions/resolve', { runId: 'run-1-1', callId: 'nope', decision: 'allow', scope: 'always' });
  assert.equal(res.status, 404);
  assert.match(res.body.error, /no permission prompt is waiting for call "nope"/);
  const pending = await t.api('GET', '/api/permissions/pending');
  assert.deepEqual(pending.body, { pending: [] });
});
