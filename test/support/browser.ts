/**
 * Debian's Chromium (/usr/bin/chromium) driven by playwright-core, which downloads no browser: a
 * fresh profile per launch, and a record of every answer the guard refused (403) or the page failed
 * on, so a test can assert that the workbench's own requests all pass.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { packageRoot } from '../../src/kernel/version.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Screenshots land here (gitignored): test artefacts to look at. */
export const SHOTS = path.join(packageRoot(), 'test-artifacts', 'web');

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Requests the engine refused (403) or that failed outright, as `METHOD url -> status`. */
  refused: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export function webAppBuilt(): void {
  if (!existsSync(path.join(packageRoot(), 'dist', 'web', 'index.html'))) throw new Error('the web app is not built: run npm run build:web first');
}

export async function openBrowser(options: { viewport?: { width: number; height: number }; isMobile?: boolean } = {}): Promise<TestBrowser> {
  webAppBuilt();
  const profile = await mkdtemp(path.join(os.tmpdir(), 'engine-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    isMobile: options.isMobile,
    hasTouch: options.isMobile,
    deviceScaleFactor: 1,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const refused: string[] = [];
  const errors: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 403) refused.push(`${r.request().method()} ${r.url()} -> 403`);
  });
  page.on('requestfailed', (r) => {
    // A socket torn down by an engine restart or a page leaving is not a refusal.
    if (!/ERR_ABORTED|ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/.test(r.failure()?.errorText ?? '')) refused.push(`${r.method()} ${r.url()} failed: ${r.failure()?.errorText}`);
  });
  page.on('websocket', (ws) => ws.on('socketerror', (e) => errors.push(`socket ${ws.url()}: ${e}`)));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    context,
    page,
    refused,
    errors,
    async shot(name) {
      await mkdir(SHOTS, { recursive: true });
      const file = path.join(SHOTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
