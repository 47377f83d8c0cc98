/**
 * The relay end to end: a real engine, a real MQTT broker on loopback (aedes over WebSocket), and a
 * phone in the test speaking the shared protocol (src/capabilities/relay/phone-client.ts) through
 * mqtt.js. A subscriber to every topic checks that the broker carries nothing readable.
 */
import assert from 'node:assert/strict';
import { createECDH, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { pairPhone, RelayPhone, type PairedDevice } from '../../src/capabilities/relay/phone-client.js';
import { decodeBlob, topics } from '../../src/capabilities/relay/protocol.js';
import { startBroker, type TestBroker } from '../support/mqtt-broker.js';
import { startWf, wf, type WfHarness } from '../workflows/harness.js';

let h: WfHarness;
let broker: TestBroker;
/** Every message the broker carried, as a subscriber to `#` saw it. */
const seen: Array<{ topic: string; payload: Buffer }> = [];
let sniffer: MqttClient;
const clients: MqttClient[] = [];

const connect = async (url: string): Promise<MqttClient> => {
  const c = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 200 });
  clients.push(c);
  return c;
};
const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const GATE_TEXT = 'Ship the quarterly numbers to ACME-7731?';

let blobText: string;
let device: PairedDevice;
let phone: RelayPhone;

before(async () => {
  broker = await startBroker();
  h = await startWf();
  sniffer = await connect(broker.url);
  sniffer.on('message', (topic, payload) => seen.push({ topic, payload: Buffer.from(payload) }));
  await sniffer.subscribeAsync('#');
});
after(async () => {
  phone?.stop();
  for (const c of clients) await c.endAsync(true).catch(() => undefined);
  await h.close();
  await broker.close();
});

test('enable: the relay connects out to the broker and shows a one-time pairing code; bad input is a sentence', async () => {
  const off = await h.t.api('GET', '/api/relay');
  assert.equal(off.status, 200);
  assert.equal(off.body.enabled, false);
  assert.equal(off.body.pairing, null);
  assert.equal(off.body.remoteStart, false);

  const bad = await h.t.api('POST', '/api/relay/enable', { url: 'http://broker.example.com' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /wss:\/\/ or ws:\/\//);

  const on = await h.t.api('POST', '/api/relay/enable', { url: broker.url });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  await until(async () => (await h.t.api('GET', '/api/relay')).body.state === 'connected', 'the connector to connect');
  const status = (await h.t.api('GET', '/api/relay')).body;
  blobText = status.pairing.blob;
  assert.ok(status.pairing.link.endsWith(`/m/#relay=${blobText}`));
  const blob = decodeBlob(blobText);
  assert.equal(blob.url, broker.url);
});

test('GET /api/relay and its writes refuse the mobile token (403)', async () => {
  const token = { 'x-engine-mobile-token': h.t.engine.mobileToken };
  assert.equal((await h.t.api('GET', '/api/relay', undefined, token)).status, 403);
  assert.equal((await h.t.api('POST', '/api/relay/remote-start', { enabled: true }, token)).status, 403);
  // The phone's own routes are open to it.
  assert.equal((await h.t.api('GET', '/api/mobile/approvals', undefined, token)).status, 200);
});

test('a phone pairs from the blob; the code is then spent and a new one is shown', async () => {
  const c = await connect(broker.url);
  device = await pairPhone(c, blobText, { name: 'test phone' });
  phone = new RelayPhone(c, device);
  await phone.start();
  const status = (await h.t.api('GET', '/api/relay')).body;
  assert.deepEqual(status.devices.map((d: { id: string; name: string }) => [d.id, d.name]), [[device.device, 'test phone']]);
  assert.notEqual(status.pairing.blob, blobText, 'a fresh code after each pairing');
  // The spent code pairs nothing.
  const other = await connect(broker.url);
  await assert.rejects(pairPhone(other, blobText, { timeoutMs: 1500 }), /did not answer the pairing/);

  const session = await phone.request('GET', '/api/mobile/session');
  assert.equal(session.status, 200);
  assert.equal(session.body.via, 'relay');
  assert.equal(session.body.device.id, device.device);
  assert.equal(session.body.remoteStart, false);
});

test('through the relay the phone lists approvals, resolves a real gate and streams the events', async () => {
  const streamed: Array<Record<string, unknown>> = [];
  const stopWatching = phone.watch((events) => streamed.push(...(events as Array<Record<string, unknown>>)));
  await h.save(
    wf(
      'ship',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'review', type: 'gate', config: { message: GATE_TEXT } },
        { id: 'done', type: 'state', config: { key: 'shipped', value: 'yes' } },
      ],
      [
        { from: 'start', to: 'review' },
        { from: 'review', to: 'done', when: 'approved' },
      ],
    ),
  );
  const runId = await h.run('ship');
  await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  await until(() => streamed.some((e) => e.kind === 'gate.waiting' && e.runId === runId), 'gate.waiting on the phone');

  const list = await phone.request('GET', '/api/mobile/approvals');
  assert.equal(list.status, 200);
  const approval = list.body.approvals.find((a: { runId: string }) => a.runId === runId);
  assert.equal(approval.kind, 'gate');
  assert.equal(approval.title, GATE_TEXT);
  assert.deepEqual(approval.resolve, { method: 'POST', path: '/api/gates/resolve', body: { runId, nodeId: 'review' } });

  const resolved = await phone.request('POST', approval.resolve.path, { ...approval.resolve.body, approved: true, note: 'from the phone' });
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed');
  await until(() => streamed.some((e) => e.kind === 'run.completed' && e.runId === runId), 'run.completed on the phone');
  assert.equal((await phone.request('GET', '/api/mobile/approvals')).body.approvals.length, 0);
  // The engine's own checks hold through the relay: a gate no longer pending is a 404 sentence.
  const again = await phone.request('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: true });
  assert.equal(again.status, 404);
  assert.match(again.body.error, /no gate .* is pending/);
  stopWatching();
});

test('the phone is refused the relay, the terminal, secrets, settings, rules, mounts and the home, each with a sentence', async () => {
  const forbidden: Array<[string, string, unknown?]> = [
    ['GET', '/api/relay'],
    ['POST', '/api/relay/remote-start', { enabled: true }],
    ['POST', `/api/relay/devices/${device?.device}/unpair`],
    ['GET', '/api%2Frelay'],
    ['GET', '/term?id=x'],
    ['GET', '/api/secrets'],
    ['PUT', '/api/settings', { chatMaxTurns: 3 }],
    ['GET', '/api/permissions'],
    ['POST', '/api/permissions/rule', { key: 'run_shell', decision: 'allow' }],
    ['POST', '/api/permissions/resolve', { callId: 'x', decision: 'allow', scope: 'always' }],
    ['GET', '/api/mounts'],
    ['POST', '/api/home', { path: '/tmp/elsewhere' }],
  ];
  for (const [method, path, body] of forbidden) {
    const res = await phone.request(method, path, body);
    assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.error, /^[a-z].{20,}$/, `${method} ${path} says why`);
  }
  // Remote start off (the default): no starting work, with a sentence saying how to allow it.
  const start = await phone.request('POST', '/api/runs/ship', {});
  assert.equal(start.status, 403);
  assert.match(start.body.error, /remote start is off/);
  // Turned on in the workbench, the same request starts a run.
  assert.equal((await h.t.api('POST', '/api/relay/remote-start', { enabled: true })).status, 200);
  const started = await phone.request('POST', '/api/runs/ship', {});
  assert.equal(started.status, 202, JSON.stringify(started.body));
  await h.t.api('POST', `/api/runs/${started.body.runId}/stop`);
  await h.t.api('POST', '/api/relay/remote-start', { enabled: false });
  // Still refused with remote start on: the relay itself.
  assert.equal((await phone.request('GET', '/api/relay')).status, 403);
});

test('a tampered and a replayed frame are refused and answered with nothing', async () => {
  const before = (await h.t.api('GET', '/api/relay')).body.refused;
  const c = clients[clients.length - 2]; // the paired phone's own connection
  const up = topics.up(device.engine, device.topic);
  const frame = await phone.send({ t: 'req', id: 'probe-1', method: 'GET', path: '/api/mobile/session' });
  // Replayed: the very frame again.
  c.publish(up, Buffer.from(frame));
  // Tampered: one bit of the ciphertext flipped, with a fresh counter so only the tag can catch it.
  const fresh = await phone.send({ t: 'req', id: 'probe-2', method: 'GET', path: '/api/mobile/session' });
  const bent = Buffer.from(fresh);
  bent[bent.length - 20] ^= 1;
  bent.writeUInt32BE(bent.readUInt32BE(5) + 1000, 5);
  c.publish(up, bent);
  await until(async () => {
    const r = (await h.t.api('GET', '/api/relay')).body.refused;
    return r.replayed > before.replayed && r.tampered > before.tampered;
  }, 'both refusals to be counted');
});

test('the broker saw only ciphertext: no message text, gate title, token, key or pairing secret', async () => {
  assert.ok(seen.length > 10, `the sniffer saw the traffic (${seen.length} messages)`);
  const blob = decodeBlob(blobText);
  const secrets = [GATE_TEXT, 'ACME-7731', 'from the phone', h.t.engine.mobileToken, blob.secret, device.up, device.down, device.device, '/api/', 'gate.waiting', 'approvals', 'test phone'];
  for (const { topic, payload } of seen) {
    assert.match(topic, /^wb\/[A-Za-z0-9_-]+\/(p\/[A-Za-z0-9_-]+(\/r)?|d\/[A-Za-z0-9_-]+\/[ud])$/, `topic ${topic} holds random ids only`);
    const text = payload.toString('latin1');
    for (const s of secrets) assert.ok(!text.includes(s) && !topic.includes(s), `"${s}" crossed the broker in the clear on ${topic}`);
  }
});

test('the connector reconnects after a broker restart', async () => {
  await broker.restart();
  await until(async () => (await h.t.api('GET', '/api/relay')).body.state === 'connected', 'the connector to reconnect', 15_000);
  // The phone's mqtt.js reconnects too; without a persistent session it subscribes again.
  const c = clients[clients.length - 2];
  await until(() => c.connected, 'the phone to reconnect');
  await phone.start();
  const res = await phone.request('GET', '/api/mobile/session');
  assert.equal(res.status, 200);
});

test('a push channel sent through the relay is the paired phone\'s, whatever it says, and it forgets only its own', async () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // An address literal: the floor judges it without DNS (nothing is sent to it here).
  const subscription = (name: string) => ({ endpoint: `https://8.8.8.8/push/${name}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } });
  const viaRelay = await phone.request('POST', '/api/mobile/push/subscribe', { subscription: subscription('phone'), deviceId: 'someone-else' });
  assert.equal(viaRelay.status, 200, JSON.stringify(viaRelay.body));
  assert.equal(viaRelay.body.deviceId, device.device);
  assert.equal((await h.t.api('POST', '/api/mobile/push/subscribe', { subscription: subscription('desk'), deviceId: 'desk' })).body.deviceId, 'desk');
  // Another device's channel, named by id or by endpoint, is out of the phone's reach.
  assert.equal((await phone.request('DELETE', `/api/mobile/push/subscribe?endpoint=${encodeURIComponent('https://8.8.8.8/push/desk')}`)).status, 404);
  const own = await phone.request('DELETE', '/api/mobile/push/subscribe?deviceId=desk');
  assert.equal(own.status, 200);
  assert.equal(own.body.removed, 1, 'the phone forgot its own channel, not the desk\'s');
  assert.equal((await h.t.api('DELETE', '/api/mobile/push/subscribe?deviceId=desk')).body.removed, 1);
});

test('unpair forgets the phone and cuts it off at once; the push capability is told by event', async () => {
  let bye = '';
  phone.onBye = (reason) => (bye = reason);
  const res = await h.t.api('POST', `/api/relay/devices/${device.device}/unpair`);
  assert.equal(res.status, 200);
  const event = await h.events.waitFor((e) => e.kind === 'relay.device.unpaired');
  assert.equal(event.deviceId, device.device);
  await until(() => bye !== '', 'the phone to be told');
  assert.match(bye, /unpaired/);
  assert.deepEqual((await h.t.api('GET', '/api/relay')).body.devices, []);
  // Its keys no longer open anything: a request sent anyway gets no answer.
  const again = new RelayPhone(clients[clients.length - 2], device, 1500);
  await again.start();
  await assert.rejects(again.request('GET', '/api/mobile/session'), /no answer/);
  again.stop();
  assert.equal((await h.t.api('POST', '/api/relay/devices/nope/unpair')).status, 404);
});

test('disable closes the connection; the broker sees the engine leave', async () => {
  const before = broker.clients();
  const res = await h.t.api('POST', '/api/relay/disable');
  assert.equal(res.status, 200);
  assert.equal(res.body.state, 'off');
  assert.equal(res.body.pairing, null);
  await until(() => broker.clients() === before - 1, 'the engine to disconnect');
});
