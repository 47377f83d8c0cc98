/**
 * The bridge as a person sees it, in one Chromium with the extension loaded: the workbench's Browser
 * card (connected, the folder to load), the extension's popup, and a chat turn in which the scripted
 * model drives a fixture page, the navigation prompt answered in the page and each action's
 * thumbnail shown under its tool call while the turn runs. Screenshots go to test-artifacts/web/ (docs/browser.md uses them).
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { SHOTS, webAppBuilt } from '../support/browser.js';
import type { TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { FIXTURE, launchChromium, serveFixtures, startBridgeEngine, waitConnected, type Fixtures, type TestChromium } from './harness.js';
import { FRAME, NEXT, SHOP } from './pages.js';

describe('the browser bridge in the workbench', () => {
  let t: TestEngine;
  let model: ModelServer;
  let fixtures: Fixtures;
  let chromium: TestChromium;
  let page: Page;
  const shot = async (p: Page, name: string, target?: { locator: string }) => {
    await mkdir(SHOTS, { recursive: true });
    const file = path.join(SHOTS, `${name}.png`);
    if (target) await p.locator(target.locator).screenshot({ path: file });
    else await p.screenshot({ path: file });
  };

  before(async () => {
    webAppBuilt();
    fixtures = await serveFixtures({ '/': SHOP, '/frame': FRAME, '/next': NEXT });
    model = await startModelServer();
    t = await startBridgeEngine();
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model' }], defaultProvider: 'scripted' });
    chromium = await launchChromium((await t.api('GET', '/api/browser')).body.extensionPath, fixtures.port);
    page = chromium.context.pages()[0] ?? (await chromium.context.newPage());
    await page.setViewportSize({ width: 1280, height: 860 });
  });
  after(async () => {
    await chromium?.close();
    await t?.close();
    await model?.close();
    await fixtures?.close();
  });

  it('Settings shows the Browser card: connected, the folder to load and the extension id', async () => {
    await waitConnected(t);
    const { body } = await t.api('GET', '/api/browser');
    await page.goto(t.url + '/settings');
    await page.waitForSelector('.browser-card[data-browser=connected]');
    const card = await page.locator('.browser-card').innerText();
    assert.match(card, /Connected \(extension 1\.0\.0\)/);
    assert.ok(card.includes(body.extensionPath) && card.includes(body.extensionId));
    assert.ok(!card.includes(body.token), 'the card never shows the token');
    await shot(page, 'browser-settings', { locator: '.browser-card' });
  });

  it('the extension popup says it is connected', async () => {
    const { body } = await t.api('GET', '/api/browser');
    const popup = await chromium.context.newPage();
    await popup.setViewportSize({ width: 308, height: 170 });
    await popup.goto(`chrome-extension://${body.extensionId}/popup.html`);
    await popup.waitForFunction(() => document.getElementById('status')?.textContent === 'Connected to the engine');
    await shot(popup, 'browser-popup');
    await popup.close();
  });

  it('a model drives a page from a chat turn: the navigation asks in the page, every action shows its thumbnail', async () => {
    model.script(
      { text: 'Opening the shop.', toolCalls: [{ name: 'browser_navigate', args: { url: `${FIXTURE}/` } }] },
      { toolCalls: [{ name: 'browser_snapshot', args: { interactiveOnly: true } }] },
      { toolCalls: [{ name: 'browser_click', args: { ref: 'e2' } }] },
      { toolCalls: [{ name: 'browser_type', args: { ref: 'e3', text: 'Ann Lee' } }] },
      // Streamed slowly: the live turn (tool calls with their thumbnails) is on screen meanwhile.
      { text: 'I added the item to the cart and filled in your name.', delayMs: 500 },
    );
    await page.setViewportSize({ width: 1280, height: 1150 });
    await page.goto(t.url + '/chat/drive');
    await page.waitForSelector('[data-connection=live]');
    await page.fill('.composer textarea', 'Add the first item of the shop to my cart and put my name in.');
    await page.keyboard.press('Enter');
    const prompt = await page.waitForSelector('.prompt', { timeout: 30_000 });
    assert.match(await prompt.innerText(), /browser_navigate/);
    await page.click('.prompt >> text=Allow once');
    await page.waitForFunction(() => document.querySelectorAll('.tool-thumb').length >= 4, undefined, { timeout: 60_000 });
    await shot(page, 'browser-chat');
    await page.waitForSelector('.msg.assistant >> text=filled in your name', { timeout: 60_000 });
    const shop = chromium.context.pages().find((p) => p.url().startsWith(FIXTURE))!;
    assert.equal(await shop.textContent('#add'), 'Added');
    assert.equal(await shop.inputValue('#name'), 'Ann Lee');
  });
});
