/**
 * The web workbench in Debian's Chromium against a local engine, each number beside a baseline:
 *   initial JS     gzipped bytes of the scripts the workbench's page loads first, beside the
 *                  framework alone (Preact + signals rendering one line, built the same way)
 *   first paint    first-contentful-paint of the workbench served by the engine (fresh profile a
 *                  round), beside a bare static page from a plain node:http server
 *   long session   the page's own chat-paint measure (open -> first frame of the list) of a 1 000-
 *                  message session, beside a 10-message one; with the rows it mounted
 *   heap           JS heap after visiting 50 sessions of 40 messages (forced GC, CDP
 *                  Runtime.getHeapUsage), beside the same page right after it loaded
 *
 *   node --import tsx bench/web.bench.ts     (needs npm run build:web first)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import preact from '@preact/preset-vite';
import { openBrowser } from '../test/support/browser.js';
import { writeChatSession } from '../test/support/chat-fixture.js';
import { startTestEngine, tempDir } from '../test/support/engine.js';
import { packageRoot } from '../src/kernel/version.js';
import { fmt, median, result, table } from './lib/report.js';

const ROUNDS = 5;
const root = packageRoot();
const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

/** The scripts an HTML page loads before anything else: its module entry and modulepreloads. */
function initialScripts(dir: string, html: string): number {
  const srcs = [...html.matchAll(/<script[^>]+src="([^"]+)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1]);
  return srcs.reduce((sum, s) => sum + gz(path.join(dir, s)), 0);
}

async function frameworkFloor(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-web-floor-'));
  try {
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="app"></div><script type="module" src="/main.tsx"></script>');
    writeFileSync(path.join(dir, 'main.tsx'), "import { render } from 'preact';\nimport { signal } from '@preact/signals';\nconst n = signal(0);\nrender(<button onClick={() => n.value++}>clicked {n}</button>, document.getElementById('app')!);\n");
    await build({ root: dir, logLevel: 'silent', plugins: [preact()], resolve: { alias: { preact: path.join(root, 'node_modules/preact'), '@preact/signals': path.join(root, 'node_modules/@preact/signals') } }, build: { outDir: path.join(dir, 'dist'), target: 'es2022' } });
    return initialScripts(path.join(dir, 'dist'), readFileSync(path.join(dir, 'dist', 'index.html'), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const web = path.join(root, 'dist', 'web');
const appJs = initialScripts(web, readFileSync(path.join(web, 'index.html'), 'utf8'));
const floorJs = await frameworkFloor();

const home = await tempDir('bench-web-');
await writeChatSession(home, 'long', 500, 'long');
await writeChatSession(home, 'short', 5, 'short');
for (let i = 0; i < 50; i++) await writeChatSession(home, `visit-${String(i).padStart(2, '0')}`, 20, `visit ${i}`);
const t = await startTestEngine({ home });
const bare = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>bare</title><h1>Hello</h1>'));
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;

async function firstPaint(url: string, ready: string): Promise<number> {
  const b = await openBrowser();
  try {
    await b.page.goto(url);
    await b.page.waitForSelector(ready);
    // A string, not a function: tsx would wrap the inner arrow in a helper the page does not have.
    return await b.page.evaluate(`new Promise((resolve) => {
      const fcp = () => performance.getEntriesByName('first-contentful-paint')[0];
      if (fcp()) return resolve(fcp().startTime);
      new PerformanceObserver(() => fcp() && resolve(fcp().startTime)).observe({ type: 'paint', buffered: true });
    })`);
  } finally {
    await b.close();
  }
}

async function chatPaint(session: string): Promise<{ ms: number; rows: number }> {
  const b = await openBrowser();
  try {
    await b.page.goto(`${t.url}/chat`);
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.click(`a[href="/chat/${session}"]`);
    await b.page.waitForFunction(() => performance.getEntriesByName('chat-paint').length > 0);
    const ms = await b.page.evaluate(() => performance.getEntriesByName('chat-paint').at(-1)!.duration);
    return { ms, rows: await b.page.locator('[data-row]').count() };
  } finally {
    await b.close();
  }
}

try {
  const appPaint: number[] = [];
  const barePaint: number[] = [];
  const longPaint: number[] = [];
  const shortPaint: number[] = [];
  let rows = 0;
  for (let i = 0; i < ROUNDS; i++) {
    appPaint.push(await firstPaint(`${t.url}/`, '.rail'));
    barePaint.push(await firstPaint(bareUrl, 'h1'));
    const long = await chatPaint('long');
    longPaint.push(long.ms);
    rows = Math.max(rows, long.rows);
    shortPaint.push((await chatPaint('short')).ms);
  }

  // Heap: one page, 50 sessions visited through the sessions list, GC forced before each reading.
  const b = await openBrowser();
  const cdp = await b.context.newCDPSession(b.page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    return (await cdp.send('Runtime.getHeapUsage')).usedSize / 1e6;
  };
  await b.page.goto(`${t.url}/chat`);
  await b.page.waitForSelector('[data-connection=live]');
  const loaded = await heap();
  for (let i = 0; i < 50; i++) {
    const id = `visit-${String(i).padStart(2, '0')}`;
    await b.page.click(`a[href="/chat/${id}"]`);
    await b.page.waitForSelector(`[data-row="${id}-a19"]`);
  }
  const visited = await heap();
  await b.close();

  table([
    { metric: 'initial JS (gzip)', workbench: `${fmt(appJs / 1024, 1)} kB`, baseline: `${fmt(floorJs / 1024, 1)} kB (Preact + signals alone)` },
    { metric: 'first contentful paint', workbench: `${fmt(median(appPaint), 0)} ms`, baseline: `${fmt(median(barePaint), 0)} ms (bare static page)` },
    { metric: 'chat paint', workbench: `${fmt(median(longPaint), 0)} ms, 1 000 msgs, ${rows} rows mounted`, baseline: `${fmt(median(shortPaint), 0)} ms, 10 msgs` },
    { metric: 'JS heap', workbench: `${fmt(visited, 1)} MB after 50 sessions`, baseline: `${fmt(loaded, 1)} MB just loaded` },
  ]);
  result('web initial JS gzipped', 'kB', appJs / 1024, floorJs / 1024, { under: 100 });
  result('web first paint (vs a bare static page)', 'ms', appPaint, barePaint, { under: 500 });
  result(`web 1 000-message session paint, ${rows} rows mounted (vs 10 messages)`, 'ms', longPaint, shortPaint, { under: 1000 });
  result('web page heap after 50 sessions (vs just loaded)', 'MB', visited, loaded, { under: 100 });
} finally {
  await t.close();
  bare.close();
}
