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

let t: TestEngine;
let ws: string;

export const FIXTURE: Record<string, string> = {
  'app/web/server.ts': "import { total } from '../core/cart.js';\nimport { log } from '../util/log.js';\nimport express from 'express';\nexport function serve() {\n  log('up');\n  return total([1, 2]);\n}\n",
  'app/web/routes.ts': "import { total } from '../core/cart.js';\nexport const routes = [total];\n",
  'app/core/cart.ts': "import { log } from '../util/log.js';\nexport function total(xs: number[]): number {\n  log('total');\n  return xs.reduce((a, b) => a + b, 0);\n}\n",
  'app/util/log.ts': 'export function log(msg: string): void {\n  console.log(msg);\n}\n',
  'app/py/pkg/__init__.py': '',
  'app/py/pkg/tax.py': 'from .rates import RATE\n\ndef compute_tax(amount):\n    return amount * RATE\n',
  'app/py/pkg/rates.py': 'RATE = 0.2\n_hidden = 1\n',
  'app/py/main.py': 'import json\nfrom pkg.tax import compute_tax\n\nif __name__ == "__main__":\n    print(compute_tax(10))\n',
  'app/go/go.mod': 'module example.com/shop\n\ngo 1.22\n',
  'app/go/main.go': 'package main\n\nimport (\n  "fmt"\n  "example.com/shop/store"\n)\n\nfunc main() {\n  fmt.Println(store.Count())\n}\n',
  'app/go/store/store.go': 'package store\n\nfunc Count() int { return helper() }\n\nfunc helper() int { return 3 }\n',
  'app/node_modules/express/index.js': 'module.exports = {};\n',
};

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
  await writeFile(path.join(ws, 'app/core/cart.ts'), FIXTURE['app/core/cart.ts'] + '// touched\n');
  const stale = await t.api('POST', '/api/atlas/standard', { scope: 'app' });
  assert.deepEqual(stale.body.stale, ['core']);
  const list = await t.api('GET', '/api/atlas');
  assert.equal(list.body.atlases.find((a: any) => a.id === 'std-app').stale, 1);
  // A rebuild takes the edit in and nothing is stale afterwards.
  assert.equal((await t.api('POST', '/api/atlas/std-app/run')).status, 202);
  for (let i = 0; i < 100 && (await t.api('GET', '/api/atlas/std-app/progress')).body.building; i++) await new Promise((r) => setTimeout(r, 50));
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
