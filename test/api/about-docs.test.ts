/** Issue 10 items 10 and 14: the engine says what it is at / and /api; the docs stand on their own. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { engineVersion } from '../../src/kernel/version.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { REPO_ROOT } from '../support/process.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine({ files: { watch: false } });
});
after(() => t.close());

test('GET / and GET /api answer the name, the version and links that work', async () => {
  for (const route of ['/', '/api', '/api/']) {
    const r = await t.api('GET', route);
    assert.equal(r.status, 200, route);
    assert.deepEqual(r.body, {
      name: 'Workbench Engine',
      version: engineVersion(),
      links: { openapi: '/api/openapi.json', events: '/events', status: '/api/status', docs: '/api/docs' },
    });
  }
  assert.equal((await t.api('GET', '/api/openapi.json')).status, 200);
  const pages = (await t.api('GET', '/api/docs')).body.pages as Array<{ name: string; url: string }>;
  assert.ok(pages.some((p) => p.name === 'README') && pages.some((p) => p.name === 'api'));
  const page = await fetch(t.url + '/api/docs/api');
  assert.match(page.headers.get('content-type') ?? '', /^text\/markdown/);
  assert.match(await page.text(), /^# The HTTP API/);
  assert.equal((await t.api('GET', '/api/docs/..%2Fpackage.json')).status, 404);
  assert.equal((await t.api('GET', '/api/status')).body.version, engineVersion());
  assert.match(engineVersion(), /^\d+\.\d+\.\d+/);
});

const docs = ['README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

test('README and docs send no reader to files they do not have', () => {
  const problems: string[] = [];
  for (const file of docs) {
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const m of text.matchAll(/seeds?\/\d+|seed \d{3}|seed §|\bthe seeds?\b|\/work\/shared/gi)) problems.push(`${file}: "${m[0]}"`);
    for (const m of text.matchAll(/ARCHITECTURE\.md/g)) problems.push(`${file}: "${m[0]}" (the shared plan, not in this repository)`);
    for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue; // a URL
      if (!existsSync(path.resolve(path.dirname(path.join(REPO_ROOT, file)), target))) problems.push(`${file}: link to ${target}, which does not exist`);
    }
  }
  assert.deepEqual(problems, []);
});

test('docs/api.md has a request example for every route group of the OpenAPI document', async () => {
  const doc = (await t.api('GET', '/api/openapi.json')).body;
  const examples = readFileSync(path.join(REPO_ROOT, 'docs/api.md'), 'utf8').split('## Examples for every route group')[1] ?? '';
  const byTag = new Map<string, string[]>();
  for (const [p, ops] of Object.entries<any>(doc.paths)) {
    for (const op of Object.values<any>(ops)) for (const tag of op.tags) byTag.set(tag, [...(byTag.get(tag) ?? []), p]);
  }
  const literal = (p: string) => p.replace(/\{[^}]+\}.*$/, '');
  const missing = [...byTag].filter(([, paths]) => !paths.some((p) => examples.includes(`$E${literal(p)}`))).map(([tag]) => tag);
  assert.deepEqual(missing, [], 'route groups without an example in docs/api.md');
});
