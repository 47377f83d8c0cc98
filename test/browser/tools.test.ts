/**
 * The 13 browser tools through chat turns with the scripted model (Anthropic wire, so the screenshot's
 * image block is visible in the model's next request), driving real headless Chromium through the
 * paired extension. Playwright, connected to the same browser, is the oracle for what the page shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import type { TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';
import { startModelServer, type ModelServer, type ScriptToolCall } from '../support/model-server.js';
import { FIXTURE, FIXTURE_HOST, launchChromium, serveFixtures, startBridgeEngine, waitConnected, type Fixtures, type TestChromium } from './harness.js';
import { bigPage, FRAME, NEXT, SHOP } from './pages.js';

const BROWSER_TOOLS = ['browser_tabs', 'browser_navigate', 'browser_snapshot', 'browser_click', 'browser_type', 'browser_press', 'browser_select', 'browser_scroll', 'browser_screenshot', 'browser_evaluate', 'browser_back', 'browser_wait', 'browser_close'];

describe('browser tools in chat', () => {
  let t: TestEngine;
  let model: ModelServer;
  let events: EventCollector;
  let fixtures: Fixtures;
  let chromium: TestChromium;
  let session = 0;

  before(async () => {
    fixtures = await serveFixtures({ '/': SHOP, '/frame': FRAME, '/next': NEXT, '/big': bigPage(5000) });
    model = await startModelServer();
    t = await startBridgeEngine();
    const put = await t.api('PUT', '/api/config', { providers: [{ type: 'anthropic', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test-key-123' }], defaultProvider: 'scripted' });
    assert.equal(put.status, 200);
    events = await collectEvents(t.url);
  });
  after(async () => {
    events.close();
    await chromium?.close();
    await t.close();
    await model.close();
    await fixtures.close();
  });

  /**
   * One chat turn: each call is one model step, then a closing text. Prompts are answered by
   * `answer` (default: allow once). Returns the turn's tool results in order.
   */
  async function turn(calls: ScriptToolCall[], options: { mode?: 'ask' | 'allow'; answer?: (e: EngineEvent) => 'once' | 'always' | 'deny'; oneStep?: boolean } = {}) {
    const sessionId = `b-${++session}`;
    if (options.oneStep) model.script({ toolCalls: calls }, { text: 'done' });
    else model.script(...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' });
    const seq = events.events.at(-1)?.seq ?? 0;
    const answered = new Set<string>();
    const res = await t.api('POST', '/api/chat', { sessionId, message: 'use the browser', permissionMode: options.mode ?? 'allow' });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 30_000);
    const prompts: EngineEvent[] = [];
    for (;;) {
      const next = await events.waitFor((e) => e.runId === started.runId && ((e.kind === 'permission.requested' && !answered.has(e.callId as string)) || /^run\.(completed|failed|stopped)$/.test(e.kind)), 60_000);
      if (next.kind !== 'permission.requested') {
        assert.equal(next.kind, 'run.completed', JSON.stringify(next));
        break;
      }
      answered.add(next.callId as string);
      prompts.push(next);
      const decision = options.answer?.(next) ?? 'once';
      await t.api('POST', '/api/permissions/resolve', { runId: started.runId, callId: next.callId, decision: decision === 'deny' ? 'deny' : 'allow', scope: decision === 'always' ? 'always' : 'once' });
    }
    const results = events.events.filter((e) => e.kind === 'tool.result' && e.runId === started.runId);
    // A snapshot's browser.action (its thumbnail) follows its result: wait for those of the snapshots that answered.
    for (const result of results.filter((x) => x.tool === 'browser_snapshot' && x.ok)) await events.waitFor((e) => e.kind === 'browser.action' && e.callId === result.callId, 30_000);
    const actions = events.events.filter((e) => e.kind === 'browser.action' && e.runId === started.runId);
    return { results, prompts, actions, text: (i: number) => String(results[i]?.result ?? ''), runId: started.runId };
  }

  const shopPage = (): Promise<Page> => until('a fixture page open', () => chromium.context.pages().find((p) => p.url().startsWith(FIXTURE)), 5_000);

  it('without a paired extension: every tool answers not connected, is withheld from the model and listed unavailable', async () => {
    const tools = (await t.api('GET', '/api/tools')).body;
    const list: Array<{ name: string; available: boolean; group: string }> = Array.isArray(tools) ? tools : tools.tools;
    const browser = list.filter((x) => x.group === 'browser');
    assert.deepEqual(browser.map((x) => x.name).sort(), [...BROWSER_TOOLS].sort());
    assert.ok(browser.every((x) => x.available === false));
    const before = model.requests.length;
    const r = await turn(BROWSER_TOOLS.map((name) => ({ name, args: name === 'browser_navigate' ? { url: `${FIXTURE}/` } : name === 'browser_click' || name === 'browser_select' ? { ref: 'e1', value: 'x' } : name === 'browser_type' ? { text: 'x' } : name === 'browser_press' ? { key: 'a' } : name === 'browser_evaluate' ? { expression: '1' } : {} })));
    assert.equal(r.results.length, 13);
    for (const result of r.results) {
      assert.equal(result.ok, false);
      assert.match(String(result.result), /^not connected/, `${result.tool}: ${result.result}`);
    }
    const offered = (model.requests[before].body.tools ?? []).map((x: { name: string }) => x.name);
    assert.ok(offered.length > 0 && !offered.some((n: string) => n.startsWith('browser_')), 'withheld from the model');
  });

  describe('paired', () => {
    before(async () => {
      chromium = await launchChromium((await t.api('GET', '/api/browser')).body.extensionPath, fixtures.port);
      await waitConnected(t);
    });

    it('browser_navigate passes the URL floor first, then asks per host; an always answer covers the host', async () => {
      const floor = await turn([{ name: 'browser_navigate', args: { url: `http://127.0.0.1:${fixtures.port}/` } }], { mode: 'ask' });
      assert.equal(floor.prompts.length, 0, 'a floored URL is never offered to a person');
      assert.match(floor.text(0), /the engine does not fetch .*loopback/);
      const first = await turn([{ name: 'browser_navigate', args: { url: `${FIXTURE}/` } }], { mode: 'ask', answer: () => 'always' });
      assert.equal(first.prompts.length, 1);
      assert.equal(first.prompts[0].key, `browser_navigate(${FIXTURE_HOST})`);
      assert.match(first.text(0), /shows "Shop" at http:\/\/shop\.example\.test\//);
      const tabId = Number(/tab (\d+)/.exec(first.text(0))![1]);
      const again = await turn([{ name: 'browser_navigate', args: { url: `${FIXTURE}/`, tabId } }], { mode: 'ask' });
      assert.equal(again.prompts.length, 0, 'the host is allowed now');
      assert.equal(again.results[0].ok, true);
      const model_ = model.requests.at(-1)!.body.tools.map((x: { name: string }) => x.name);
      assert.ok(BROWSER_TOOLS.every((n) => model_.includes(n)), 'the tools appear once paired');
    });

    it('browser_snapshot: refs on interactive elements, open shadow roots and same-origin iframes included, matching Playwright\'s aria snapshot', async () => {
      const r = await turn([{ name: 'browser_snapshot', args: { interactiveOnly: true } }, { name: 'browser_snapshot', args: {} }]);
      const outline = r.text(0);
      assert.match(outline, /untrusted page content/);
      const ours = [...outline.matchAll(/- (\w+) "([^"]*)"[^\n]*\[(e\d+)\]/g)].map((m) => `${m[1]} "${m[2]}"`);
      const page = await shopPage();
      const aria = (await page.locator('body').ariaSnapshot()) + '\n' + (await page.frameLocator('iframe').locator('body').ariaSnapshot());
      const theirs = [...aria.matchAll(/- (link|button|textbox|combobox) "([^"]*)"/g)].map((m) => `${m[1]} "${m[2]}"`);
      assert.deepEqual([...ours].sort(), [...theirs].sort(), `ours:\n${outline}\n\nPlaywright:\n${aria}`);
      assert.ok(ours.includes('button "Shadow button"') && ours.includes('button "Frame button"'));
      assert.doesNotMatch(outline, /Bottom of the shop/, 'interactiveOnly leaves text out');
      assert.match(r.text(1), /text "Bottom of the shop"/);
      assert.match(r.text(1), /heading "Shop" \(level=1\)/);
    });

    // The first ref after the label (a query line names nearby elements with their refs after it).
    const refOf = (outline: string, label: string) => new RegExp(`"${label}"[^\\n]*?\\[(e\\d+)\\]`).exec(outline)![1];

    it('browser_click, browser_type, browser_select, browser_press act on the page; a password field is refused', async () => {
      const snap = (await turn([{ name: 'browser_snapshot', args: { interactiveOnly: true } }])).text(0);
      const r = await turn([
        { name: 'browser_click', args: { ref: refOf(snap, 'Add to cart') } },
        { name: 'browser_click', args: { ref: refOf(snap, 'Shadow button') } },
        { name: 'browser_click', args: { ref: refOf(snap, 'Frame button') } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Name'), text: 'Ann Lee' } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Password'), text: 'hunter2' } },
        { name: 'browser_select', args: { ref: refOf(snap, 'Size'), value: 'Medium' } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Name'), text: 'Bo', clear: true } },
        { name: 'browser_press', args: { key: 'Tab' } },
      ]);
      assert.match(r.text(0), /^clicked e\d+ \("Add to cart"\)/);
      assert.match(r.text(3), /^typed 7 characters into e\d+ \("Name"\)/);
      assert.equal(r.results[4].ok, false);
      assert.match(r.text(4), /refused: e\d+ is a password field/);
      assert.match(r.text(5), /selected "Medium"/);
      assert.match(r.text(7), /pressed Tab/);
      const page = await shopPage();
      assert.equal(await page.textContent('#add'), 'Added');
      assert.equal(await page.locator('#host button').textContent(), 'Shadow clicked');
      assert.equal(await page.frameLocator('iframe').locator('button').textContent(), 'Frame clicked');
      assert.equal(await page.inputValue('#name'), 'Bo');
      assert.equal(await page.inputValue('#pw'), '', 'nothing was typed into the password field');
      assert.equal(await page.inputValue('#size'), 'm');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'pw', 'Tab moved the focus from Name');
      // Every action emitted browser.action with a small JPEG thumbnail.
      assert.equal(r.actions.length, 7, 'the refused call acted on nothing');
      for (const a of r.actions) {
        const jpeg = Buffer.from(String(a.thumbnail).replace(/^data:image\/jpeg;base64,/, ''), 'base64');
        assert.equal(jpeg.subarray(0, 2).toString('hex'), 'ffd8', `${a.tool} carries a JPEG thumbnail`);
        assert.ok(jpeg.length < 40_000, `a small thumbnail (${jpeg.length} bytes)`);
      }
    });

    it('browser_type refuses a password field by its type, a card field by its autocomplete, and a card number wherever it would go', async () => {
      const snap = (await turn([{ name: 'browser_snapshot', args: { interactiveOnly: true } }])).text(0);
      const r = await turn([
        { name: 'browser_type', args: { ref: refOf(snap, 'Login'), text: 'hunter2' } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Number'), text: '12' } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Note'), text: 'pay with 4111 1111 1111 1111' } },
        { name: 'browser_type', args: { ref: refOf(snap, 'Note'), text: 'order 1234567890123 please' } },
      ]);
      assert.match(r.text(0), /refused: e\d+ is a password field/);
      assert.match(r.text(1), /refused: e\d+ is a field for cc-number/);
      assert.match(r.text(2), /refused: the text holds a payment card number/);
      assert.equal(r.results[3].ok, true, 'a number that fails the Luhn check is typed');
      const page = await shopPage();
      assert.equal(await page.inputValue('#login'), '');
      assert.equal(await page.inputValue('#card'), '');
      assert.equal(await page.inputValue('#note'), 'order 1234567890123 please');
    });

    it('a ref used after the page rerendered answers "take a new snapshot"', async () => {
      const snap = (await turn([{ name: 'browser_snapshot', args: { interactiveOnly: true } }])).text(0);
      const old = refOf(snap, 'Old');
      const r = await turn([{ name: 'browser_click', args: { ref: refOf(snap, 'Rerender') } }, { name: 'browser_click', args: { ref: old } }]);
      assert.equal(r.results[1].ok, false);
      assert.match(r.text(1), new RegExp(`ref ${old} is stale.*take a new snapshot`));
      const fresh = (await turn([{ name: 'browser_snapshot', args: { interactiveOnly: true } }])).text(0);
      assert.match(fresh, /button "Fresh" \[e\d+\]/);
      assert.ok(!fresh.includes(`[${old}]`));
      // A new document (the same URL loaded again) keeps none of the old refs.
      const tabId = Number(/Snapshot of tab (\d+)/.exec(fresh)![1]);
      const reloaded = await turn([{ name: 'browser_navigate', args: { url: `${FIXTURE}/`, tabId } }, { name: 'browser_click', args: { ref: refOf(fresh, 'Fresh') } }]);
      assert.match(reloaded.text(1), /is stale.*take a new snapshot/);
    });

    it('browser_scroll, browser_wait and browser_screenshot (an image the model sees)', async () => {
      const r = await turn([{ name: 'browser_scroll', args: { dy: 900 } }, { name: 'browser_wait', args: { text: 'Bottom of the shop', ms: 3000 } }, { name: 'browser_wait', args: { text: 'never there', ms: 300 } }, { name: 'browser_screenshot', args: {} }]);
      assert.match(r.text(0), /^scrolled to 900 of \d+ px/);
      assert.equal(await (await shopPage()).evaluate(() => window.scrollY), 900);
      assert.match(r.text(1), /"Bottom of the shop" appeared/);
      assert.match(r.text(2), /"never there" did not appear within 300 ms/);
      // The request after the screenshot carries the image in the tool result.
      const request = model.requests.at(-1)!.body;
      const toolResults = request.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : [])).filter((c: { type: string }) => c.type === 'tool_result');
      const image = toolResults.at(-1).content.find((c: { type: string }) => c.type === 'image');
      assert.equal(image.source.media_type, 'image/jpeg');
      assert.equal(Buffer.from(image.source.data, 'base64').subarray(0, 2).toString('hex'), 'ffd8');
    });

    it('read-only calls of one model step run side by side on one tab without fighting over the debugger', async () => {
      const r = await turn(
        [
          { name: 'browser_snapshot', args: {} },
          { name: 'browser_screenshot', args: {} },
          { name: 'browser_wait', args: { ms: 50 } },
          { name: 'browser_screenshot', args: {} },
        ],
        { oneStep: true },
      );
      assert.equal(r.results.length, 4);
      for (const result of r.results) assert.equal(result.ok, true, String(result.result));
      assert.equal(r.actions.filter((a) => String(a.thumbnail).startsWith('data:image/jpeg')).length, 4);
    });

    it('browser_evaluate asks every time, even after an always answer, and a page exception is a result', async () => {
      const r = await turn(
        [
          { name: 'browser_evaluate', args: { expression: 'document.title + " " + (1 + 1)' } },
          { name: 'browser_evaluate', args: { expression: 'missingFunction()' } },
        ],
        { mode: 'ask', answer: () => 'always' },
      );
      assert.equal(r.prompts.length, 2, 'asked for each call');
      assert.equal(r.prompts[0].key, `browser_evaluate(${FIXTURE_HOST})`);
      assert.equal(r.text(0), '"Shop 2"');
      assert.equal(r.results[1].ok, true, 'an exception is a result, not a failure');
      assert.match(r.text(1), /^the page threw: ReferenceError: missingFunction is not defined/);
    });

    it('the debugger is attached only while an action runs', async () => {
      const worker = await chromium.worker();
      // Playwright holds its own CDP session on every page, so getTargets().attached says nothing about
      // the extension. An extension cannot attach twice to one tab: a probe attach fails exactly
      // while the bridge holds the tab.
      const attached = (hold = false) =>
        worker.evaluate(async (hold) => {
          const chrome = (globalThis as any).chrome;
          const tabs = await chrome.tabs.query({ url: 'http://shop.example.test/*' });
          if (hold) await chrome.debugger.attach({ tabId: tabs[0].id }, '1.3');
          let held = 0;
          for (const tab of tabs) {
            try {
              await chrome.debugger.attach({ tabId: tab.id }, '1.3');
              await chrome.debugger.detach({ tabId: tab.id });
            } catch (err) {
              if (!/already attached/i.test(String((err as Error).message))) throw err;
              held++;
            }
          }
          if (hold) await chrome.debugger.detach({ tabId: tabs[0].id });
          return held;
        }, hold);
      assert.equal(await attached(true), 1, 'the probe sees a held tab');
      assert.equal(await attached(), 0, 'nothing holds the tab between turns');
      const seq = events.events.at(-1)?.seq ?? 0;
      const acting = turn([{ name: 'browser_wait', args: { ms: 2500 } }, { name: 'browser_click', args: { ref: refOf((await turn([{ name: 'browser_snapshot', args: { query: 'Add' } }])).text(0), 'Add(?:ed| to cart)') } }]);
      await events.waitFor((e) => e.kind === 'tool.call' && e.tool === 'browser_wait' && e.seq > seq);
      let seenAttached = 0;
      const end = Date.now() + 1500;
      while (Date.now() < end) seenAttached = Math.max(seenAttached, await attached());
      await acting;
      // Within a second of the last action (scaled to the machine's load), nothing of ours holds the tab.
      await until('detached after the action', async () => (await attached()) === 0, 1_000);
      assert.equal(seenAttached, 0, 'nothing attached while only waiting');
    });

    it('a snapshot of a 5 000-element page is capped with the rest counted; interactiveOnly keeps every button under 20 000 characters', async () => {
      const opened = await turn([{ name: 'browser_navigate', args: { url: `${FIXTURE}/big` } }]);
      const tabId = Number(/tab (\d+)/.exec(opened.text(0))![1]);
      const r = await turn([{ name: 'browser_snapshot', args: { tabId } }, { name: 'browser_snapshot', args: { tabId, interactiveOnly: true } }, { name: 'browser_close', args: { tabId } }]);
      // The event's copy of a result is clipped; the model gets it whole.
      const seen: string[] = model.requests
        .at(-1)!
        .body.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
        .filter((c: { type: string }) => c.type === 'tool_result')
        .map((c: { content: string | Array<{ text?: string }> }) => (typeof c.content === 'string' ? c.content : c.content.map((x) => x.text ?? '').join('')));
      const [full, interactive] = seen.slice(-3);
      const omitted = Number(/… (\d+) more elements not shown/.exec(full)?.[1]);
      assert.ok(omitted > 1000, `the rest is counted: ${full.slice(-200)}`);
      assert.ok(full.length < 18_500, `capped (${full.length})`);
      const buttons = interactive.match(/- button "Buy \d+" \[e\d+\]/g) ?? [];
      assert.equal(buttons.length, 500);
      assert.ok(interactive.length < 20_000 && !interactive.includes('not shown'), `${interactive.length} characters`);
      assert.equal(r.results.length, 3);
    });

    it('browser_click onto a link, browser_back, browser_tabs, browser_close', async () => {
      // The shop page may be scrolled (an outline would start at the viewport): a query reaches the link wherever it is.
      const snap = (await turn([{ name: 'browser_snapshot', args: { query: 'Next page' } }])).text(0);
      const r = await turn([{ name: 'browser_click', args: { ref: refOf(snap, 'Next page') } }, { name: 'browser_back', args: {} }, { name: 'browser_tabs', args: {} }]);
      assert.match(r.text(0), /the page is now "Next" at http:\/\/shop\.example\.test\/next/);
      assert.match(r.text(1), /the page is now "Shop" at http:\/\/shop\.example\.test\//);
      const tabId = /\[(\d+)\] "Shop" http:\/\/shop\.example\.test\//.exec(r.text(2))![1];
      assert.match(r.text(2), /\(a private or local page\)/, 'the blank start tab is listed without URL or title');
      // The engine's own workbench is a local page: no tool acts on it (a model must not answer its own prompts).
      const own = await chromium.context.newPage();
      await own.goto(t.url + '/api/status');
      const listed = (await turn([{ name: 'browser_tabs', args: {} }])).text(0);
      const locals = [...listed.matchAll(/\[(\d+)\] \(a private or local page\)/g)].map((m) => Number(m[1]));
      assert.ok(locals.length >= 2, listed);
      const refused = await turn(locals.flatMap((id) => [{ name: 'browser_snapshot', args: { tabId: id } }, { name: 'browser_evaluate', args: { tabId: id, expression: '1' } }, { name: 'browser_close', args: { tabId: id } }]));
      for (const result of refused.results) assert.match(String(result.result), /shows a private or local page; the browser tools act only on public web pages/);
      assert.ok(!own.isClosed());
      await own.close();
      const closed = await turn([{ name: 'browser_close', args: { tabId: Number(tabId) } }, { name: 'browser_tabs', args: {} }]);
      assert.equal(closed.text(0), `closed tab ${tabId}`);
      assert.ok(!closed.text(1).includes(`[${tabId}]`));
    });
  });
});
