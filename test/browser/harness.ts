/**
 * The browser bridge under test: a real engine, Debian's Chromium with the engine's extension folder
 * loaded unpacked (nothing typed: the extension reads pairing.json), and fixture pages served on
 * loopback under a public-looking host name that Chromium maps with --host-resolver-rules. The
 * engine's URL floor gets a test-only allowance for that one name (EngineOptions.browserUrlFloor,
 * which no model or request can set).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Worker } from 'playwright-core';
import { createUrlFloor } from '../../src/capabilities/web/floor.js';
import { CHROMIUM } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';

export const FIXTURE_HOST = 'shop.example.test';
export const FIXTURE = `http://${FIXTURE_HOST}`;

/** Pages by path; a function answers per request. */
export type Pages = Record<string, string | (() => string | Promise<string>)>;

export interface Fixtures {
  port: number;
  close(): Promise<void>;
}

export async function serveFixtures(pages: Pages): Promise<Fixtures> {
  const server = http.createServer(async (req, res) => {
    const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (page === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such fixture');
    // A function may answer late, or never (a request the page leaves in flight).
    const body = typeof page === 'function' ? await page() : page;
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The engine's floor, except that the fixture host counts as public (it resolves to a documentation-free public address here). */
export const fixtureFloor = createUrlFloor({
  resolve: async (host) => (host === FIXTURE_HOST ? [{ address: '93.184.215.14', family: 4 }] : (await import('node:dns')).promises.lookup(host, { all: true, verbatim: true })),
});

export interface TestChromium {
  context: BrowserContext;
  profile: string;
  /** The extension's service worker (for looking at chrome.debugger from outside the bridge). */
  worker(): Promise<Worker>;
  close(): Promise<void>;
}

/** Chromium with the flags and the extension folder loaded unpacked. */
export async function launchChromium(extensionPath: string, fixturePort: number): Promise<TestChromium> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'engine-bridge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--disable-extensions-except=${extensionPath}`,
      `--load-extension=${extensionPath}`,
      `--host-resolver-rules=MAP ${FIXTURE_HOST} 127.0.0.1:${fixturePort}`,
    ],
    viewport: { width: 1000, height: 700 },
  });
  return {
    context,
    profile,
    async worker() {
      return context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Polls GET /api/browser until `connected` is as wanted. */
export async function waitConnected(t: TestEngine, connected = true, quietMs = 30_000): Promise<void> {
  await until(
    `the extension to ${connected ? 'connect' : 'disconnect'}`,
    async () => {
      const { body } = await t.api('GET', '/api/browser');
      if (body.connected !== connected) throw new Error(`GET /api/browser answers ${JSON.stringify({ ...body, token: '…' })}`);
      return true;
    },
    quietMs,
  );
}

export async function startBridgeEngine(options: { home?: string } = {}): Promise<TestEngine> {
  return startTestEngine({ browserUrlFloor: fixtureFloor, ...options });
}
