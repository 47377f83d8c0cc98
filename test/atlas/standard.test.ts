/**
 * The standard brief (no model) on a fixture repository in three languages: cards' files exist,
 * every edge joins two units and is a real import, the same scope twice answers the existing map,
 * a one-file edit marks exactly its unit stale, progress, cards by unit and hash, the HTML page.
 */
import assert from 'node:assert/strict';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';
import { FIXTURE } from './fixture.js';

let t: TestEngine;
let ws: string;


before(async () => {
  t = await startTestEngine();
  ws = path.join(t.home, 'workspace');
  for (const [rel, text] of Object.entries(FIXTURE)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
});
after(() => t.close());

test('the standard brief maps units, cards and import edges from the code alone', async () => {
  const res = await t.api('POST', '/api/atlas/standard', { scope: 'app' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.id, 'std-app');
  assert.equal(res.body.existing, false);
  const doc = res.body.document;
  const ids = doc.units.map((u: any) => u.id).sort();
  assert.deepEqual(ids, ['core', 'go', 'go/store', 'py', 'py/pkg', 'util', 'web']);
  for (const card of doc.cards) {
    for (const f of card.files) assert.ok((await stat(path.join(ws, f))).isFile(), `${f} of ${card.unit} exists`);
    assert.equal(card.source, 'code');
  }
  const edges = doc.views[0].edges.map((e: any) => `${e.from}->${e.to}`).sort();
  assert.deepEqual(edges, ['core->util', 'go->go/store', 'py->py/pkg', 'web->core', 'web->util']);
  for (const e of doc.views[0].edges) assert.equal(e.kind, 'import');
  const web = doc.cards.find((c: any) => c.unit === 'web');
  assert.deepEqual(web.dependencies.external, ['express']);
  assert.ok(web.publicSurface.includes('server.ts: serve'));
  const go = doc.cards.find((c: any) => c.unit === 'go');
  assert.deepEqual(go.entryPoints, ['app/go/main.go']);
  assert.deepEqual(go.dependencies.external, ['fmt']);
  const pkg = doc.cards.find((c: any) => c.unit === 'py/pkg');
  assert.ok(pkg.publicSurface.includes('tax.py: compute_tax'));
  assert.ok(pkg.internals.includes('rates.py: _hidden'));
  // util is imported most: it ranks above the units nothing imports.
  const rank = Object.fromEntries(doc.units.map((u: any) => [u.id, u.rank]));
  assert.ok(rank.util > rank.web && rank.core > rank.web, JSON.stringify(rank));
});

test('the same scope twice answers the existing map; a one-file edit marks exactly its unit stale', async () => {
  const first = (await t.api('GET', '/api/atlas/std-app/doc')).body;
  const again = await t.api('POST', '/api/atlas/standard', { scope: 'app' });
  assert.equal(again.body.existing, true);
  assert.deepEqual(again.body.stale, []);
  assert.equal(again.body.document.builtAt, first.builtAt);
  // An edit made outside the engine counts once the file watcher has heard it (staleness is kept
  // from file events, not worked out on every ask).
  await writeFile(path.join(ws, 'app/core/cart.ts'), FIXTURE['app/core/cart.ts'] + '// touched\n');
  await until('the outside edit to mark its unit stale', async () => (await t.api('GET', '/api/atlas/std-app')).body.stale.length > 0);
  const stale = await t.api('POST', '/api/atlas/standard', { scope: 'app' });
  assert.deepEqual(stale.body.stale, ['core']);
  const list = await t.api('GET', '/api/atlas');
  assert.equal(list.body.atlases.find((a: any) => a.id === 'std-app').stale, 1);
  // A rebuild takes the edit in and nothing is stale afterwards.
  const run = await t.api('POST', '/api/atlas/std-app/run');
  assert.equal(run.status, 202);
  assert.match(run.body.runId, /^run-/, 'a standard build is a run too, and the route answers it');
  await until('the atlas build to end', async () => !(await t.api('GET', '/api/atlas/std-app/progress')).body.building);
  const runs = JSON.stringify((await t.api('GET', '/api/runs')).body);
  assert.ok(runs.includes(run.body.runId) && runs.includes('brief atlas std-app'), 'the build is in the ledger');
  assert.deepEqual((await t.api('GET', '/api/atlas/std-app')).body.stale, []);
});

test('cards by unit id or content hash; progress; bad input gets a sentence', async () => {
  const doc = (await t.api('GET', '/api/atlas/std-app/doc')).body;
  const core = doc.cards.find((c: any) => c.unit === 'core');
  assert.equal((await t.api('GET', '/api/atlas/std-app/card/core')).body.hash, core.hash);
  assert.equal((await t.api('GET', `/api/atlas/std-app/card/${core.hash}`)).body.unit, 'core');
  assert.equal((await t.api('GET', `/api/atlas/std-app/card/${encodeURIComponent('go/store')}`)).body.unit, 'go/store');
  assert.equal((await t.api('GET', '/api/atlas/std-app/card/nowhere')).status, 404);
  const p = await t.api('GET', '/api/atlas/std-app/progress');
  assert.equal(p.body.phase, 'idle');
  assert.equal((await t.api('POST', '/api/atlas/standard', { scope: 'no/such/folder' })).status, 404);
  assert.match((await t.api("POST", "/api/atlas/standard", {})).body.error, /scope is required/);
  assert.equal((await t.api('GET', '/api/atlas/none')).status, 404);
});

test('the page: the graph drawn as SVG, nodes linked to their cards', async () => {
  const res = await fetch(`${t.url}/api/atlas/std-app/doc`, { headers: { accept: 'text/html' } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  const html = await res.text();
  assert.match(html, /<svg [^>]*role="img"/);
  assert.match(html, /<a href="#card-core" class="node">/);
  assert.match(html, /id="card-core"/);
  assert.doesNotMatch(html, /<script/);
});

test('atlas definitions are versioned: two saves, two versions, the first restorable', async () => {
  const def = (name: string) => ({ name, scope: ['app/core'], views: [], flows: [], prompt: '' });
  assert.equal((await t.api('PUT', '/api/atlas/versioned', def('First map'))).status, 200);
  assert.equal((await t.api('PUT', '/api/atlas/versioned', def('Second map'))).status, 200);
  const list = await t.api('GET', '/api/history/atlas/versioned');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.deepEqual(list.body.versions.map((v: any) => v.version), [2, 1]);
  assert.match((await t.api('GET', '/api/history/atlas/versioned/1')).body.content, /"name": "First map"/);
  const restored = await t.api('POST', '/api/history/atlas/versioned/1/restore');
  assert.equal(restored.status, 200, JSON.stringify(restored.body));
  assert.equal((await t.api('GET', '/api/atlas/versioned')).body.definition.name, 'First map');
  assert.equal((await t.api('GET', '/api/history/atlas/versioned')).body.versions.length, 3);
});

test('an atlas definition file edited by hand is seen without a restart, listed with its error while it does not parse', async () => {
  const file = path.join(t.home, 'atlas', 'handmade.json');
  await writeFile(file, '{"name": "Hand", nonsense');
  const bad = (await t.api('GET', '/api/atlas')).body.atlases.find((a: any) => a.id === 'handmade');
  assert.match(bad.error, /^atlas\/handmade\.json does not parse/);
  await writeFile(file, JSON.stringify({ id: 'handmade', name: 'Hand', scope: ['app/util'], views: [], flows: [], prompt: '' }));
  assert.equal((await t.api('GET', '/api/atlas')).body.atlases.find((a: any) => a.id === 'handmade').name, 'Hand');
  assert.deepEqual((await t.api('GET', '/api/atlas/handmade')).body.definition.scope, ['app/util']);
});
