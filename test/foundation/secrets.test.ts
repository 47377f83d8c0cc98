import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('set, list (names only), read back in-process, delete', async () => {
  assert.deepEqual((await t.api('GET', '/api/secrets')).body, { names: [], backend: 'file', usedBy: {} });
  const set = await t.api('POST', '/api/secrets', { name: 'github.token:main', value: 'ghp_value_1' });
  assert.equal(set.status, 200);
  const list = await t.api('GET', '/api/secrets');
  // A secret a person stored is used by nothing the engine keeps for itself.
  assert.deepEqual(list.body, { names: ['github.token:main'], backend: 'file', usedBy: {} });
  assert.equal(await t.engine.secrets.get('github.token:main'), 'ghp_value_1');
  assert.equal((await t.api('DELETE', '/api/secrets/github.token:main')).status, 200);
  assert.deepEqual((await t.api('GET', '/api/secrets')).body.names, []);
  assert.equal((await t.api('DELETE', '/api/secrets/github.token:main')).status, 404);
});

test('the file backend is 0600 and survives a restart', async () => {
  await t.api('POST', '/api/secrets', { name: 'persist', value: 'kept-across-restarts' });
  for (const f of ['secrets.enc.json', 'secrets.key']) {
    const mode = (await stat(path.join(t.home, f))).mode & 0o777;
    assert.equal(mode, 0o600, f);
  }
  const again = await startTestEngine({ home: t.home });
  try {
    assert.equal(await again.engine.secrets.get('persist'), 'kept-across-restarts');
    assert.deepEqual((await again.api('GET', '/api/secrets')).body.names, ['persist']);
  } finally {
    await again.close();
  }
});

test('bad names and values are 400 sentences', async () => {
  for (const body of [{ name: '../x', value: 'v' }, { name: 'a b', value: 'v' }, { name: '', value: 'v' }, { name: 'ok', value: '' }, { name: 'ok' }, ['nope']]) {
    const r = await t.api('POST', '/api/secrets', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(typeof r.body.error, 'string');
  }
  assert.equal((await t.api('DELETE', '/api/secrets/bad%20name')).status, 400);
});
