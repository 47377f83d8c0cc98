/**
 * Pairing a phone from the same computer: /m/ without a token says it is not paired and how to pair
 * (never "Nothing is waiting for you" while something waits), and Settings > Phone shows the relay's
 * pairing link as text beside its QR code, with a Copy button that puts it on the clipboard.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { gateFlow } from '../support/gate-flow.js';
import { startBroker, type TestBroker } from '../support/mqtt-broker.js';

let t: TestEngine;
let broker: TestBroker;
let desk: TestBrowser;
let phone: TestBrowser;

before(async () => {
  broker = await startBroker();
  t = await startTestEngine();
  desk = await openBrowser({ viewport: { width: 1400, height: 900 } });
  phone = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
  for (const b of [desk, phone]) b.page.setDefaultTimeout(60_000);
});
after(async () => {
  await phone?.close();
  await desk?.close();
  await t?.close();
  await broker?.close();
});

test('/m/ without a token says it is not paired and how to pair, even while a gate waits', async () => {
  await t.api('PUT', '/api/workflows/deploy', gateFlow('deploy', 'Deploy to production?', { node: 'ok' }));
  const run = await t.api('POST', '/api/runs/deploy', {});
  assert.equal(run.status, 202);
  await phone.page.goto(`${t.url}/m/`);
  await phone.page.getByRole('heading', { name: 'This phone is not paired' }).waitFor();
  await phone.page.getByText('Settings › Phone').waitFor();
  // On the engine's own computer, the workbench answers without pairing.
  await phone.page.locator('[data-unpaired]').getByRole('link', { name: 'Approvals' }).waitFor();
  assert.equal(await phone.page.getByText('Nothing is waiting for you').count(), 0);
  for (const tab of ['Running', 'Chat']) {
    await phone.page.locator('.tabs').getByText(tab).click();
    await phone.page.getByRole('heading', { name: 'This phone is not paired' }).waitFor();
    assert.equal(await phone.page.getByText('Nothing is running').count(), 0);
  }
  await phone.shot('phone-not-paired');
});

test('Settings > Phone: the pairing link as text beside the QR code, and Copy puts it on the clipboard', async () => {
  await desk.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  await desk.page.goto(`${t.url}/settings#phone`);
  await desk.page.getByLabel('broker address').fill(broker.url);
  await desk.page.locator('[data-section=phone]').getByRole('button', { name: 'Turn on' }).click();
  await desk.page.locator('[data-qr] svg').waitFor();
  const link: string = (await t.api('GET', '/api/relay')).body.pairing.link;
  const shown = desk.page.locator('[data-pairing-link]');
  assert.equal(await shown.innerText(), link);
  await desk.page.locator('[data-section=phone]').getByRole('button', { name: 'Copy' }).click();
  await desk.page.locator('[data-section=phone]').getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await desk.page.evaluate(() => navigator.clipboard.readText()), link);
  await desk.page.locator('[data-section=phone]').scrollIntoViewIfNeeded();
  await desk.shot('settings-phone-link');
  assert.deepEqual(desk.refused, []);
  assert.deepEqual(phone.refused, []);
});
