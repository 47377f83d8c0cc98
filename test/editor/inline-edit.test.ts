/** POST /api/inline-edit with the scripted model: code only, fences unwrapped, prose refused. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { extractCode } from '../../src/capabilities/editor/inline-edit.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let t: TestEngine;
let model: ModelServer;

before(async () => {
  model = await startModelServer();
  t = await startTestEngine();
});
after(async () => {
  await t.close();
  await model.close();
});

test('without a provider the route says so', async () => {
  const res = await t.api('POST', '/api/inline-edit', { code: 'let x = 1;', instruction: 'rename x to count' });
  assert.equal(res.status, 400);
  assert.match(res.body.error, /no model provider is configured/);
});

test('the replacement code comes back unwrapped, prose around it dropped; prose alone is an error', async () => {
  await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'p', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'p' });
  model.script({ text: 'Sure! Here is the edited code:\n\n```ts\nlet count = 1;\n```\n\nI renamed the variable.' });
  const ok = await t.api('POST', '/api/inline-edit', { code: 'let x = 1;', instruction: 'rename x to count', lang: 'typescript' });
  assert.deepEqual(ok, { status: 200, body: { code: 'let count = 1;' } });
  const sent = JSON.stringify(model.requests.at(-1)!.body.messages);
  assert.match(sent, /rename x to count/);
  assert.match(sent, /let x = 1;/);

  model.script({ text: 'I cannot change this code without knowing more about what it should do.' });
  const prose = await t.api('POST', '/api/inline-edit', { code: 'let x = 1;', instruction: 'make it better' });
  assert.equal(prose.status, 502);
  assert.match(prose.body.error, /answered prose, not code/);

  const bad = await t.api('POST', '/api/inline-edit', { code: 'x' });
  assert.equal(bad.status, 400);
});

test('extractCode: fenced, bare code, prose', () => {
  assert.equal(extractCode('```\na();\n```'), 'a();');
  assert.equal(extractCode('const a = 1;\nconst b = 2;'), 'const a = 1;\nconst b = 2;');
  assert.equal(extractCode('This function cannot be simplified any further.'), undefined);
  assert.equal(extractCode('   '), undefined);
});
