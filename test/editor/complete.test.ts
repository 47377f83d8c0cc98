/**
 * POST /api/complete over real HTTP with the scripted model: FIM request shapes, post-processing,
 * deadline, cancellation. The deadline runs on a test clock: only the test's own advance of it ends
 * a completion, so a busy machine never turns a slow answer into `{text: null}`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postprocess } from '../../src/capabilities/editor/postprocess.js';
import { LIMITS } from '../../src/kernel/limits.js';
import { TestClock } from '../support/clock.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { until } from '../support/patience.js';

let t: TestEngine;
let model: ModelServer;
const clock = new TestClock(Date.parse('2030-01-01T00:00:00Z'));

before(async () => {
  model = await startModelServer();
  t = await startTestEngine({ clock });
  await t.api('PUT', '/api/files/src/util.ts', { content: 'export const answer = 42;\n' });
});
after(async () => {
  await t.close();
  await model.close();
});

async function useProvider(type: string, modelId: string) {
  const put = await t.api('PUT', '/api/config', { providers: [{ type, name: 'p', baseUrl: model.baseUrl, model: modelId, newKey: 'sk-test' }], defaultProvider: 'p' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

const complete = (body: unknown) => t.api('POST', '/api/complete', body);
const last = () => model.requests[model.requests.length - 1];

test('a known FIM family gets its own template on the legacy completions endpoint', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder-1.5b');
  model.script({ text: 'a + b;' });
  const res = await complete({ path: 'src/math.ts', prefix: 'function add(a: number, b: number) {\n  return ', suffix: '\n}\n' });
  assert.deepEqual(res, { status: 200, body: { text: 'a + b;' } });
  const req = last();
  assert.match(req.path, /\/v1\/completions$/);
  assert.equal(req.body.model, 'qwen2.5-coder-1.5b');
  assert.equal(req.body.max_tokens, 256);
  assert.match(req.body.prompt, /<\|fim_prefix\|>[\s\S]*function add\(a: number, b: number\) \{\n {2}return <\|fim_suffix\|>\n\}\n<\|fim_middle\|>$/);
  assert.ok(req.body.stop.includes('<|endoftext|>'));
  assert.equal(req.body.suffix, undefined);
});

test('each family template has its request shape', async () => {
  const shapes: Array<[string, RegExp]> = [
    ['deepseek-coder-6.7b-base', /^(?:[\s\S]*)<｜fim▁begin｜>[\s\S]*PRE<｜fim▁hole｜>SUF<｜fim▁end｜>$/],
    ['starcoder2-3b', /<fim_prefix>[\s\S]*PRE<fim_suffix>SUF<fim_middle>$/],
    ['codestral-latest', /^\[SUFFIX\]SUF\[PREFIX\][\s\S]*PRE$/],
    ['codellama-7b-code', /<PRE> [\s\S]*PRE <SUF>SUF <MID>$/],
  ];
  for (const [id, shape] of shapes) {
    await useProvider('openai-compatible', id);
    model.script({ text: 'x' });
    const res = await complete({ path: 'a.ts', prefix: 'PRE', suffix: 'SUF' });
    assert.equal(res.body.text, 'x', id);
    assert.match(last().body.prompt, shape, id);
  }
});

test('an unknown family gets the prompt and the OpenAI-style suffix parameter', async () => {
  await useProvider('openai-compatible', 'some-model');
  model.script({ text: 'y' });
  await complete({ path: 'a.py', prefix: 'def f():\n    return ', suffix: '\n' });
  assert.match(last().body.prompt, /def f\(\):\n {4}return $/);
  assert.equal(last().body.suffix, '\n');
});

test('a chat-only provider gets a hole-filler prompt, and the tags are stripped', async () => {
  await useProvider('openai', 'gpt-chat');
  model.script({ text: '<COMPLETION>a * b</COMPLETION>' });
  const res = await complete({ path: 'src/m.ts', prefix: 'const product = ', suffix: ';\n' });
  assert.equal(res.body.text, 'a * b');
  const req = last();
  assert.match(req.path, /chat\/completions$/);
  const user = req.body.messages.find((m: any) => m.role === 'user');
  assert.match(JSON.stringify(user.content), /const product = \{\{FILL_HERE\}\};/);
});

test('30 lines answered become 10, and a fill cut by the token limit loses its partial last line', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder');
  const lines = Array.from({ length: 30 }, (_, i) => `  line${i}();`).join('\n');
  model.script({ text: lines });
  const res = await complete({ path: 'a.ts', prefix: 'function f() {\n', suffix: '\n}' });
  assert.equal(res.body.text.split('\n').length, 10);
  assert.equal(res.body.text.split('\n')[9], '  line9();');
  model.script({ text: '  a();\n  b();\n  c(', finishReason: 'length' });
  const cut = await complete({ path: 'a.ts', prefix: 'function f() {\n', suffix: '\n}' });
  assert.equal(cut.body.text, '  a();\n  b();');
});

test('leaks, fences, prose and the repeated suffix are stripped; nothing left is null', () => {
  const cases: Array<[string, string, string | null]> = [
    ['a + b</fim_middle>junk', '', 'a + b'],
    ['a + b<|im_end|>\nmore', '', 'a + b'],
    ['a + b<|endoftext|>', '', 'a + b'],
    ['<COMPLETION>a + b</COMPLETION>', '', 'a + b'],
    ['a + b<｜end▁of▁sentence｜>', '', 'a + b'],
    ['a + b<EOT>', '', 'a + b'],
    ['```ts\nconst x = 1;\n```', '', 'const x = 1;'],
    ['Here is the completion:\nreturn x;', '', 'return x;'],
    ['Sure, here is the code:\nreturn x;', '', 'return x;'],
    ['foo(a, b);\n}', ';\n}', 'foo(a, b)'],
    ['bar(1))', ')', 'bar(1)'],
    ['   \n  ', '', null],
    ['<|fim_middle|>', '', null],
    ['', '', null],
  ];
  for (const [raw, suffix, want] of cases) assert.equal(postprocess(raw, { suffix }), want, JSON.stringify(raw));
});

test('suffix overlap is trimmed end to end', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder');
  model.script({ text: 'items.length) {' });
  const res = await complete({ path: 'a.ts', prefix: 'if (', suffix: ') {\n  go();\n}' });
  assert.equal(res.body.text, 'items.length');
});

test('a model that hangs gives {text: null} at the deadline, and the model request is cancelled', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder');
  model.script({ hang: true });
  const asked = model.requests.length;
  const timers = clock.pending();
  const answer = complete({ path: 'a.ts', prefix: 'x', suffix: '' });
  await model.waitForRequests(asked + 1);
  const armed = clock.pending();
  assert.equal(armed, timers + 1, 'the deadline is armed on the engine clock');
  clock.advance(LIMITS.completeDeadlineMs - 1);
  assert.equal(clock.pending(), armed, 'the deadline has not come a millisecond before it');
  clock.advance(1);
  const res = await answer;
  assert.equal(res.status, 200);
  assert.equal(res.body.text, null);
  assert.match(res.body.reason, /did not answer within 15 s/);
  await until('the hanging model request to be cancelled', () => model.hanging() === 0);
});

test('a new request for the same path cancels the one in flight', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder');
  model.script({ hang: true }, { text: 'second' });
  const first = complete({ path: 'same.ts', prefix: 'a', suffix: '' });
  await model.waitForRequests(model.requests.length + 1);
  const second = await complete({ path: 'same.ts', prefix: 'ab', suffix: '' });
  assert.equal(second.body.text, 'second');
  const firstRes = await first;
  assert.equal(firstRes.body.text, null);
  assert.match(firstRes.body.reason, /newer completion request/);
  await until('the replaced model request to be cancelled', () => model.hanging() === 0);
  assert.equal(clock.pending(), 0, 'both deadlines are disarmed once answered');
});

test('recently opened files of the workspace are quoted as commented snippets', async () => {
  await useProvider('openai-compatible', 'qwen2.5-coder');
  await t.api('GET', '/api/files/src/util.ts');
  model.script({ text: 'answer' });
  await complete({ path: 'src/main.ts', prefix: 'console.log(', suffix: ');' });
  assert.match(last().body.prompt, /\/\/ Path: src\/util\.ts\n\/\/ export const answer = 42;\n/);
});

test('refusals are 200 with a reason: bad input, completions off, no provider', async () => {
  const bad = await complete({ prefix: 'x' });
  assert.equal(bad.status, 200);
  assert.equal(bad.body.text, null);
  assert.match(bad.body.reason, /path must be/);
  const notObject = await complete([1, 2]);
  assert.equal(notObject.status, 200);
  assert.match(notObject.body.reason, /send \{path, prefix, suffix\}/);
  await t.api('PUT', '/api/settings', { completions: { enabled: false } });
  const off = await complete({ path: 'a.ts', prefix: 'x', suffix: '' });
  assert.match(off.body.reason, /turned off/);
  await t.api('PUT', '/api/settings', { completions: { enabled: true } });
  await t.api('PUT', '/api/config', { providers: [], defaultProvider: null });
  const none = await complete({ path: 'a.ts', prefix: 'x', suffix: '' });
  assert.equal(none.status, 200);
  assert.match(none.body.reason, /no model provider/);
});
