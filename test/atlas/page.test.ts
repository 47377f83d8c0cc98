/** The atlas page in real Chromium (playwright-core, Debian's chromium): every unit drawn and linked to its card; a screenshot. */
import assert from 'node:assert/strict';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openBrowser, SHOTS, type TestBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { FIXTURE } from './fixture.js';

let t: TestEngine;
let browser: TestBrowser;

before(async () => {
  t = await startTestEngine();
  for (const [rel, text] of Object.entries(FIXTURE)) {
    await mkdir(path.dirname(path.join(t.home, 'workspace', rel)), { recursive: true });
    await writeFile(path.join(t.home, 'workspace', rel), text);
  }
  browser = await openBrowser({ viewport: { width: 1280, height: 900 } });
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test('the page draws every unit as a node linked to its card, and a screenshot is taken', async () => {
  const brief = await t.api('POST', '/api/atlas/standard', { scope: 'app' });
  assert.equal(brief.status, 200);
  const res = await browser.page.goto(`${t.url}/api/atlas/std-app/doc`);
  assert.equal(res?.status(), 200);
  const nodes = await browser.page.$$eval('svg a.node', (as) => as.map((a) => a.getAttribute('href')));
  assert.equal(nodes.length, brief.body.document.units.length);
  for (const href of nodes) assert.equal(await browser.page.locator(String(href)).count(), 1, `${href} has a card`);
  assert.equal(await browser.page.$$eval('svg path.edge', (ps) => ps.length), brief.body.document.views[0].edges.length);
  const shot = await browser.shot('atlas-page');
  assert.ok((await stat(shot)).size > 10_000, 'the page drew more than a blank screen');
  assert.ok(shot.startsWith(SHOTS));
  assert.deepEqual(browser.errors, []);
});
