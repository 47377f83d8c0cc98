/**
 * The relay as a person uses it: in the workbench's settings they turn it on with a broker's
 * address and get a QR code; the phone opens the code's link, pairs through the broker, and
 * approves a gate, with every data request going through the broker (none to the engine's HTTP);
 * opened again later without the code it uses the device it kept. Then the workbench unpairs it
 * and the phone says so.
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
  desk = await openBrowser();
  phone = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
});
after(async () => {
  await phone?.close();
  await desk?.close();
  await t?.close();
  await broker?.close();
});

test('turn the relay on in settings, scan the QR code, approve a gate from the phone, unpair', async () => {
  await desk.page.goto(`${t.url}/settings`);
  await desk.page.fill('input[aria-label="broker address"]', broker.url);
  await desk.page.click('[data-section=phone] >> text=Turn on');
  await desk.page.waitForSelector('[data-qr] svg', { timeout: 30_000 });
  await desk.page.locator('[data-section=phone]').scrollIntoViewIfNeeded();
  await desk.shot('relay-settings-qr');
  const link: string = (await t.api('GET', '/api/relay')).body.pairing.link;

  await t.api('PUT', '/api/workflows/deploy', gateFlow('deploy', 'Deploy to production?', { node: 'ok' }));
  const run = await t.api('POST', '/api/runs/deploy', {});

  const direct: string[] = [];
  phone.page.on('request', (r) => void (r.url().includes('/api/') && direct.push(r.url())));
  await phone.page.goto(link);
  await phone.page.waitForSelector('text=Deploy to production?', { timeout: 30_000 });
  assert.ok(!phone.page.url().includes('relay='), 'the code leaves the address bar');
  await phone.shot('relay-phone-approvals');
  await phone.page.click('text=Approve');
  await phone.page.waitForSelector('text=Nothing is waiting for you.');
  const log = await t.api('GET', `/api/runs/${run.body.runId}/events`);
  assert.ok(log.body.events.some((e: { kind: string; approved?: boolean }) => e.kind === 'gate.resolved' && e.approved === true));
  assert.deepEqual(direct, [], 'every data request went through the broker');

  // A later visit without the code: the page uses the device it stored, and new work reaches it as events.
  await phone.page.goto(link.split('#')[0]);
  await phone.page.waitForSelector('[data-relay]', { state: 'detached', timeout: 30_000 });
  const second = await t.api('POST', '/api/runs/deploy', {});
  await phone.page.waitForSelector('text=Deploy to production?', { timeout: 30_000 });
  await phone.page.click('text=Reject');
  await phone.page.waitForSelector('text=Nothing is waiting for you.');
  const log2 = await t.api('GET', `/api/runs/${second.body.runId}/events`);
  assert.ok(log2.body.events.some((e: { kind: string; approved?: boolean }) => e.kind === 'gate.resolved' && e.approved === false));
  assert.deepEqual(direct, [], 'still nothing to the engine\'s HTTP');

  // The workbench lists the phone; unpairing it reaches the phone at once.
  await desk.page.waitForSelector('[data-device]');
  await desk.page.click('[data-device] >> text=Unpair');
  await phone.page.waitForSelector('text=this phone was unpaired in the workbench');
  await phone.shot('relay-phone-unpaired');
  await desk.page.waitForSelector('[data-device]', { state: 'detached' });
  assert.deepEqual(desk.errors.concat(phone.errors), []);
  assert.deepEqual(desk.refused.concat(phone.refused), []);
});
