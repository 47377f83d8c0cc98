/**
 * Issue 44 §2 through real headless Chromium and the paired extension: long pages (a query answers
 * the matching elements of the whole page with refs and context; a snapshot after a scroll starts at
 * the viewport and says what it left out; the cap line says how to reach the rest), living pages (an
 * action waits for what it started to settle, bounded, and says what was still pending), a ref never
 * issued answered as unknown, and the snapshot's thumbnail emitted after its answer. Playwright,
 * connected to the same browser, is the oracle for what the page shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { EmitPayload } from '../../src/kernel/bus.js';
import { allowAllGate } from '../../src/tools/types.js';
import type { TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';
import { FIXTURE, launchChromium, serveFixtures, startBridgeEngine, waitConnected, type Fixtures, type TestChromium } from './harness.js';
import { FRAME_NEEDLE, LIVING, longList } from './pages.js';

describe('the browser bridge on long and living pages', () => {
  let t: TestEngine;
  let fixtures: Fixtures;
  let chromium: TestChromium;
  const emitted: Array<{ kind: string; data: EmitPayload }> = [];
  let calls = 0;

  before(async () => {
    fixtures = await serveFixtures({
      '/long': longList(),
      '/frame-needle': FRAME_NEEDLE,
      '/living': LIVING,
      '/slow': () => new Promise((resolve) => setTimeout(() => resolve('from the server'), 250)),
      '/hang': () => new Promise(() => undefined),
    });
    t = await startBridgeEngine();
    chromium = await launchChromium((await t.api('GET', '/api/browser')).body.extensionPath, fixtures.port);
    await waitConnected(t);
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
    await fixtures?.close();
  });

  /** One tool call as a conversation makes it (its own session, so its own current tab); the text, or the error's. */
  async function call(name: string, args: Record<string, unknown>, callId = `c${++calls}`) {
    const ctx = { signal: new AbortController().signal, emit: (kind: string, data?: EmitPayload) => void emitted.push({ kind, data: data ?? {} }), attended: false, sessionId: 'long-living' };
    const out = await t.engine.tools.call({ callId, name, args }, ctx, { gate: allowAllGate });
    return { ok: !out.isError, text: out.text };
  }
  const page = async (path: string): Promise<Page> => {
    const found = chromium.context.pages().find((p) => p.url() === `${FIXTURE}${path}`);
    assert.ok(found, `no page at ${path}`);
    return found;
  };
  const refIn = (text: string, pattern: string) => {
    const m = new RegExp(`${pattern}[^\\n]*?\\[(e\\d+)\\]`).exec(text);
    assert.ok(m, `no ref for ${pattern} in:\n${text.slice(0, 2000)}`);
    return m[1];
  };

  it('a query answers the matching elements of the whole page with refs and context; the item is reached and clicked', async () => {
    const opened = await call('browser_navigate', { url: `${FIXTURE}/long` });
    assert.ok(opened.ok, opened.text);
    const top = await call('browser_snapshot', {});
    assert.match(top.text, /… \d+ more elements not shown below \(the outline is capped at 18000 characters; browser_snapshot with query \(text to look for\) finds any element of the whole page with its ref, or browser_scroll down/);
    assert.doesNotMatch(top.text, /Item 2150/, 'the outline does not reach it');

    const found = await call('browser_snapshot', { query: 'Item 2150' });
    assert.ok(found.ok, found.text);
    assert.match(found.text, /1 match for "Item 2150" in the whole page/);
    assert.match(found.text, /text "Item 2150" \[e\d+\] in "Item 2150 Open 2150"; near button "Open 2150" \[e\d+\]/);
    assert.ok(found.text.length < 800, `a short answer (${found.text.length} characters)`);
    const clicked = await call('browser_click', { ref: refIn(found.text, 'button "Open 2150"') });
    assert.match(clicked.text, /^clicked e\d+ \("Open 2150"\)/);
    assert.equal(await (await page('/long')).locator('li', { hasText: 'Item 2150 ' }).locator('button').textContent(), 'Opened 2150');

    const needles = await call('browser_snapshot', { query: 'NEEDLE' });
    assert.match(needles.text, /2 matches for "NEEDLE"/);
    assert.match(needles.text, /button "Shadow needle" \[e\d+\]/);
    assert.match(needles.text, /button "Frame needle" \[e\d+\]/);
    const none = await call('browser_snapshot', { query: 'no such words' });
    assert.match(none.text, /nothing in the page \(all frames and open shadow roots\) holds "no such words"/);
  });

  it('a snapshot after a scroll starts at the viewport and says what it left out above', async () => {
    const scrolled = await call('browser_scroll', { dy: 1_000_000 });
    assert.match(scrolled.text, /^scrolled to (\d+) of \1 px/);
    const bottom = await call('browser_snapshot', {});
    assert.match(bottom.text, /^Snapshot of tab \d+[^\n]*\n<<<page\npage "Long" from the viewport down \(scrolled to \d+ of \d+ px; (\d+) elements above not shown: browser_scroll up, or browser_snapshot with query/);
    assert.ok(Number(/; (\d+) elements above not shown/.exec(bottom.text)![1]) > 2000);
    assert.match(bottom.text, /text "Item 2399"/);
    assert.doesNotMatch(bottom.text, /text "Item 0"/);
    const clicked = await call('browser_click', { ref: refIn(bottom.text, 'button "Open 2399"') });
    assert.ok(clicked.ok, clicked.text);
    assert.equal(await (await page('/long')).locator('li', { hasText: 'Item 2399 ' }).locator('button').textContent(), 'Opened 2399');
    // Back at the top, the outline starts at the top again.
    await call('browser_scroll', { dy: -2_000_000 });
    assert.match((await call('browser_snapshot', { interactiveOnly: true })).text, /page "Long" \(interactive elements only\)\n- button "Open 0"/);
  });

  it('a ref never issued is unknown, not stale; one of an earlier page in the tab is stale, never an element of the new page', async () => {
    const r = await call('browser_click', { ref: 'e99999' });
    assert.equal(r.ok, false);
    assert.match(r.text, /e99999 is not a ref of the current snapshot of this page; take a snapshot/);
    assert.doesNotMatch(r.text, /stale/);

    const before = (await call('browser_snapshot', { interactiveOnly: true })).text;
    const old = refIn(before, 'button "Open 0"');
    const tabId = Number(/Snapshot of tab (\d+)/.exec(before)![1]);
    await call('browser_navigate', { url: `${FIXTURE}/living`, tabId });
    const after = (await call('browser_snapshot', { interactiveOnly: true })).text;
    const fresh = [...after.matchAll(/\[e(\d+)\]/g)].map((m) => Number(m[1]));
    assert.ok(fresh.length > 0 && Math.min(...fresh) > Number(old.slice(1)), `the new page's refs number on from the old page's:\n${after}`);
    const stale = await call('browser_click', { ref: old });
    assert.equal(stale.ok, false);
    assert.match(stale.text, new RegExp(`ref ${old} is stale: the page changed`));
  });

  it("the snapshot's thumbnail comes after its answer, in its browser.action event", async () => {
    const callId = 'thumb-after';
    const from = emitted.length;
    const r = await call('browser_snapshot', { interactiveOnly: true }, callId);
    assert.ok(r.ok);
    const action = await until('browser.action arrived', () => emitted.slice(from).find((e) => e.kind === 'browser.action' && e.data.callId === callId), 10_000);
    const jpeg = Buffer.from(String(action.data.thumbnail).replace(/^data:image\/jpeg;base64,/, ''), 'base64');
    assert.equal(jpeg.subarray(0, 2).toString('hex'), 'ffd8');
  });

  it('a click waits for what it started: a button added 200 ms later and a late fetch are in the next snapshot, every round', async () => {
    await call('browser_navigate', { url: `${FIXTURE}/living` });
    for (let round = 1; round <= 4; round++) {
      const snap = (await call('browser_snapshot', { interactiveOnly: true })).text;
      const clicked = await call('browser_click', { ref: refIn(snap, 'button "Later"') });
      assert.doesNotMatch(clicked.text, /not settled/, clicked.text);
      const next = (await call('browser_snapshot', { interactiveOnly: true })).text;
      assert.equal(next.match(/button "Arrived late"/g)?.length, round, `round ${round}:\n${next}`);
    }
    const snap = (await call('browser_snapshot', { interactiveOnly: true })).text;
    await call('browser_click', { ref: refIn(snap, 'button "Fetch"') });
    assert.match((await call('browser_snapshot', {})).text, /text "from the server"/);
  });

  it('the wait is bounded and says what was still pending: a request never answered, a page that keeps changing', async () => {
    const snap = (await call('browser_snapshot', { interactiveOnly: true })).text;
    const hang = await call('browser_click', { ref: refIn(snap, 'button "Hang"') });
    assert.ok(hang.ok, hang.text);
    assert.match(hang.text, /\(not settled after 1000 ms: 1 request in flight; browser_wait for what you expect\)$/);
    const tick = await call('browser_click', { ref: refIn(snap, 'button "Tick"') });
    assert.match(tick.text, /\(not settled after 1000 ms: the page still changing; browser_wait for what you expect\)$/);
    // Typing and pressing settle the same way (the counter still ticks).
    const pressed = await call('browser_press', { key: 'Escape' });
    assert.match(pressed.text, /^pressed Escape; the page is now "Living" at [^\n]+ \(not settled after 1000 ms: the page still changing/);
  });
});
