/**
 * A surveyed atlas with the scripted model: record_card per changed unit (with its rejections),
 * publish_atlas (with its rejection table), evidence archived and read back, copy-forward after a
 * one-file edit, 409 while building, read_card by hash, design with one retry.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let t: TestEngine;
let model: ModelServer;
let events: EventCollector;
let ws: string;

const FILES: Record<string, string> = {
  'app/py/main.py': 'import json\nfrom pkg.tax import compute_tax\n\nif __name__ == "__main__":\n    print(compute_tax(10))\n',
  'app/py/pkg/__init__.py': '',
  'app/py/pkg/tax.py': 'from .rates import RATE\n\ndef compute_tax(amount):\n    return amount * RATE\n',
  'app/py/pkg/rates.py': 'RATE = 0.2\n',
};
const card = (files: string[], role: string, imports: string[] = []) => ({ role, kind: 'module', publicSurface: [], internals: [], dependencies: { imports, external: [], stores: [], emits: [], consumes: [] }, files });

before(async () => {
  model = await startModelServer();
  t = await startTestEngine();
  ws = path.join(t.home, 'workspace');
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
  await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 's', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 's' });
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
  await model.close();
});

async function build(id: string) {
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', `/api/atlas/${id}/run`);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const done = await events.waitFor((e) => (e.kind === 'atlas.build.completed' || e.kind === 'atlas.build.failed') && e.atlas === id && e.seq > seq, 30_000);
  // Like a dashboard's, the run route answers the build's run: the survey runs in it.
  assert.equal(done.runId, res.body.runId);
  return done;
}
const results = (runId: string, tool: string) => events.events.filter((e) => e.kind === 'tool.result' && e.runId === runId && e.tool === tool);

test('a survey records a card per unit and publishes checked views; the tools answer exact rejections', async () => {
  const bad = await t.api('PUT', '/api/atlas/shop', { name: '', scope: [], views: [{ id: 'x', kind: 'tree' }], prompt: 1 });
  assert.equal(bad.status, 400);
  for (const part of ['name must be a non-empty string', 'scope must be a non-empty array', 'views[0].kind must be "graph" or "flow"', 'views[0].title', 'prompt must be a string']) assert.ok(bad.body.error.includes(part), `${part} in ${bad.body.error}`);
  const nowhere = await t.api('PUT', '/api/atlas/shop', { name: 'Shop', scope: ['app/py', 'no/such'], views: [], flows: [], prompt: '' });
  assert.equal(nowhere.status, 400, 'a missing scope folder is a problem of the definition, as for a dashboard');
  assert.match(nowhere.body.error, /^atlas "shop" was not saved; fix: scope "no\/such" does not exist/);
  const put = await t.api('PUT', '/api/atlas/shop', { name: 'Shop', scope: ['app/py'], views: [{ id: 'arch', kind: 'graph', title: 'Architecture' }], flows: ['how tax is computed'], prompt: 'focus on tax' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.id, 'shop');
  model.script(
    { toolCalls: [{ name: 'read_file', args: { path: 'app/py/main.py' } }, { name: 'read_file', args: { path: 'app/py/pkg/tax.py' } }] },
    { toolCalls: [{ name: 'record_card', args: card(['app/py/pkg/tax.py', 'app/py/pkg/rates.py', 'app/py/pkg/__init__.py'], 'Computes tax', ['nowhere']) }] },
    { toolCalls: [{ name: 'read_file', args: { path: 'app/py/pkg/rates.py' } }, { name: 'read_file', args: { path: 'app/py/pkg/__init__.py' } }] },
    { toolCalls: [{ name: 'record_card', args: card(['app/py/pkg/tax.py', 'app/py/pkg/rates.py', 'app/py/pkg/__init__.py'], 'Computes tax from a fixed rate') }, { name: 'record_card', args: card(['app/py/main.py'], 'Prints the tax of 10', ['pkg']) }] },
    {
      toolCalls: [{
        name: 'publish_atlas',
        args: {
          views: [
            { id: 'arch', kind: 'graph', title: 'Architecture', nodes: [{ id: 'main', label: 'main', unit: '.' }, { id: 'pkg', label: 'tax package', unit: 'pkg' }], edges: [{ from: 'main', to: 'pkg' }, { from: 'pkg', to: 'main', evidence: { path: 'app/py/pkg/tax.py', startLine: 3, endLine: 4 } }] },
            { id: 'bad', kind: 'graph', title: 'Bad', nodes: [{ id: 'a', label: 'a', unit: '.' }, { id: 'b', label: 'b', files: ['elsewhere.py'] }], edges: [{ from: 'a', to: 'zzz' }, { from: 'a', to: 'b' }] },
            { id: 'tax-flow', kind: 'flow', title: 'How tax is computed', steps: [{ node: 'main', text: 'main asks for the tax of 10' }, { node: 'pkg', text: 'compute_tax multiplies by RATE' }] },
            { id: 'lost', kind: 'flow', title: 'Lost', steps: [{ node: 'ghost', text: '?' }] },
          ],
        },
      }] },
    { text: 'surveyed' },
  );
  const done = await build('shop');
  assert.equal(done.kind, 'atlas.build.completed', String(done.error));
  const runId = String(done.runId);
  const rec = results(runId, 'record_card');
  assert.match(String(rec[0].result), /dependencies\.imports names units that do not exist: nowhere/);
  assert.match(String(rec[0].result), /read these files of unit pkg first: app\/py\/pkg\/__init__\.py, app\/py\/pkg\/rates\.py|read these files of unit pkg first: app\/py\/pkg\/rates\.py, app\/py\/pkg\/__init__\.py/);
  assert.equal(rec[1].result, 'card recorded: pkg');
  assert.equal(rec[2].result, 'card recorded: .');
  const pub = String(results(runId, 'publish_atlas')[0].result);
  assert.match(pub, /view "arch" accepted/);
  assert.match(pub, /view "bad" rejected:\n {2}- node "b": files elsewhere.py are not inside the atlas scope\n {2}- edge a -> zzz joins nodes that are not in this view/);
  assert.match(pub, /view "tax-flow" accepted/);
  assert.match(pub, /view "lost" rejected:\n {2}- step 1 is on "ghost", which is no node of a graph view and no unit/);

  const doc = (await t.api('GET', '/api/atlas/shop/doc')).body;
  assert.equal(doc.kind, 'survey');
  assert.deepEqual(doc.views.map((v: any) => v.id), ['units', 'arch', 'tax-flow']);
  const arch = doc.views.find((v: any) => v.id === 'arch');
  assert.deepEqual(arch.edges.map((e: any) => [e.from, e.to, e.kind]), [['main', 'pkg', 'import'], ['pkg', 'main', 'evidence']]);
  const ref = arch.edges[1].evidence;
  const source = await fetch(`${t.url}/api/atlas/shop/source/${ref}`);
  assert.equal(await source.text(), 'app/py/pkg/tax.py:3-4\n    3  def compute_tax(amount):\n    4      return amount * RATE\n');
  const pkg = (await t.api('GET', '/api/atlas/shop/card/pkg')).body;
  assert.equal(pkg.source, 'survey');
  assert.equal(pkg.role, 'Computes tax from a fixed rate');
  assert.equal((await t.api('GET', `/api/atlas/shop/card/${pkg.hash}`)).body.unit, 'pkg');
  assert.ok(events.events.some((e) => e.kind === 'atlas.card.recorded' && e.unit === '.' && e.runId === runId));
  // Seed 000 §6: the published views are announced once the document holds them, before the build ends.
  const published = events.events.find((e) => e.kind === 'atlas.published' && e.atlas === 'shop');
  assert.ok(published, 'atlas.published was emitted');
  assert.equal(published.runId, runId);
  assert.deepEqual(published.views, ['arch', 'tax-flow']);
  assert.ok(published.seq < done.seq);
  const runs = (await t.api('GET', '/api/runs')).body;
  assert.ok(JSON.stringify(runs).includes(runId), 'the survey is a run in the ledger');
});

test('after a one-file edit only its unit is surveyed again; the other card is copied forward', async () => {
  const before = (await t.api('GET', '/api/atlas/shop/doc')).body;
  await writeFile(path.join(ws, 'app/py/pkg/rates.py'), 'RATE = 0.25\n');
  assert.deepEqual((await t.api('GET', '/api/atlas/shop')).body.stale, ['pkg']);
  const firstRequest = model.requests.length;
  model.script(
    { toolCalls: ['app/py/pkg/tax.py', 'app/py/pkg/rates.py', 'app/py/pkg/__init__.py'].map((p) => ({ name: 'read_file', args: { path: p } })) },
    { toolCalls: [{ name: 'record_card', args: card(['app/py/pkg/tax.py', 'app/py/pkg/rates.py', 'app/py/pkg/__init__.py'], 'Computes tax at 25 %') }] },
    { text: 'done' },
  );
  const done = await build('shop');
  assert.equal(done.kind, 'atlas.build.completed', String(done.error));
  const prompt = JSON.stringify(model.requests[firstRequest].body.messages);
  assert.match(prompt, /Changed units to survey[^"]*unit pkg/);
  assert.doesNotMatch(prompt, /- unit \. \(/);
  const doc = (await t.api('GET', '/api/atlas/shop/doc')).body;
  const py = doc.cards.find((c: any) => c.unit === '.');
  assert.equal(py.runId, before.cards.find((c: any) => c.unit === '.').runId, 'copied forward, not surveyed again');
  assert.equal(doc.cards.find((c: any) => c.unit === 'pkg').role, 'Computes tax at 25 %');
  assert.deepEqual((await t.api('GET', '/api/atlas/shop')).body.stale, []);
});

test('409 while building; the page; design with one retry', async () => {
  model.script({ hang: true });
  const seq = events.events.at(-1)?.seq ?? 0;
  assert.equal((await t.api('POST', '/api/atlas/shop/run')).status, 202);
  const again = await t.api('POST', '/api/atlas/shop/run');
  assert.equal(again.status, 409);
  const p = await t.api('GET', '/api/atlas/shop/progress');
  assert.equal(p.body.building, true);
  const started = await events.waitFor((e) => e.kind === 'run.started' && e.title === 'survey atlas shop' && e.seq > seq, 20_000);
  await model.waitForRequests(model.requests.length + 1).catch(() => undefined);
  await t.api('POST', `/api/runs/${started.runId}/stop`);
  await events.waitFor((e) => e.kind === 'atlas.build.failed' && e.atlas === 'shop', 20_000);
  const html = await (await fetch(`${t.url}/api/atlas/shop/doc`, { headers: { accept: 'text/html' } })).text();
  assert.match(html, /How tax is computed/);
  assert.match(html, /<ol class="steps">/);

  model.script({ text: '{"name": "Tax map", "scope": ["nope"], "views": [], "flows": [], "prompt": ""}' }, { text: '```json\n{"name": "Tax map", "scope": ["app/py"], "views": [{"id": "g", "kind": "graph", "title": "Main parts"}], "flows": [], "prompt": "tax"}\n```' });
  const d = await t.api('POST', '/api/atlas/design', { instruction: 'a map of how tax works' });
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.id, 'map-a-map-of-how-tax-works');
  assert.equal(d.body.id, d.body.definition.id);
  assert.deepEqual(d.body.definition.scope, ['app/py']);
  assert.match(JSON.stringify(model.requests.at(-1)!.body.messages), /scope \\"nope\\" is not a folder/);
});

test('a chat turn about an atlas gets its map and reads a card', async () => {
  const unknown = await t.api('POST', '/api/chat', { sessionId: 'a-none', message: 'hi', atlas: 'nowhere' });
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /no atlas "nowhere"/);
  const first = model.requests.length;
  model.script({ toolCalls: [{ id: 'rc1', name: 'read_card', args: { unit: 'pkg', atlas: 'shop' } }] }, { text: 'the tax package computes tax' });
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', '/api/chat', { sessionId: 'a-chat', message: 'what does pkg do?', atlas: 'shop' });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === 'a-chat' && e.seq > seq);
  const end = await events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed)$/.test(e.kind), 30_000);
  assert.equal(end.kind, 'run.completed', String(end.error));
  const system = JSON.stringify(model.requests[first].body.messages[0]);
  assert.match(system, /# Atlas \\"Shop\\" \(id shop\)/);
  assert.match(system, /- pkg \(3 files\): Computes tax at 25 %/);
  const reply = model.requests[first + 1].body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'rc1');
  assert.match(String(reply.content), /"role": "Computes tax at 25 %"/);
});

test('a scope of several folders: units by their folder path, imports across the folders, nodes named by files', async () => {
  await mkdir(path.join(ws, 'shopx/ledger'), { recursive: true });
  await mkdir(path.join(ws, 'shopx/nightly'), { recursive: true });
  await writeFile(path.join(ws, 'shopx/__init__.py'), '');
  await writeFile(path.join(ws, 'shopx/ledger/__init__.py'), 'def post(entry):\n    return entry\n');
  await writeFile(path.join(ws, 'shopx/nightly/__init__.py'), '');
  await writeFile(path.join(ws, 'shopx/nightly/run.py'), 'from ..ledger import post\n\npost({})\n');
  const put = await t.api('PUT', '/api/atlas/books', { name: 'Books', scope: ['shopx/ledger', 'shopx/nightly'], views: [{ id: 'g', kind: 'graph', title: 'Books' }], flows: [], prompt: '' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const files = ['shopx/ledger/__init__.py', 'shopx/nightly/__init__.py', 'shopx/nightly/run.py'];
  model.script(
    { toolCalls: files.map((p) => ({ name: 'read_file', args: { path: p } })) },
    { toolCalls: [{ name: 'record_card', args: card(['shopx/ledger/__init__.py'], 'Posts entries') }, { name: 'record_card', args: card(['shopx/nightly/__init__.py', 'shopx/nightly/run.py'], 'Posts every night', ['shopx/ledger']) }] },
    {
      toolCalls: [{
        name: 'publish_atlas',
        args: { views: [{ id: 'g', kind: 'graph', title: 'Books', nodes: [{ id: 'job', label: 'nightly job', files: ['shopx/nightly/run.py'] }, { id: 'ledger', label: 'ledger', files: ['shopx/ledger/__init__.py'] }], edges: [{ from: 'job', to: 'ledger' }] }] },
      }],
    },
    { text: 'done' },
  );
  const done = await build('books');
  assert.equal(done.kind, 'atlas.build.completed', String(done.error));
  assert.equal(String(results(String(done.runId), 'record_card')[1].result), 'card recorded: shopx/nightly');
  assert.equal(String(results(String(done.runId), 'publish_atlas')[0].result), 'view "g" accepted');
  const doc = (await t.api('GET', '/api/atlas/books/doc')).body;
  assert.deepEqual(doc.units.map((u: any) => u.id).sort(), ['shopx/ledger', 'shopx/nightly']);
  assert.deepEqual(doc.units.find((u: any) => u.id === 'shopx/nightly').files, ['shopx/nightly/__init__.py', 'shopx/nightly/run.py']);
  assert.deepEqual(doc.views[0].edges.map((e: any) => [e.from, e.to, e.kind]), [['shopx/nightly', 'shopx/ledger', 'import']]);
  assert.deepEqual(doc.views.find((v: any) => v.id === 'g').edges, [{ from: 'job', to: 'ledger', kind: 'import' }]);
});
