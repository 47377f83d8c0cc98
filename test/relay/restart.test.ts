/**
 * The relay across an engine restart: the relay comes back on by itself, paired phones stay paired
 * with the same keys, and a frame captured before the restart is still a replay after it (the
 * counter mark is kept in relay.json, mode 0600).
 */
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { pairPhone, RelayPhone } from '../../src/capabilities/relay/phone-client.js';
import { topics } from '../../src/capabilities/relay/protocol.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startBroker, type TestBroker } from '../support/mqtt-broker.js';

let broker: TestBroker;
let t: TestEngine | undefined;
let client: MqttClient | undefined;
after(async () => {
  await client?.endAsync(true);
  await t?.close();
  await broker?.close();
});

const until = async (check: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

test('after a restart the relay reconnects, the phone still works, and an old frame is still a replay', async () => {
  broker = await startBroker();
  const home = await tempDir();
  t = await startTestEngine({ home });
  assert.equal((await t.api('POST', '/api/relay/enable', { url: broker.url })).status, 200);
  await until(async () => (await t!.api('GET', '/api/relay')).body.state === 'connected', 'the connector');
  client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
  const device = await pairPhone(client, (await t.api('GET', '/api/relay')).body.pairing.blob);
  const phone = new RelayPhone(client, device);
  await phone.start();
  const captured = await phone.send({ t: 'req', id: 'old', method: 'GET', path: '/api/mobile/session' });
  assert.equal((await phone.request('GET', '/api/mobile/session')).status, 200);
  assert.equal((await stat(path.join(home, 'relay.json'))).mode & 0o777, 0o600, 'relay.json holds keys: owner only');

  await t.close();
  t = await startTestEngine({ home });
  await until(async () => (await t!.api('GET', '/api/relay')).body.state === 'connected', 'the relay to come back on by itself');
  const status = (await t.api('GET', '/api/relay')).body;
  assert.deepEqual(status.devices.map((d: { id: string }) => d.id), [device.device]);

  client.publish(topics.up(device.engine, device.topic), Buffer.from(captured));
  await until(async () => (await t!.api('GET', '/api/relay')).body.refused.replayed === 1, 'the replay to be refused');
  const res = await phone.request('GET', '/api/mobile/session');
  assert.equal(res.status, 200);
  assert.equal(res.body.device.id, device.device);
  phone.stop();
});
