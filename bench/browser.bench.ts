/**
 * The browser bridge (issue 29) in Debian's Chromium with the engine's extension loaded unpacked:
 *   pairing        from Chromium's launch to the extension holding /browser (nothing typed), beside
 *                  Chromium's own launch (until playwright has its first page)
 *   snapshot       browser_snapshot with interactiveOnly of a 5 000-element page: characters and the
 *                  time until the tool has its answer (the thumbnail follows it, issue 44 §2), beside
 *                  Playwright's own aria snapshot of the same page
 *   query          browser_snapshot with query for item 2150 of a 2 400-item list (issue 44 §2):
 *                  characters and time of the answer, beside the plain outline of the same page (capped,
 *                  which does not reach the item; Playwright MCP's browser_find answered in 402 chars)
 *   added time     per action, a browser_scroll through the tool registry minus the browser's own time
 *                  (browser.action's browserMs): what the engine and the socket add, beside that browser time
 *
 *   node --import tsx bench/browser.bench.ts
 */
import { performance } from 'node:perf_hooks';
import type { Emit } from '../src/kernel/bus.js';
import { launchChromium, serveFixtures, startBridgeEngine, waitConnected, FIXTURE } from '../test/browser/harness.js';
import { bigPage, longList } from '../test/browser/pages.js';
import { fmt, median, result, table } from './lib/report.js';

const ROUNDS = 3;
const ACTIONS = 40;
const fixtures = await serveFixtures({ '/big': bigPage(5000), '/long': longList() });
const t = await startBridgeEngine();
const folder = (await t.api('GET', '/api/browser')).body.extensionPath;
const ctx = (emit: Emit) => ({ signal: new AbortController().signal, emit, attended: false });
let n = 0;
async function call(name: string, args: Record<string, unknown>) {
  let action: Record<string, unknown> | undefined;
  const started = performance.now();
  const out = await t.engine.tools.call({ callId: `b${++n}`, name, args }, ctx((kind, payload) => void (kind === 'browser.action' && (action = payload as Record<string, unknown>))));
  const total = performance.now() - started;
  if (out.isError) throw new Error(`${name}: ${out.text}`);
  return { text: out.text, total, browserMs: Number(action?.browserMs ?? 0) };
}

try {
  const launch: number[] = [];
  const paired: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const chromium = await launchChromium(folder, fixtures.port);
    launch.push(performance.now() - started);
    await waitConnected(t, true, 30_000);
    paired.push(performance.now() - started);
    if (round < ROUNDS - 1) {
      await chromium.close();
      await waitConnected(t, false);
      continue;
    }

    await call('browser_navigate', { url: `${FIXTURE}/big` });
    const page = chromium.context.pages().find((p) => p.url().endsWith('/big'))!;
    const elements = await page.evaluate(() => document.querySelectorAll('body *').length);
    const ours: number[] = [];
    const theirs: number[] = [];
    let chars = 0;
    let ariaChars = 0;
    for (let i = 0; i < 5; i++) {
      const snap = await call('browser_snapshot', { interactiveOnly: true });
      ours.push(snap.total);
      chars = snap.text.length;
      const s = performance.now();
      ariaChars = (await page.locator('body').ariaSnapshot()).length;
      theirs.push(performance.now() - s);
    }
    const added: number[] = [];
    const browserTime: number[] = [];
    for (let i = 0; i < ACTIONS; i++) {
      const r = await call('browser_scroll', { dy: i % 2 ? 200 : -200 });
      if (i >= 5) {
        added.push(r.total - r.browserMs);
        browserTime.push(r.browserMs);
      }
    }
    await call('browser_navigate', { url: `${FIXTURE}/long` });
    const found: number[] = [];
    const outline: number[] = [];
    let foundChars = 0;
    let outlineChars = 0;
    for (let i = 0; i < 5; i++) {
      const q = await call('browser_snapshot', { query: 'Item 2150' });
      if (!/Open 2150/.test(q.text)) throw new Error(`the query did not find the item: ${q.text}`);
      found.push(q.total);
      foundChars = q.text.length;
      const o = await call('browser_snapshot', {});
      outline.push(o.total);
      outlineChars = o.text.length;
    }
    await chromium.close();

    table([
      { metric: 'query "Item 2150", 2 400-item list', engine: `${fmt(median(found))} ms, ${fmt(foundChars)} chars (finds it)`, baseline: `${fmt(median(outline))} ms, ${fmt(outlineChars)} chars (plain outline, capped: does not reach it)` },
      { metric: 'paired after launch', engine: `${fmt(median(paired))} ms`, baseline: `${fmt(median(launch))} ms (Chromium launch alone)` },
      { metric: `snapshot, ${elements} elements, interactiveOnly`, engine: `${fmt(median(ours))} ms to the answer, ${fmt(chars)} chars`, baseline: `${fmt(median(theirs))} ms, ${fmt(ariaChars)} chars (Playwright aria snapshot, everything)` },
      { metric: 'engine time per action', engine: `${fmt(median(added), 2)} ms`, baseline: `${fmt(median(browserTime), 1)} ms (the browser's own work)` },
    ]);
    result('browser paired after Chromium starts (vs its launch alone)', 'ms', paired, launch, { under: 3000 });
    result(`browser snapshot of ${elements} elements, interactiveOnly (vs Playwright aria snapshot)`, 'ms', ours, theirs, { under: 300 });
    result('browser snapshot size, interactiveOnly (vs Playwright aria snapshot)', 'chars', chars, ariaChars, { under: 20_000 });
    result('browser snapshot query on a 2 400-item list (vs the plain outline)', 'chars', foundChars, outlineChars, { under: 1000 });
    result('browser engine time per action (vs the browser\'s own)', 'ms', added, browserTime, { under: 5 });
  }
} finally {
  await t.close();
  await fixtures.close();
}
