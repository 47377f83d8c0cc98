import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

const readConfig = async () => JSON.parse(await readFile(path.join(t.home, 'engine.config.json'), 'utf8'));

test('PUT validates, defaults the name to the type, stores the key, keeps other keys', async () => {
  await writeFile(path.join(t.home, 'engine.config.json'), JSON.stringify({ providers: [], defaultProvider: null, api: { bind: 'local' } }));
  await t.engine.config.reload();
  const changed: string[] = [];
  const off = t.engine.config.onChange((c) => changed.push(c.defaultProvider ?? 'none'));
  const put = await t.api('PUT', '/api/config', {
    providers: [
      { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3', name: 'local' },
      { type: 'anthropic', model: 'claude-x', newKey: 'sk-ant-test-123' },
    ],
    defaultProvider: 'anthropic',
  });
  off();
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.providers.map((p: any) => [p.name, p.hasKey]), [['local', false], ['anthropic', true]]);
  assert.equal(put.body.defaultProvider, 'anthropic');
  assert.deepEqual(changed, ['anthropic']);
  assert.equal(await t.engine.config.providerKey('anthropic'), 'sk-ant-test-123');
  const file = await readConfig();
  assert.deepEqual(file.api, { bind: 'local' });
  assert.equal(file.providers[1].newKey, undefined);
  const status = await t.api('GET', '/api/status');
  assert.equal(status.body.provider, 'anthropic');
  assert.deepEqual(status.body.providers, ['local', 'anthropic']);
});

test('a later PUT without newKey keeps the stored key; clearKey removes it', async () => {
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'anthropic', model: 'claude-y', hasKey: true }], defaultProvider: null });
  assert.equal(put.status, 200);
  assert.equal(put.body.providers[0].hasKey, true);
  const cleared = await t.api('PUT', '/api/config', { providers: [{ type: 'anthropic', model: 'claude-y', clearKey: true }], defaultProvider: null });
  assert.equal(cleared.body.providers[0].hasKey, false);
});

test('invalid maps are 400 sentences and change nothing', async () => {
  const before = (await t.api('GET', '/api/config')).body;
  const bad = [
    { providers: [{ type: 'nope', model: 'm' }], defaultProvider: null },
    { providers: [{ type: 'openai' }], defaultProvider: null },
    { providers: [{ type: 'openai', model: 'm', baseUrl: 'ftp://x' }], defaultProvider: null },
    { providers: [{ type: 'openai', model: 'm' }, { type: 'openai', model: 'n' }], defaultProvider: null },
    { providers: [{ type: 'openai', model: 'm' }], defaultProvider: 'other' },
    { providers: [{ type: 'openai', model: 'm', colour: 1 }], defaultProvider: null },
    { defaultProvider: null },
    ['x'],
  ];
  for (const body of bad) {
    const r = await t.api('PUT', '/api/config', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(typeof r.body.error, 'string');
  }
  assert.deepEqual((await t.api('GET', '/api/config')).body, before);
});

test('an edit of engine.config.json on disk emits config.reloaded and notifies listeners', async () => {
  const events = await collectEvents(t.url);
  // A reload still in flight from an earlier test's write may land first: wait for this edit's.
  const seen = new Promise<string | null>((resolve) => {
    const off = t.engine.config.onChange((c) => {
      if (c.defaultProvider !== 'edited') return;
      off();
      resolve(c.defaultProvider);
    });
  });
  const file = await readConfig();
  file.providers.push({ type: 'openai', model: 'gpt-x', name: 'edited' });
  file.defaultProvider = 'edited';
  await writeFile(path.join(t.home, 'engine.config.json'), JSON.stringify(file, null, 2));
  const event = await events.waitFor((e) => e.kind === 'config.reloaded' && e.ok === true && e.defaultProvider === 'edited');
  assert.equal(event.defaultProvider, 'edited');
  assert.equal(await seen, 'edited');
  assert.equal((await t.api('GET', '/api/config')).body.defaultProvider, 'edited');
  // A broken edit is reported and the last good map stays.
  await writeFile(path.join(t.home, 'engine.config.json'), '{ not json');
  const broken = await events.waitFor((e) => e.kind === 'config.reloaded' && e.ok === false);
  assert.match(String(broken.error), /not valid JSON/);
  assert.equal((await t.api('GET', '/api/config')).body.defaultProvider, 'edited');
  events.close();
});
