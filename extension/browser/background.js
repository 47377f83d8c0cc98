/**
 * The service worker: holds the WebSocket to the engine on this computer (address and token read
 * from pairing.json, which the engine writes into this folder, so nobody types anything) and runs
 * each operation the engine asks for on one tab. chrome.debugger is attached only while an action
 * runs and detached as soon as it ends, so the "started debugging this browser" bar does not stay.
 * Tabs on private or local pages are reported without their URL or title.
 */
import { locateRef, pageHasText, prepareType, quietFor, scrollPage, selectOption, snapshotPage } from './page.js';

const VERSION = chrome.runtime.getManifest().version;
const KEEPALIVE_MS = 20_000; // MV3: a message at least this often keeps the worker and its socket alive
const CLOSE_REPLACED = 4001;
const UNKNOWN = (ref) => `${ref} is not a ref of the current snapshot of this page; take a snapshot (browser_snapshot, with query to find an element by its text) and use its refs`;
const STALE = (ref) => `ref ${ref} is stale: the page changed since the snapshot it came from; take a new snapshot (browser_snapshot) and use its refs`;

let socket = null;
let state = { status: 'starting', detail: '' };
let retryMs = 250;
let retryTimer = null;
let keepAlive = null;

function setState(status, detail = '') {
  state = { status, detail, at: new Date().toISOString() };
  chrome.action.setBadgeText({ text: status === 'connected' ? '' : '!' }).catch(() => {});
}

async function connect() {
  clearTimeout(retryTimer);
  if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) return;
  let pairing;
  try {
    pairing = await (await fetch(chrome.runtime.getURL('pairing.json'), { cache: 'no-store' })).json();
  } catch {
    setState('unpaired', 'pairing.json is missing: open Settings > Browser in the workbench (or GET /api/browser), which writes it into this folder');
    return schedule();
  }
  setState('connecting', pairing.url);
  const ws = new WebSocket(pairing.url, ['engine-browser', `token.${pairing.token}`]);
  socket = ws;
  ws.onopen = () => {
    retryMs = 250;
    setState('connected', pairing.url);
    ws.send(JSON.stringify({ type: 'hello', version: VERSION, userAgent: navigator.userAgent }));
    clearInterval(keepAlive);
    keepAlive = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('{"type":"ping"}'), KEEPALIVE_MS);
  };
  ws.onmessage = (event) => void handle(ws, event.data);
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    clearInterval(keepAlive);
    if (event.code === CLOSE_REPLACED) {
      // Another browser took the bridge: coming straight back would take it away again.
      return setState('replaced', 'another browser connected to the engine; use Connect to take the bridge back');
    }
    setState('disconnected', event.reason || 'the engine is not running or refused the connection');
    schedule();
  };
}

/** Re-reads pairing.json and tries again (a rotated token, a restarted engine), backing off to 5 s. */
function schedule() {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(connect, retryMs);
  retryMs = Math.min(retryMs * 2, 5000);
}

async function handle(ws, data) {
  let request;
  try {
    request = JSON.parse(data);
  } catch {
    return;
  }
  if (request.type) return; // pong
  const started = performance.now();
  let reply;
  try {
    const op = OPS[request.op];
    if (!op) throw new Error(`this extension (${VERSION}) does not know the operation "${request.op}"; reload it from the folder GET /api/browser names`);
    reply = { id: request.id, ok: true, result: await op(request.args || {}) };
  } catch (err) {
    reply = { id: request.id, ok: false, error: String(err?.message || err) };
  }
  reply.ms = performance.now() - started;
  // A thumbnail taken after answering follows the answer in its own frame (the model does not wait for it).
  const later = reply.result?.thumbnailLater;
  if (later) {
    delete reply.result.thumbnailLater;
    reply.result.thumbnailFollows = true;
  }
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(reply));
  if (later) {
    const thumbnail = await later.catch(() => undefined);
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'thumbnail', id: request.id, thumbnail }));
  }
}

// --- tabs ---------------------------------------------------------------------------------------

/** Loopback, private, link-local and local-name hosts, and pages that are not on the web. */
function isPrivate(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return true;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return true;
  const h = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.') && !h.includes(':')) return true;
  const v4 = h.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  return h.includes(':') && (h === '::1' || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith('::ffff:'));
}

function where(tab) {
  const url = tab.url || tab.pendingUrl || '';
  return isPrivate(url) ? 'a private or local page' : `"${tab.title || ''}" at ${url}`;
}

/**
 * The tab an operation acts on: the one named, else the active one. Never a private or local page:
 * the engine's own workbench is one (a model must not answer its own permission prompts), and so are
 * the person's router and intranet pages, as for the URL floor.
 */
async function resolveTab(tabId) {
  let tab;
  if (tabId !== undefined && tabId !== null) {
    tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab) throw new Error(`there is no tab ${tabId}; browser_tabs lists the open tabs`);
  } else {
    [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    if (!tab) throw new Error('the browser has no active tab; open a page with browser_navigate');
  }
  if (isPrivate(tab.url || tab.pendingUrl)) {
    throw new Error(`tab ${tab.id} shows a private or local page; the browser tools act only on public web pages (open one with browser_navigate)`);
  }
  return tab;
}

/**
 * Resolves once the tab has finished loading (or after timeoutMs). Right after a navigation was asked
 * for, the tab can still report the previous page as complete: then only the load event counts, with
 * a late look in case it fired before we listened.
 */
function loaded(tabId, timeoutMs = 15_000, navigating = false) {
  return new Promise((resolve) => {
    let timer;
    const done = async () => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      resolve(await chrome.tabs.get(tabId).catch(() => null));
    };
    const listener = (id, info) => id === tabId && info.status === 'complete' && done();
    chrome.tabs.onUpdated.addListener(listener);
    timer = setTimeout(done, timeoutMs);
    const look = () =>
      chrome.tabs.get(tabId).then(
        (tab) => tab.status === 'complete' && !tab.pendingUrl && done(),
        () => done(),
      );
    if (navigating) setTimeout(look, 400);
    else look();
  });
}

// --- page functions and the debugger --------------------------------------------------------------

async function inPage(tabId, func, args = []) {
  try {
    const [frame] = await chrome.scripting.executeScript({ target: { tabId }, func, args });
    return frame?.result;
  } catch (err) {
    throw new Error(`cannot reach this page (${String(err?.message || err).slice(0, 160)}); browser pages and other extensions' pages are off limits`);
  }
}

/**
 * Per tab, the number the next ref gets: refs are numbered on across the tab's documents, so one from
 * an earlier page is stale, never an element of this one. Kept while the worker lives (its socket's
 * keep-alive keeps it); after a restart refs number on from each document's own count.
 */
const refsIssued = new Map();
chrome.tabs.onRemoved.addListener((tabId) => refsIssued.delete(tabId));
const issued = (tabId) => refsIssued.get(tabId) || 1;

/** A page function's answer, or the sentence why not: a missing ref at or past the tab's next number was never given. */
function check(answer, ref, tabId) {
  if (!answer) throw new Error('the page did not answer; it may still be loading');
  if (answer.stale) throw new Error(Number(ref.slice(1)) >= issued(tabId) ? UNKNOWN(ref) : STALE(ref));
  if (answer.error) throw new Error(answer.error);
  return answer;
}

/** Debugger sessions per tab, one at a time: read-only calls of one model step run side by side, and an extension cannot attach twice to one tab. */
const debuggerQueues = new Map();

/** Attaches the debugger for one action only (after the tab's earlier one); detached in `finally`, whatever happens. */
function withDebugger(tabId, fn) {
  const run = (debuggerQueues.get(tabId) || Promise.resolve()).then(() => attached(tabId, fn));
  const settled = run.catch(() => {});
  debuggerQueues.set(tabId, settled);
  settled.then(() => debuggerQueues.get(tabId) === settled && debuggerQueues.delete(tabId));
  return run;
}

async function attached(tabId, fn) {
  const target = { tabId };
  try {
    await chrome.debugger.attach(target, '1.3');
  } catch (err) {
    throw new Error(`cannot attach to tab ${tabId} (${String(err?.message || err).slice(0, 160)}); close DevTools on that tab and try again`);
  }
  try {
    return await fn((method, params = {}) => chrome.debugger.sendCommand(target, method, params));
  } finally {
    await chrome.debugger.detach(target).catch(() => {});
  }
}

/** A small JPEG of what the tab shows now, for the engine's browser.action event. */
async function thumbnail(send) {
  try {
    const { cssVisualViewport: v } = await send('Page.getLayoutMetrics');
    const shot = await send('Page.captureScreenshot', { format: 'jpeg', quality: 45, clip: { x: v.pageX, y: v.pageY, width: v.clientWidth, height: v.clientHeight, scale: 320 / v.clientWidth } });
    return shot.data;
  } catch {
    return undefined;
  }
}

/** Network requests in flight per tab, counted from the debugger's events while an action settles. */
const inflight = new Map();
chrome.debugger.onEvent.addListener((source, method, params) => {
  const requests = inflight.get(source.tabId);
  if (!requests) return;
  if (method === 'Network.requestWillBeSent') requests.add(params.requestId);
  else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') requests.delete(params.requestId);
});

/** Starts counting the tab's requests and watching its document, before an action (the debugger attached). */
async function watch(tabId, send) {
  inflight.set(tabId, new Set());
  await send('Network.enable').catch(() => {});
  await inPage(tabId, quietFor, [true]).catch(() => {});
}

/**
 * Waits until the page is quiet (no request in flight, no DOM change for `quietMs`), at most `maxMs`,
 * as Playwright MCP does after an action: what the action started (a fetch, a button added 200 ms
 * later) is in the next snapshot. Says what was still pending when the bound ran out, else nothing.
 */
async function settle(tabId, { quietMs, maxMs }) {
  const until = Date.now() + maxMs;
  for (;;) {
    // A page that cannot be read (a browser error page) counts as quiet.
    const quiet = await inPage(tabId, quietFor).catch(() => Infinity);
    const pending = inflight.get(tabId)?.size ?? 0;
    if (!pending && quiet >= quietMs) return '';
    if (Date.now() >= until) {
      const still = [pending && `${pending} request${pending === 1 ? '' : 's'} in flight`, quiet < quietMs && 'the page still changing'].filter(Boolean).join(' and ');
      return ` (not settled after ${maxMs} ms: ${still}; browser_wait for what you expect)`;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Acts with the debugger attached, waits for any navigation the action started and (with `quiet`)
 * for the page to settle, then reports where the tab is.
 */
async function act(tab, action, settleMs = 80, quiet) {
  return withDebugger(tab.id, async (send) => {
    if (quiet) await watch(tab.id, send);
    try {
      const text = await action(send);
      // A click or a key may start a navigation a moment later: give it that moment, then wait for the load.
      if (settleMs) await new Promise((r) => setTimeout(r, settleMs));
      await loaded(tab.id, 10_000);
      const still = quiet ? await settle(tab.id, quiet) : '';
      const now = await chrome.tabs.get(tab.id).catch(() => tab);
      return { text: `${text}; the page is now ${where(now)}${still}`, tabId: tab.id, url: isPrivate(now.url) ? undefined : now.url, thumbnail: await thumbnail(send) };
    } finally {
      inflight.delete(tab.id);
    }
  });
}

const KEYS = {
  Enter: [13, 'Enter', '\r'], Tab: [9, 'Tab'], Escape: [27, 'Escape'], Backspace: [8, 'Backspace'], Delete: [46, 'Delete'], ' ': [32, 'Space', ' '],
  ArrowLeft: [37, 'ArrowLeft'], ArrowUp: [38, 'ArrowUp'], ArrowRight: [39, 'ArrowRight'], ArrowDown: [40, 'ArrowDown'],
  Home: [36, 'Home'], End: [35, 'End'], PageUp: [33, 'PageUp'], PageDown: [34, 'PageDown'],
};
const MODIFIERS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

async function pressKey(send, key, modifiers = []) {
  const bits = modifiers.reduce((m, name) => m | (MODIFIERS[name] || 0), 0);
  let [code, codeName, text] = KEYS[key] || [];
  if (!code) {
    if ([...key].length !== 1) throw new Error(`"${key}" is not a DOM key name this bridge knows; use one of ${Object.keys(KEYS).join(', ')} or a single character`);
    code = key.toUpperCase().charCodeAt(0);
    codeName = /[a-z]/i.test(key) ? `Key${key.toUpperCase()}` : /\d/.test(key) ? `Digit${key}` : '';
    text = key;
  }
  const typed = bits & ~MODIFIERS.Shift ? undefined : text; // Control+a selects, it types nothing
  await send('Input.dispatchKeyEvent', { type: typed ? 'keyDown' : 'rawKeyDown', key, code: codeName, windowsVirtualKeyCode: code, modifiers: bits, text: typed, unmodifiedText: typed });
  await send('Input.dispatchKeyEvent', { type: 'keyUp', key, code: codeName, windowsVirtualKeyCode: code, modifiers: bits });
}

// --- operations ---------------------------------------------------------------------------------

const OPS = {
  async tabs() {
    const tabs = await chrome.tabs.query({});
    const lines = tabs.map((t) => `[${t.id}] ${isPrivate(t.url || t.pendingUrl) ? '(a private or local page)' : `"${t.title || ''}" ${t.url}`}${t.active ? ' (active)' : ''}`);
    return { text: lines.length ? `${lines.length} open tab${lines.length === 1 ? '' : 's'}:\n${lines.join('\n')}` : 'no open tabs' };
  },

  async tab({ tabId }) {
    const tab = await resolveTab(tabId);
    return { text: '', tabId: tab.id, url: isPrivate(tab.url) ? undefined : tab.url };
  },

  async navigate({ url, tabId, quiet }) {
    const tab = tabId !== undefined && tabId !== null ? await chrome.tabs.update((await resolveTab(tabId)).id, { url }) : await chrome.tabs.create({ url, active: true });
    await loaded(tab.id, 15_000, true);
    return withDebugger(tab.id, async (send) => {
      // The load is done; what the page's scripts fetch and draw after it settles too.
      if (quiet) await watch(tab.id, send);
      try {
        const still = quiet ? await settle(tab.id, quiet) : '';
        const now = await chrome.tabs.get(tab.id).catch(() => tab);
        return { text: `tab ${tab.id} shows ${where(now)}${still}`, tabId: tab.id, url: isPrivate(now.url) ? undefined : now.url, thumbnail: await thumbnail(send) };
      } finally {
        inflight.delete(tab.id);
      }
    });
  },

  async snapshot({ tabId, interactiveOnly, maxChars, query }) {
    const tab = await resolveTab(tabId);
    const answer = await inPage(tab.id, snapshotPage, [!!interactiveOnly, maxChars || 18000, query || '', issued(tab.id)]);
    if (typeof answer?.text !== 'string') throw new Error('the page did not answer the snapshot; it may still be loading');
    refsIssued.set(tab.id, Math.max(issued(tab.id), answer.next));
    const text = answer.text;
    // The thumbnail (a debugger attach and a capture) is taken after the answer has gone.
    return { text, tabId: tab.id, url: isPrivate(tab.url) ? undefined : tab.url, thumbnailLater: withDebugger(tab.id, thumbnail) };
  },

  async click({ tabId, ref, button = 'left', double, quiet }) {
    const tab = await resolveTab(tabId);
    const at = check(await inPage(tab.id, locateRef, [ref]), ref, tab.id);
    if (at.empty) throw new Error(`${at.label} takes no space on the page (hidden or collapsed); take a new snapshot`);
    return act(tab, async (send) => {
      const base = { x: at.x, y: at.y, button, modifiers: 0 };
      await send('Input.dispatchMouseEvent', { ...base, type: 'mouseMoved', button: 'none' });
      for (let n = 1; n <= (double ? 2 : 1); n++) {
        await send('Input.dispatchMouseEvent', { ...base, type: 'mousePressed', clickCount: n });
        await send('Input.dispatchMouseEvent', { ...base, type: 'mouseReleased', clickCount: n });
      }
      return `${double ? 'double-clicked' : button === 'right' ? 'right-clicked' : 'clicked'} ${at.label}`;
    }, 80, quiet);
  },

  async type({ tabId, ref, text, clear, submit, quiet }) {
    const tab = await resolveTab(tabId);
    const field = await inPage(tab.id, prepareType, [ref || null, !!clear]);
    if (field?.refused) throw new Error(`refused: ${ref || 'the focused field'} is ${field.refused}; the browser tools never type passwords, keys or card numbers. Ask the user to fill it in themselves.`);
    const target = check(field, ref, tab.id);
    return act(tab, async (send) => {
      if (text) await send('Input.insertText', { text });
      else if (clear) await pressKey(send, 'Delete');
      if (submit) await pressKey(send, 'Enter');
      return `typed ${[...text].length} character${[...text].length === 1 ? '' : 's'} into ${target.label}${submit ? ' and pressed Enter' : ''}`;
    }, 80, quiet);
  },

  async press({ tabId, key, modifiers, quiet }) {
    const tab = await resolveTab(tabId);
    return act(tab, async (send) => {
      await pressKey(send, key, modifiers || []);
      return `pressed ${[...(modifiers || []), key].join('+')}`;
    }, 80, quiet);
  },

  async select({ tabId, ref, value, quiet }) {
    const tab = await resolveTab(tabId);
    // The page is watched from before the option changes, so what its change handler starts is waited for.
    return act(tab, async () => check(await inPage(tab.id, selectOption, [ref, value]), ref, tab.id).label, 0, quiet);
  },

  async scroll({ tabId, ref, dy }) {
    const tab = await resolveTab(tabId);
    const done = check(await inPage(tab.id, scrollPage, [ref || null, dy ?? 600]), ref, tab.id);
    return act(tab, async () => done.label, 0);
  },

  async screenshot({ tabId }) {
    const tab = await resolveTab(tabId);
    return withDebugger(tab.id, async (send) => {
      const shot = await send('Page.captureScreenshot', { format: 'jpeg', quality: 70 });
      return { text: `screenshot of tab ${tab.id} (${where(tab)})`, tabId: tab.id, url: isPrivate(tab.url) ? undefined : tab.url, image: shot.data, thumbnail: await thumbnail(send) };
    });
  },

  async evaluate({ tabId, expression }) {
    const tab = await resolveTab(tabId);
    return withDebugger(tab.id, async (send) => {
      const out = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true, userGesture: true, timeout: 10_000 });
      let text;
      if (out.exceptionDetails) {
        // A page exception is the answer, not a failure of the tool (seed 001 §7 rule 12).
        const e = out.exceptionDetails;
        text = `the page threw: ${(e.exception && (e.exception.description || e.exception.value)) || e.text}`;
      } else {
        const r = out.result;
        text = r.type === 'undefined' ? 'undefined' : 'value' in r ? JSON.stringify(r.value) : r.description || r.type;
      }
      return { text: String(text).slice(0, 20_000), tabId: tab.id, url: isPrivate(tab.url) ? undefined : tab.url, thumbnail: await thumbnail(send) };
    });
  },

  async back({ tabId }) {
    const tab = await resolveTab(tabId);
    await chrome.tabs.goBack(tab.id).catch(() => {
      throw new Error(`tab ${tab.id} has no earlier page to go back to`);
    });
    await loaded(tab.id, 15_000, true);
    return act(tab, async () => `went back in tab ${tab.id}`, 0);
  },

  async wait({ tabId, ms, text }) {
    const tab = await resolveTab(tabId);
    const limit = Math.min(Math.max(Number(ms ?? (text ? 10_000 : 1000)), 0), 10_000);
    const until = Date.now() + limit;
    let found = false;
    for (;;) {
      if (text && (await inPage(tab.id, pageHasText, [text]).catch(() => false))) {
        found = true;
        break;
      }
      if (Date.now() >= until) break;
      await new Promise((r) => setTimeout(r, Math.min(150, until - Date.now())));
    }
    const now = await chrome.tabs.get(tab.id).catch(() => tab);
    const shot = await withDebugger(tab.id, thumbnail).catch(() => undefined);
    const said = text ? (found ? `"${text}" appeared` : `"${text}" did not appear within ${limit} ms`) : `waited ${limit} ms`;
    return { text: `${said}; the page is ${where(now)}`, tabId: tab.id, url: isPrivate(now.url) ? undefined : now.url, thumbnail: shot };
  },

  async close({ tabId }) {
    const tab = await resolveTab(tabId);
    await chrome.tabs.remove(tab.id);
    return { text: `closed tab ${tab.id}`, tabId: tab.id };
  },
};

// --- lifetime -----------------------------------------------------------------------------------

chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  if (message?.type === 'status') reply({ ...state, version: VERSION, id: chrome.runtime.id });
  if (message?.type === 'connect') {
    retryMs = 250;
    connect().then(() => reply({ ok: true }));
    return true;
  }
  return false;
});
// An alarm wakes a worker Chrome stopped (a sleeping laptop, a crash) so the bridge comes back by itself.
chrome.alarms.create('engine-bridge', { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => state.status !== 'replaced' && connect());
connect();
