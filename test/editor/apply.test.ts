/**
 * POST /api/apply: the splice tier's rules (anchors of one line when unique, grown while ambiguous,
 * whitespace ignored first and exact to decide, refusals that name the line, strict file edges), the
 * route's 200 for bodies that are not JSON, and the model tier with the scripted model, including a
 * truncating answer that must be refused. The corpus of real edits is apply-corpus.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { splice } from '../../src/capabilities/editor/splice.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const FILE = ['import a from "a";', '', 'export function one() {', '  return 1;', '}', '', 'export function two() {', '  return 2;', '}', '', 'export function three() {', '  return 3;', '}', ''].join('\n');

test('splice rules: markers in any comment style, never in the result; ambiguity and forgotten edges refused', () => {
  // Three unchanged lines anchor each side of the change.
  const snippet = ['# ... existing code ...', '}', '', 'export function two() {', '  return 22;', '}', '', 'export function three() {', '/* ... */'].join('\n');
  const merged = splice(FILE, snippet);
  assert.equal(merged.merged, FILE.replace('return 2;', 'return 22;'));
  // The same chunk without its edge markers would delete one() and three(): refused instead.
  const forgot = splice(FILE, ['export function two() {', '  return 22;', '}'].join('\n'));
  assert.equal(forgot.merged, null);
  assert.match((forgot as { reason: string }).reason, /no marker above it, so it must start the file/);
  // Anchors that fit two places however far they grow are refused, never guessed.
  const twice = 'a\nb\nc\nx\na\nb\nc\ny\n';
  const ambiguous = splice(twice, '// ...\na\nb\nc\n// ...\n');
  assert.equal(ambiguous.merged, null);
  assert.match((ambiguous as { reason: string }).reason, /its first 2 lines \(from "a"\) fit 2 places/);
  // A chunk whose lines are nowhere in the file is refused.
  assert.equal(splice(FILE, '// ...\nnothing like this\nat all\nhere\n// ...').merged, null);
  // Lines inserted above the file's first lines keep the rest: no marker needed at the top.
  const top = splice(FILE, ['import b from "b";', 'import a from "a";', '', 'export function one() {', '// ... existing code ...'].join('\n'));
  assert.equal(top.merged, 'import b from "b";\n' + FILE);
  // CRLF files stay CRLF.
  const crlf = splice(FILE.replace(/\n/g, '\r\n'), snippet);
  assert.equal(crlf.merged, FILE.replace('return 2;', 'return 22;').replace(/\n/g, '\r\n'));
});

test('anchors: one unique line is enough; an ambiguous edge grows inward until it fits one place', () => {
  // One line of context on each side, as models often write it.
  const one = splice(FILE, '// ... existing code ...\nexport function two() {\n  return 22;\n}\n\nexport function three() {\n// ... existing code ...\n');
  assert.equal(one.merged, FILE.replace('return 2;', 'return 22;'));
  // "}" fits three places, "}" and a blank line three, and with "export function two() {" one.
  const grown = splice(FILE, '// ...\n}\n\nexport function two() {\n  return 22;\n}\n\nexport function three() {\n// ...\n');
  assert.equal(grown.merged, FILE.replace('return 2;', 'return 22;'));
  // Two chunks, each placed after the one before; the second ends the file (no marker below it).
  const two = splice(FILE, '// ...\nexport function one() {\n  return 11;\n}\n\nexport function two() {\n// ...\nexport function three() {\n  return 33;\n}\n');
  assert.equal(two.merged, FILE.replace('return 1;', 'return 11;').replace('return 3;', 'return 33;'));
});

test('anchors: an edge line that is not unique and cannot grow is refused with a sentence naming it', () => {
  // The last line "}" fits three places, and the line above it in the snippet is the changed one.
  const r = splice(FILE, '// ...\nexport function two() {\n  return 22;\n}\n// ...\n');
  assert.equal(r.merged, null);
  assert.match((r as { reason: string }).reason, /^the snippet: its last line "\}" fit 2 places in the file after its first lines and the snippet's previous line does not narrow them to one; end the chunk with an unchanged line/);
  // A blank edge line is named as such.
  const blank = splice(FILE, '// ...\n\n  return 22;\n}\n\nexport function three() {\n// ...\n');
  assert.match((blank as { reason: string }).reason, /its first line a blank line fit 3 places/);
  // An edge line the file does not have at all.
  const missing = splice(FILE, '// ...\nexport function nine() {\n  return 9;\n// ...\n');
  assert.match((missing as { reason: string }).reason, /its first line "export function nine\(\) \{" is not in the file/);
});

test('anchors: whitespace is ignored to find a line, and exact whitespace decides between places', () => {
  // A snippet re-indented with tabs still finds its lines; the snippet's own lines are what it writes.
  const tabs = splice(FILE, '// ...\nexport function two() {\n\treturn 22;\n}\n\n\texport   function three() {\n// ...\n');
  assert.equal(tabs.merged, FILE.replace('  return 2;', '\treturn 22;').replace('export function three() {', '\texport   function three() {'));
  // "x" fits two lines loosely; only one has the snippet's indentation.
  const file = 'a\n  x\nb\n    x\nc\n';
  assert.equal(splice(file, '// ...\n    x\nnew\nc\n// ...\n').merged, 'a\n  x\nb\n    x\nnew\nc\n');
  // Neither indentation matches exactly: ambiguous, refused.
  assert.equal(splice(file, '// ...\n      x\nnew\nc\n// ...\n').merged, null);
});

let t: TestEngine;
let model: ModelServer;

before(async () => {
  model = await startModelServer();
  t = await startTestEngine();
  await t.api('PUT', '/api/files/src/nums.ts', { content: FILE });
});
after(async () => {
  await t.close();
  await model.close();
});

test('POST /api/apply splices with no model, reads the file or the base, writes nothing', async () => {
  const snippet = '// ... existing code ...\n}\n\nexport function two() {\n  return 22;\n}\n\nexport function three() {\n// ... existing code ...\n';
  const res = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet });
  assert.deepEqual(res.body, { merged: FILE.replace('return 2;', 'return 22;'), tier: 'splice' });
  assert.equal((await t.api('GET', '/api/files/src/nums.ts')).body.content, FILE);
  const base = FILE.replace('return 1;', 'return 11;');
  const withBase = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet, base });
  assert.equal(withBase.body.merged, base.replace('return 2;', 'return 22;'));
  assert.equal(model.requests.length, 0);
});

test('refusals are 200: bad input, a missing file, no provider for the model tier', async () => {
  const bad = await t.api('POST', '/api/apply', { path: 'src/nums.ts' });
  assert.equal(bad.status, 200);
  assert.match(bad.body.reason, /snippet must be/);
  const missing = await t.api('POST', '/api/apply', { path: 'src/none.ts', snippet: 'x' });
  assert.equal(missing.status, 200);
  assert.equal(missing.body.merged, null);
  assert.match(missing.body.reason, /does not exist/);
  const noModel = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet: 'export function two() {\n  return 22;\n}' });
  assert.equal(noModel.status, 200);
  assert.match(noModel.body.reason, /must start the file.*no model provider is configured/);
});

test('a body that is not JSON is a 200 refusal, as seed 000 §7 special 3 says, for apply and complete', async () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  for (const [route, field] of [['/api/apply', 'merged'], ['/api/complete', 'text']] as const) {
    const shape = route === '/api/apply' ? '{path, snippet, base?}' : '{path, prefix, suffix}';
    const sent = await rawRequest(t.engine.port, { method: 'POST', path: route, headers: form, body: 'path=src/nums.ts' });
    assert.equal(sent.status, 200, sent.body);
    assert.deepEqual(JSON.parse(sent.body), { [field]: null, reason: `the body is not JSON (content type "application/x-www-form-urlencoded"); send a JSON object ${shape} with the header content-type: application/json` });
    const broken = await rawRequest(t.engine.port, { method: 'POST', path: route, headers: { 'content-type': 'application/json' }, body: '{"path": "src/nums.ts",' });
    assert.equal(broken.status, 200, broken.body);
    assert.equal(JSON.parse(broken.body)[field], null);
    assert.match(JSON.parse(broken.body).reason, /^the body is not valid JSON \(.+\); send a JSON object/);
    const untyped = await rawRequest(t.engine.port, { method: 'POST', path: route, body: 'hello' });
    assert.equal(untyped.status, 200, untyped.body);
    assert.match(JSON.parse(untyped.body).reason, /content type missing/);
  }
  // JSON with a charset is JSON; the other JSON routes still answer 415 to a form.
  const ok = await rawRequest(t.engine.port, { method: 'POST', path: '/api/apply', headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ path: 'src/nums.ts', snippet: '// ...\nexport function two() {\n  return 22;\n}\n\nexport function three() {\n// ...\n' }) });
  assert.equal(JSON.parse(ok.body).tier, 'splice');
  assert.equal((await rawRequest(t.engine.port, { method: 'POST', path: '/api/inline-edit', headers: form, body: 'code=x' })).status, 415);
});

test('the model tier merges when the splice refuses, and refuses a truncating answer or a left marker', async () => {
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'p', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'p' });
  assert.equal(put.status, 200);
  const snippet = 'export function two() {\n  return 22;\n}';
  const whole = FILE.replace('return 2;', 'return 22;');
  model.script({ text: 'Here it is:\n```ts\n' + whole + '```' });
  const ok = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet });
  assert.deepEqual(ok.body, { merged: whole, tier: 'model' });
  const sent = JSON.stringify(model.requests.at(-1)!.body.messages);
  assert.match(sent, /export function three/);

  // A model that drops three() (which the snippet does not mention) truncated the file.
  model.script({ text: '```ts\nimport a from "a";\n\nexport function one() {\n  return 1;\n}\n\nexport function two() {\n  return 22;\n}\n```' });
  const truncated = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet });
  assert.equal(truncated.status, 200);
  assert.equal(truncated.body.merged, null);
  assert.match(truncated.body.reason, /lost "three"/);

  model.script({ text: '```ts\nimport a from "a";\n// ... existing code ...\nexport function two() {\n  return 22;\n}\n```' });
  const marker = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet });
  assert.equal(marker.body.merged, null);
  assert.match(marker.body.reason, /marker line/);

  model.script({ error: 500 });
  const failed = await t.api('POST', '/api/apply', { path: 'src/nums.ts', snippet });
  assert.equal(failed.status, 200);
  assert.match(failed.body.reason, /the model tier failed/);
});
