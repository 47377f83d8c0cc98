/**
 * Pairing with no typing (issue 29): the extension folder GET /api/browser names, loaded unpacked in
 * real headless Chromium, connects by itself; rotation drops it and it comes back with the new token;
 * the four refusals of /browser; one connection at a time.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { extensionIdOf } from '../../src/capabilities/browser/pairing.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';
import { rawRequest } from '../support/raw-http.js';
import { launchChromium, serveFixtures, startBridgeEngine, waitConnected, type Fixtures, type TestChromium } from './harness.js';

/** Opens /browser as the extension would; resolves with the upgrade's status (101 when admitted). */
function openBridge(url: string, headers: { origin?: string; token?: string; localAddress?: string; host?: string; query?: string }): Promise<{ status: number; body: string; ws?: WebSocket }> {
  const protocols = ['engine-browser', ...(headers.token ? [`token.${headers.token}`] : [])];
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/browser' + (headers.query ?? ''), protocols, {
    headers: { ...(headers.origin ? { origin: headers.origin } : {}), ...(headers.host ? { host: headers.host } : {}) },
    localAddress: headers.localAddress,
  });
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ status: 101, body: '', ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (err) => resolve({ status: 0, body: String(err) }));
  });
}

describe('browser pairing', () => {
  let t: TestEngine;
  let fixtures: Fixtures;
  let events: EventCollector;

  before(async () => {
    fixtures = await serveFixtures({ '/': '<title>Home</title><p>hello</p>' });
    t = await startBridgeEngine();
    events = await collectEvents(t.url);
  });
  after(async () => {
    events.close();
    await t.close();
    await fixtures.close();
  });

  it('GET /api/browser names the folder, an id pinned by the manifest key, and a token stored as a secret and written to pairing.json', async () => {
    const { status, body } = await t.api('GET', '/api/browser');
    assert.equal(status, 200);
    assert.equal(body.connected, false);
    assert.match(body.token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(body.extensionPath, path.join(t.home, 'browser', 'extension'));
    const manifest = JSON.parse(await readFile(path.join(body.extensionPath, 'manifest.json'), 'utf8'));
    assert.equal(manifest.manifest_version, 3);
    assert.equal(extensionIdOf(manifest.key), body.extensionId);
    assert.match(body.extensionId, /^[a-p]{32}$/);
    assert.equal(body.origin, `chrome-extension://${body.extensionId}`);
    const pairing = JSON.parse(await readFile(path.join(body.extensionPath, 'pairing.json'), 'utf8'));
    assert.deepEqual(pairing, { url: `ws://127.0.0.1:${t.engine.port}/browser`, token: body.token });
    const secrets = await t.api('GET', '/api/secrets');
    assert.ok(secrets.body.names.includes('browser.pairing-token'), 'the token is a secret');
    assert.ok(!JSON.stringify(secrets.body).includes(body.token));
  });

  it('the same home keeps its extension id and token across restarts', async () => {
    const home = await tempDir();
    const first = await startTestEngine({ home });
    const a = (await first.api('GET', '/api/browser')).body;
    await first.close();
    const second = await startTestEngine({ home });
    const b = (await second.api('GET', '/api/browser')).body;
    await second.close();
    assert.equal(b.extensionId, a.extensionId);
    assert.equal(b.token, a.token);
  });

  it('refuses a web page Origin, another extension, a wrong token and a missing token; admits the extension', async () => {
    const { body } = await t.api('GET', '/api/browser');
    const web = await openBridge(t.url, { origin: 'https://evil.example', token: body.token });
    assert.equal(web.status, 403);
    assert.match(web.body, /not a web page/);
    const other = await openBridge(t.url, { origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop', token: body.token });
    assert.equal(other.status, 403);
    assert.match(other.body, /not another extension/);
    // One character changed, whatever it was: a token that happened to start with 'x' made 'x' + rest the right one (1 run in 64).
    const wrong = await openBridge(t.url, { origin: body.origin, token: (body.token[0] === 'x' ? 'y' : 'x') + body.token.slice(1) });
    assert.equal(wrong.status, 403);
    assert.match(wrong.body, /token is wrong/);
    assert.equal((await openBridge(t.url, { origin: body.origin })).status, 403);
    const mobile = await openBridge(t.url, { origin: body.origin, token: body.token, query: `?token=${t.engine.mobileToken}` });
    assert.equal(mobile.status, 403, 'the mobile token never opens the bridge');
    // Nor the routes that answer or rotate the pairing token: a phone on the LAN reads no browser credential.
    const port = Number(new URL(t.url).port);
    for (const [method, p] of [['GET', '/api/browser'], ['POST', '/api/browser/token/rotate']]) {
      const viaPhone = await rawRequest(port, { method, path: p, headers: { 'x-engine-mobile-token': t.engine.mobileToken, origin: 'http://192.168.1.20:7777' } });
      assert.equal(viaPhone.status, 403, `${method} ${p} with the mobile token`);
      assert.ok(!viaPhone.body.includes(body.token), "no token in the refusal");
    }
    const good = await openBridge(t.url, { origin: body.origin, token: body.token });
    assert.equal(good.status, 101);
    await waitConnected(t);
    good.ws!.close();
    await waitConnected(t, false);
  });

  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
  it('refuses a peer that is not loopback, even with the right Origin, token and Host', { skip: lan ? false : 'no non-loopback IPv4 address' }, async () => {
    const open = await startTestEngine({ bind: '0.0.0.0' });
    try {
      const { body } = await open.api('GET', '/api/browser');
      const res = await openBridge(`http://${lan}:${open.engine.port}`, { origin: body.origin, token: body.token, localAddress: lan, host: `127.0.0.1:${open.engine.port}` });
      assert.equal(res.status, 403);
      const local = await openBridge(open.url, { origin: body.origin, token: body.token });
      assert.equal(local.status, 101, 'the same upgrade from loopback is admitted');
      local.ws!.close();
    } finally {
      await open.close();
    }
  });

  describe('in Chromium', () => {
    let chromium: TestChromium;
    before(async () => {
      const { body } = await t.api('GET', '/api/browser');
      chromium = await launchChromium(body.extensionPath, fixtures.port);
    });
    after(() => chromium.close());

    it('pairs with no typing: the loaded folder connects by itself', async () => {
      await waitConnected(t);
      const { body } = await t.api('GET', '/api/browser');
      assert.equal(body.connected, true);
      const worker = await chromium.worker();
      assert.equal(new URL(worker.url()).host, body.extensionId, 'Chrome gave the folder the pinned id');
      // The client's hello lands just after the socket opens.
      await until('the client\'s hello', async () => (await t.api('GET', '/api/browser')).body.client?.version === '1.0.0');
    });

    it('the service worker sends a keep-alive at least every 20 s (MV3 stops an idle worker after 30 s)', async () => {
      const { body } = await t.api('GET', '/api/browser');
      const since = Date.parse(body.client.lastSeenAt);
      // A frame within 21 s of idling (the wait scales with the machine's load, as every wait here does).
      const later = await until('a keep-alive frame', async () => {
        const now = (await t.api('GET', '/api/browser')).body;
        return Date.parse(now.client?.lastSeenAt) > since && now;
      }, 21_000);
      assert.equal(later.connected, true);
    });

    it('rotation drops the live extension, which re-reads pairing.json and reconnects with the new token; the old one is refused', async () => {
      const before = (await t.api('GET', '/api/browser')).body;
      const seq = events.events.at(-1)?.seq ?? 0;
      const rotated = await t.api('POST', '/api/browser/token/rotate');
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.token, before.token);
      await events.waitFor((e) => e.kind === 'browser.disconnected' && e.seq > seq);
      await events.waitFor((e) => e.kind === 'browser.connected' && e.seq > seq, 20_000);
      await waitConnected(t);
      const old = await openBridge(t.url, { origin: before.origin, token: before.token });
      assert.equal(old.status, 403);
      assert.ok(!JSON.stringify(events.events).includes(rotated.body.token), 'no event carries the token');
    });

    it('a second connection replaces the first with an event; the replaced extension stays away', async () => {
      const { body } = await t.api('GET', '/api/browser');
      const seq = events.events.at(-1)?.seq ?? 0;
      const second = await openBridge(t.url, { origin: body.origin, token: body.token });
      assert.equal(second.status, 101);
      await events.waitFor((e) => e.kind === 'browser.replaced' && e.seq > seq);
      // The popup shows what the service worker thinks: replaced, not reconnecting on its own.
      const popup = await chromium.context.newPage();
      await popup.goto(`chrome-extension://${body.extensionId}/popup.html`);
      await popup.waitForFunction(() => /Another browser/.test(document.getElementById('status')?.textContent ?? ''), undefined, { timeout: 10_000 });
      await popup.close();
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(events.events.filter((e) => e.kind === 'browser.connected' && e.seq > seq).length, 1, 'only the newer connection connected');
      second.ws!.close();
      await waitConnected(t, false);
    });
  });
});
