/**
 * The page outlives its engine: the engine stops and starts again on the same home and port; the
 * page says it is reconnecting, catches up by the seed's order and shows the new state with nothing
 * doubled (a run caught up from its log and then followed on the socket shows each event once).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

const gateFlow = (id: string, message: string) => ({
  id,
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: 'check', type: 'gate', config: { message } },
    { id: 'after', type: 'state', config: { key: 'done', value: 'yes' } },
  ],
  edges: [
    { from: 'start', to: 'check' },
    { from: 'check', to: 'after', when: 'approved' },
  ],
});

let home: string;
let t: TestEngine | undefined;
let b: TestBrowser;
before(async () => {
  home = await tempDir();
  b = await openBrowser();
});
after(async () => {
  await b?.close();
  await t?.close();
});

it('reconnects after the engine restarts, catches up, and applies nothing twice', async () => {
  t = await startTestEngine({ home });
  const port = t.engine.port;
  await t.api('PUT', '/api/workflows/before', gateFlow('before', 'Before the restart?'));
  await t.api('POST', '/api/runs/before', {});
  await b.page.goto(`${t.url}/approvals`);
  await b.page.waitForSelector('text=Before the restart?');
  await b.page.waitForSelector('[data-connection=live]');

  await t.close();
  t = undefined;
  await b.page.waitForSelector('[data-connection=offline]');
  await b.shot('reconnecting');

  t = await startTestEngine({ home, port });
  await t.api('PUT', '/api/workflows/after', gateFlow('after', 'After the restart?'));
  const run = await t.api('POST', '/api/runs/after', {});
  const runId: string = run.body.runId;
  await b.page.waitForSelector('[data-connection=live]', { timeout: 30_000 });
  // The gate of the dead engine is orphaned (not resolvable); the new one is there once.
  await b.page.waitForSelector('text=After the restart?');
  assert.equal(await b.page.locator('.gate').count(), 1);
  assert.equal(await b.page.locator('text=Before the restart?').count(), 0);

  // Follow the run: its log so far, then the socket's events after the approval.
  await b.page.click(`a[href="/runs/${runId}"]`);
  await b.page.click('[role=tab] >> text=Event log');
  await b.page.waitForSelector('tr[data-seq]');
  assert.equal((await t.api('POST', '/api/gates/resolve', { runId, nodeId: 'check', approved: true })).status, 200);
  await b.page.waitForSelector('tr >> text=run.completed');
  const log = (await t.api('GET', `/api/runs/${runId}/events`)).body.events;
  const shown = await b.page.locator('tr[data-seq]').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.seq)));
  assert.deepEqual(shown, log.map((e: { seq: number }) => e.seq), 'each event of the run once, in order');
  // The runs list holds each run once.
  const listed = await b.page.locator('.list-item').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.equal(new Set(listed).size, listed.length);
  assert.equal(listed.filter((h) => h === `/runs/${runId}`).length, 1);
  await b.shot('reconnected-run');
  assert.deepEqual(b.refused, []);
});

it('a socket dropped in the middle of a streaming answer: the replayed log and the live stream make the text once', async () => {
  const { startModelServer } = await import('../support/model-server.js');
  const model = await startModelServer();
  try {
    t ??= await startTestEngine({ home });
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'm' }], defaultProvider: 'scripted' });
    const words = Array.from({ length: 16 }, (_, i) => `w${i}`);
    model.script({ text: words.join(' '), delayMs: 150 });
    // The page's sockets, so the test can drop one (instrumentation of this test, not of the app).
    await b.page.addInitScript(() => {
      const Native = WebSocket;
      (window as any).__sockets = [];
      (window as any).WebSocket = class extends Native {
        constructor(url: string | URL, p?: string | string[]) {
          super(url, p);
          (window as any).__sockets.push(this);
        }
      };
    });
    await b.page.goto(`${t.url}/chat/streaming`);
    await b.page.waitForSelector('[data-connection=live]');
    await t.api('POST', '/api/chat', { sessionId: 'streaming', message: 'count' });
    await b.page.waitForSelector('[data-live] >> text=/w3/');
    const opened = await b.page.evaluate(() => (window as any).__sockets.length as number);
    await b.page.evaluate(() => (window as any).__sockets.at(-1).close());
    // The page opens a new socket and is live again. (Its offline mark can last less than a frame: on
    // a loaded machine a wait for it could miss it, so the test waits for the new socket instead.)
    await b.page.waitForFunction((n) => (window as any).__sockets.length > n, opened);
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.waitForSelector('[data-live] >> text=/w10/');
    const text = (await b.page.locator('[data-live] .msg-text').innerText()).trim();
    // Each word once and in order. (A word streamed between the log's read and the socket's opening
    // can be missing until the turn ends: the seed's order trades that for never doubling.)
    const seen = text.split(/\s+/).map((w) => Number(w.slice(1)));
    assert.ok(seen.every((n, i) => i === 0 || n > seen[i - 1]), `streamed once: ${text}`);
    await b.page.waitForSelector(`.msg.assistant >> text=${words.join(' ')}`);
  } finally {
    await model.close();
  }
});
