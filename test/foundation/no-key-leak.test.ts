/**
 * A planted provider key and a planted secret never appear in any response, any event, any log line,
 * or any file of the home (the encrypted secret store holds ciphertext only, so it is checked too).
 */
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

const PROVIDER_KEY = 'sk-PLANTED-provider-key-7f3a9c';
const HAND_KEY = 'sk-PLANTED-typed-into-the-file-1b2c';
const SECRET = 'PLANTED-secret-value-4d5e6f';
const PLANTED = [PROVIDER_KEY, HAND_KEY, SECRET];

let t: TestEngine;
let events: EventCollector;
const responses: string[] = [];

async function call(method: string, route: string, body?: unknown) {
  const res = await fetch(t.url + route, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  responses.push(`${method} ${route} -> ${res.status} ${text}`);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await allFiles(p)));
    else out.push(p);
  }
  return out;
}

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
});

test('planted keys reach the code that needs them and nothing else', async () => {
  assert.equal((await call('PUT', '/api/config', { providers: [{ type: 'openai', model: 'gpt-x', name: 'main', newKey: PROVIDER_KEY }], defaultProvider: 'main' })).status, 200);
  assert.equal((await call('POST', '/api/secrets', { name: 'planted', value: SECRET })).status, 200);

  // A key typed into engine.config.json by hand is moved to the secret store and the file rewritten.
  const configFile = path.join(t.home, 'engine.config.json');
  const file = JSON.parse(await readFile(configFile, 'utf8'));
  file.providers.push({ type: 'anthropic', model: 'claude-x', name: 'typed', apiKey: HAND_KEY });
  await writeFile(configFile, JSON.stringify(file, null, 2));
  await events.waitFor((e) => e.kind === 'config.reloaded' && Array.isArray(e.providers) && e.providers.length === 2);

  // The keys are really stored (the engine can use them) ...
  assert.equal(await t.engine.config.providerKey('main'), PROVIDER_KEY);
  assert.equal(await t.engine.config.providerKey('typed'), HAND_KEY);
  assert.equal(await t.engine.secrets.get('planted'), SECRET);

  // ... and every way out is checked.
  const config = await call('GET', '/api/config');
  assert.deepEqual(config.body.providers.map((p: any) => [p.name, p.hasKey]), [['main', true], ['typed', true]]);
  for (const route of ['/api/status', '/api/secrets', '/api/settings', '/api/notifications', '/api/runs', '/api/home']) {
    assert.equal((await call('GET', route)).status, 200, route);
  }
  await call('PUT', '/api/config', { providers: config.body.providers, defaultProvider: 'typed' });
  await call('DELETE', '/api/secrets/planted');

  const outputs = {
    responses: responses.join('\n'),
    events: events.events.map((e) => JSON.stringify(e)).join('\n'),
    logs: t.logs.join('\n'),
  };
  for (const [where, text] of Object.entries(outputs)) {
    for (const key of PLANTED) assert.ok(!text.includes(key), `${key} leaked into ${where}`);
  }
  const files = await allFiles(t.home);
  assert.ok(files.some((f) => f.endsWith('secrets.enc.json')));
  for (const f of files) {
    const bytes = await readFile(f);
    for (const key of PLANTED) {
      assert.ok(!bytes.includes(key), `${key} found in ${path.relative(t.home, f)}`);
      assert.ok(!bytes.includes(Buffer.from(key).toString('base64')), `${key} found base64-encoded in ${path.relative(t.home, f)}`);
    }
  }
  // The secret deleted above is gone from the store too; the provider keys stay.
  assert.equal(await t.engine.secrets.get('planted'), undefined);
  assert.equal(await t.engine.config.providerKey('main'), PROVIDER_KEY);
});
