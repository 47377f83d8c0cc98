/**
 * Every HTML answer says who may frame it (issue 39 §3): the workbench, the phone layout, the OAuth
 * landing page and every other HTML page, nobody (`frame-ancestors 'none'`, `X-Frame-Options:
 * DENY`); the dashboard and atlas pages, which the workbench frames itself, only the engine's own
 * origin (`frame-ancestors 'self'`, `SAMEORIGIN`). The policy is a header: in a <meta> tag browsers ignore it.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { webAppBuilt } from '../support/browser.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  webAppBuilt();
  const home = await tempDir();
  const at = new Date().toISOString();
  await mkdir(path.join(home, 'dashboards'), { recursive: true });
  await mkdir(path.join(home, 'dashboard-data', 'sales'), { recursive: true });
  await writeFile(path.join(home, 'dashboards', 'sales.json'), JSON.stringify({ name: 'Sales', layout: 1, slots: [{ id: 'n', title: 'N', type: 'stat' }], prompt: 'count' }));
  const document = { title: 'Sales', builtAt: at, runId: 'run-1-1', widgets: [{ id: 'n', type: 'stat', data: { value: 7 }, sources: [], runId: 'run-1-1' }] };
  await writeFile(path.join(home, 'dashboard-data', 'sales', 'doc.json'), JSON.stringify({ document, lastBuild: { runId: 'run-1-1', status: 'completed', at } }));
  t = await startTestEngine({ home, files: { watch: false } });
  await mkdir(path.join(t.home, 'workspace', 'src'), { recursive: true });
  await writeFile(path.join(t.home, 'workspace', 'src', 'a.ts'), 'export const a = 1;\n');
});
after(() => t?.close());

const html = (p: string) => fetch(t.url + p, { headers: { accept: 'text/html' } });

test('the workbench, the phone layout, the OAuth landing page and client routes may be framed by nobody', async () => {
  for (const p of ['/', '/m/', '/m', '/m/chat/s1', '/chat', '/approvals', '/oauth/callback/github?error=access_denied']) {
    const res = await html(p);
    assert.match(String(res.headers.get('content-type')), /^text\/html/, p);
    assert.match(String(res.headers.get('content-security-policy')), /frame-ancestors 'none'/, p);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', p);
    await res.arrayBuffer();
  }
});

test('the dashboard and atlas pages may be framed by the engine\'s own origin only, and keep their own policy', async () => {
  const atlas = await t.api('POST', '/api/atlas/standard', { scope: 'src' });
  assert.equal(atlas.status, 200, JSON.stringify(atlas.body));
  for (const p of ['/api/dashboards/sales/doc', `/api/atlas/${atlas.body.id}/doc`]) {
    const res = await html(p);
    assert.equal(res.status, 200, p);
    const csp = String(res.headers.get('content-security-policy'));
    assert.match(csp, /default-src 'none'/, p);
    // Both pages hold links: neither may take a <base> or post a form.
    assert.match(csp, /base-uri 'none'; form-action 'none'/, p);
    assert.match(csp, /frame-ancestors 'self'/, p);
    assert.doesNotMatch(csp, /frame-ancestors 'none'/, p);
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', p);
    await res.arrayBuffer();
  }
});
