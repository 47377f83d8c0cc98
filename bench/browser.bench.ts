/**
 * The browser bridge (issue 29) in Debian's Chromium with the engine's extension loaded unpacked:
 *   pairing        from Chromium's launch to the extension holding /browser (nothing typed), beside
 *                  Chromium's own launch (until playwright has its first page)
 *   snapshot       browser_snapshot with interactiveOnly of a 5 000-element page: characters and the
 *                  browser's time, beside Playwright's own aria snapshot of the same page
 *   added time     per action, a browser_scroll through the tool registry minus the browser's own time
 *                  (browser.action's browserMs): what the engine and the socket add, beside that browser time
 *
 *   node --import tsx bench/browser.bench.ts
 */
import { performance } from 'node:perf_hooks';
import type { Emit } from '../src/kernel/bus.js';
import { launchChromium, serveFixtures, startBridgeEngine, waitConnected, FIXTURE } from '../test/browser/harness.js';
import { bigPage } from '../test/browser/pages.js';
import { fmt, median, result, table } from './lib/report.js';

const ROUNDS = 3;
const ACTIONS = 40;
const fixtures = await serveFixtures({ '/big': bigPage(5000) });
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
      ours.push(snap.browserMs);
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
    await chromium.close();

    table([
      { metric: 'paired after launch', engine: `${fmt(median(paired))} ms`, baseline: `${fmt(median(launch))} ms (Chromium launch alone)` },
      { metric: `snapshot, ${elements} elements, interactiveOnly`, engine: `${fmt(median(ours))} ms, ${fmt(chars)} chars`, baseline: `${fmt(median(theirs))} ms, ${fmt(ariaChars)} chars (Playwright aria snapshot, everything)` },
      { metric: 'engine time per action', engine: `${fmt(median(added), 2)} ms`, baseline: `${fmt(median(browserTime), 1)} ms (the browser's own work)` },
    ]);
    result('browser paired after Chromium starts (vs its launch alone)', 'ms', paired, launch, { under: 3000 });
    result(`browser snapshot of ${elements} elements, interactiveOnly (vs Playwright aria snapshot)`, 'ms', ours, theirs, { under: 300 });
    result('browser snapshot size, interactiveOnly (vs Playwright aria snapshot)', 'chars', chars, ariaChars, { under: 20_000 });
    result('browser engine time per action (vs the browser\'s own)', 'ms', added, browserTime, { under: 5 });
  }
} finally {
  await t.close();
  await fixtures.close();
}
