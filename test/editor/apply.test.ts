/**
 * POST /api/apply: the splice tier on this repository's own history (the corpus test prints its
 * counts and fails when exact falls below 80 % or wrong rises above 1.5 %), its refusals, and the
 * model tier with the scripted model, including a truncating answer that must be refused.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { splice } from '../../src/capabilities/editor/splice.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { buildCorpus, scoreCorpus } from './apply-corpus.js';

const repo = path.resolve(import.meta.dirname, '../..');

test('the splice tier on real edits from this repository: at least 80 % exact, at most 1.5 % wrong', (t) => {
  const commits = Number(execFileSync('git', ['-C', repo, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).trim());
  if (commits < 50) return t.skip(`a shallow clone (${commits} commits) has too little history for the corpus`);
  const cases = buildCorpus(repo, 1000);
  assert.ok(cases.length >= 200, `only ${cases.length} edits in the corpus`);
  const c = scoreCorpus(cases);
  const pct = (n: number) => (100 * n) / c.total;
  t.diagnostic(`apply corpus: ${c.total} edits, exact ${c.exact} (${pct(c.exact).toFixed(1)} %), refused ${c.refused} (${pct(c.refused).toFixed(1)} %), wrong ${c.wrong} (${pct(c.wrong).toFixed(1)} %); edge markers dropped: ${c.forgottenDamaged} of ${c.forgotten} damaged`);
  assert.ok(pct(c.exact) >= 80, `exact ${pct(c.exact).toFixed(1)} % is below 80 %`);
  assert.ok(pct(c.wrong) <= 1.5, `wrong ${pct(c.wrong).toFixed(1)} % is above 1.5 %: ${c.wrongCases.slice(0, 5).map((w) => `${w.commit.slice(0, 8)} ${w.path}`).join(', ')}`);
  assert.ok(c.forgottenDamaged <= c.forgotten * 0.015, `${c.forgottenDamaged} of ${c.forgotten} snippets without their edge markers were merged wrongly`);
});

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
  // Anchors that fit two places are refused, never guessed.
  const twice = 'a\nb\nc\nx\na\nb\nc\ny\n';
  const ambiguous = splice(twice, '// ...\na\nb\nc\n// ...\n');
  assert.equal(ambiguous.merged, null);
  assert.match((ambiguous as { reason: string }).reason, /fit 3 places/);
  // A chunk whose lines are nowhere in the file is refused.
  assert.equal(splice(FILE, '// ...\nnothing like this\nat all\nhere\n// ...').merged, null);
  // Lines inserted above the file's first lines keep the rest: no marker needed at the top.
  const top = splice(FILE, ['import b from "b";', 'import a from "a";', '', 'export function one() {', '// ... existing code ...'].join('\n'));
  assert.equal(top.merged, 'import b from "b";\n' + FILE);
  // CRLF files stay CRLF.
  const crlf = splice(FILE.replace(/\n/g, '\r\n'), snippet);
  assert.equal(crlf.merged, FILE.replace('return 2;', 'return 22;').replace(/\n/g, '\r\n'));
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
