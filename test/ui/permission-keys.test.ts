/**
 * Issue 38 §3 in the page: a permission card lists every rule its "Always allow" saves, and the
 * answer saves those and nothing else. A new user's `echo hi; sleep 0; uname` asks once for three
 * keys; the card (Approvals, the same card chat and the phone show) names all three, and clicking
 * "Always allow all 3" saves exactly them. Real Chromium, the built web app, a real engine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { backgroundCall, requested } from '../permissions/gate-support.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';

let t: TestEngine;
let b: TestBrowser;
let events: EventCollector;

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
  b = await openBrowser();
});
after(async () => {
  await b?.close();
  events?.close();
  await t?.close();
});

test('the card lists each key "Always allow" saves, and saves exactly those', async () => {
  const keys = ['run_shell(echo:*)', 'run_shell(sleep:*)', 'run_shell(uname:*)'];
  const c = backgroundCall(t, 'run_shell', { command: 'echo hi; sleep 0; uname' });
  await events.waitFor(requested(c.callId));
  await b.page.goto(`${t.url}/approvals`);
  const card = await b.page.waitForSelector(`.prompt[data-call="${c.callId}"]`);
  const text = await card.innerText();
  for (const key of keys) assert.ok(text.includes(key), `the card shows ${key}: ${text}`);
  assert.match(text, /Always allow saves 3 rules/);
  await b.shot('permission-keys');
  await b.page.click(`.prompt[data-call="${c.callId}"] .prompt-actions >> text=Always allow all 3`);
  const out = await c.outcome;
  assert.equal(out.isError, false, out.text);
  assert.deepEqual((await t.api('GET', '/api/permissions')).body.rules.map((r: { key: string }) => r.key), keys);
  await c.done();

  // One key left to ask for: the card names it, and "Always allow" saves it alone.
  const d = backgroundCall(t, 'run_shell', { command: 'echo hi; whoami' });
  await events.waitFor(requested(d.callId));
  const one = await b.page.waitForSelector(`.prompt[data-call="${d.callId}"]`);
  assert.match(await one.innerText(), /Always allow saves the rule run_shell\(whoami:\*\)/);
  await b.page.click(`.prompt[data-call="${d.callId}"] .prompt-actions >> text=Always allow`);
  assert.equal((await d.outcome).isError, false);
  assert.deepEqual((await t.api('GET', '/api/permissions')).body.rules.map((r: { key: string }) => r.key), ['run_shell(whoami:*)', ...keys]);
  await d.done();
  assert.deepEqual(b.refused, []);
  assert.deepEqual(b.errors, []);
});
