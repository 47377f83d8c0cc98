/** suggest-message and review: one model pass each over the diff, through the scripted model, each a run of its own. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { git, isolateGitHome, makeRepo, write } from './helpers.js';

describe('git model passes', () => {
  let h: ChatHarness;
  let ws: string;

  before(async () => {
    await isolateGitHome();
    h = await startChat('openai-compatible');
    ws = path.join(h.t.home, 'workspace');
    makeRepo(ws, { 'calc.ts': 'export const add = (a: number, b: number) => a + b;\n' });
  });
  after(async () => h?.close());

  it('suggest-message sends the staged diff to the model and answers its message; the pass is a run with source git', async () => {
    write(ws, { 'calc.ts': 'export const add = (a: number, b: number) => a + b;\nexport const sub = (a: number, b: number) => a - b;\n', 'other.ts': 'unstaged\n' });
    git(ws, 'add', 'calc.ts');
    h.model.script({ text: '```\nAdd a subtraction helper\n\nsub() mirrors add().\n```', usage: { input: 120, output: 12 } });
    const before = h.model.requests.length;
    const res = await h.t.api('POST', '/api/git/suggest-message'); // no body at all: every field is optional
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.message, 'Add a subtraction helper\n\nsub() mirrors add().');
    const prompt = JSON.stringify(h.model.requests[before].body.messages);
    assert.match(prompt, /export const sub/);
    assert.doesNotMatch(prompt, /other\.ts/, 'only the staged changes when something is staged');
    const runs = await h.t.api('GET', '/api/runs');
    const run = runs.body.runs.find((r: any) => r.source === 'git');
    assert.ok(run, JSON.stringify(runs.body.runs.map((r: any) => r.source)));
    assert.equal(run.status, 'completed');
    assert.equal(run.usage.input, 120);
  });

  it('review answers the model text for the changes', async () => {
    h.model.script({ text: '- calc.ts:2: no tests for sub()' });
    const before = h.model.requests.length;
    const res = await h.t.api('POST', '/api/git/review', { root: 'workspace' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.review, '- calc.ts:2: no tests for sub()');
    assert.match(JSON.stringify(h.model.requests[before].body.messages), /Review the staged changes/);
  });

  it('a repository without changes is a 409 sentence, and nothing is sent to the model', async () => {
    git(ws, 'commit', '-qam', 'all');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'rest');
    const before = h.model.requests.length;
    const res = await h.t.api('POST', '/api/git/suggest-message', { root: 'workspace' });
    assert.equal(res.status, 409);
    assert.match(res.body.error, /no changes to describe/);
    assert.equal(h.model.requests.length, before);
  });

  it('a provider failure answers a sentence and the run is failed', async () => {
    write(ws, { 'calc.ts': 'changed again\n' });
    h.model.script({ error: 400, body: { error: { message: 'bad request from the scripted model' } } });
    const res = await h.t.api('POST', '/api/git/review', {});
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.match(res.body.error, /the model could not answer \(.+\)/);
    const runs = await h.t.api('GET', '/api/runs');
    assert.equal(runs.body.runs.find((r: any) => r.source === 'git').status, 'failed');
  });
});
