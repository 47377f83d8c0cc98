/**
 * The phone keeps the last frame counter it accepted from the engine across reloads (issue 39): the
 * broker's operator keeps a frame the engine sent the phone, and hands it back the moment the
 * reloaded page subscribes (a retained message: before any newer frame could raise the page's mark).
 * The page refuses it, says so, and acts on nothing in it.
 */
import assert from 'node:assert/strict';
import mqtt, { type MqttClient } from 'mqtt';
import { after, before, test } from 'node:test';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { gateFlow } from '../support/gate-flow.js';
import { startBroker, type TestBroker } from '../support/mqtt-broker.js';

let t: TestEngine;
let broker: TestBroker;
let phone: TestBrowser;
let operator: MqttClient;
/** What the engine sent down to phones, in order, as the broker's operator saw it. */
const down: Array<{ topic: string; payload: Buffer }> = [];

before(async () => {
  broker = await startBroker();
  t = await startTestEngine();
  phone = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
  operator = await mqtt.connectAsync(broker.url, { protocolVersion: 4, reconnectPeriod: 200 });
  await operator.subscribeAsync('wb/#');
  operator.on('message', (topic, payload) => void (/\/d\/[^/]+\/d$/.test(topic) && payload.length && down.push({ topic, payload: Buffer.from(payload) })));
});
after(async () => {
  await operator?.endAsync();
  await phone?.close();
  await t?.close();
  await broker?.close();
});

test('a frame the broker kept from before a reload is refused by the reloaded phone', async () => {
  assert.equal((await t.api('POST', '/api/relay/enable', { url: broker.url })).status, 200);
  let link: string | undefined;
  for (let i = 0; i < 200 && !link; i++) {
    link = (await t.api('GET', '/api/relay')).body.pairing?.link;
    if (!link) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(link, 'the relay shows a pairing link');
  await t.api('PUT', '/api/workflows/deploy', gateFlow('deploy', 'Deploy to production?', { node: 'ok' }));
  await t.api('POST', '/api/runs/deploy', {});
  await phone.page.goto(link);
  await phone.page.waitForSelector('text=Deploy to production?', { timeout: 30_000 });
  await phone.page.click('text=Approve');
  await phone.page.waitForSelector('text=Nothing is waiting for you.');
  assert.ok(down.length > 2, `the operator kept the engine's frames (${down.length})`);
  const old = down[0];

  // The operator hands the old frame to whoever subscribes next: the reloaded page, first thing.
  await operator.publishAsync(old.topic, old.payload, { qos: 1, retain: true });
  await phone.page.reload();
  await phone.page.waitForSelector('[data-relay]', { state: 'detached', timeout: 30_000 });
  await phone.page.waitForSelector('text=Nothing is waiting for you.');
  const note = await phone.page.waitForSelector('[data-relay-refused]', { timeout: 30_000 });
  assert.match(await note.innerText(), /a message this phone had already received \(or an altered one\); it was refused/);
  await phone.shot('relay-phone-replay-refused');
  await operator.publishAsync(old.topic, Buffer.alloc(0), { qos: 1, retain: true }); // the retained frame is cleared
  assert.equal(await phone.page.locator('text=Deploy to production?').count(), 0);
  assert.deepEqual(phone.errors, []);
});
