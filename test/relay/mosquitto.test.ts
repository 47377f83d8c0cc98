/**
 * The engine's side of the relay against the broker people already run: Debian's Mosquitto over
 * plain MQTT on TCP (its WebSocket listener does not open in the packaged 2.0.11, which is why the
 * other relay tests use aedes). The engine dials `mqtt://`, a phone pairs over the same broker,
 * answers come back sealed, and after Mosquitto restarts on the same port the connector comes back
 * by itself and the phone's next request is answered.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { pairPhone, RelayPhone } from '../../src/capabilities/relay/phone-client.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

const BIN = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => existsSync(p));
// Like the database servers: outside CI a missing package skips with its name; under CI it fails.
const missing = !BIN && !process.env.CI ? 'needs the Debian package mosquitto (.ci/run installs it)' : undefined;

let broker: ChildProcess | undefined;
let t: TestEngine | undefined;
let client: MqttClient | undefined;
after(async () => {
  await client?.endAsync(true);
  await t?.close();
  broker?.kill('SIGKILL');
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Starts Mosquitto on `port` and resolves once it accepts TCP connections. */
async function startMosquitto(config: string, port: number): Promise<ChildProcess> {
  const child = spawn(BIN ?? 'mosquitto', ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited: ${log}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (open) return child;
    if (Date.now() > end) throw new Error(`mosquitto did not listen on ${port}: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const until = async (check: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

test('the engine relays through Mosquitto over TCP, and comes back after Mosquitto restarts', { skip: missing }, async () => {
  const dir = await tempDir();
  const port = await freePort();
  const config = path.join(dir, 'mosquitto.conf');
  await writeFile(config, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n`);
  broker = await startMosquitto(config, port);
  const url = `mqtt://127.0.0.1:${port}`;

  t = await startTestEngine();
  assert.equal((await t.api('POST', '/api/relay/enable', { url })).status, 200);
  await until(async () => (await t!.api('GET', '/api/relay')).body.state === 'connected', 'the connector to reach Mosquitto');

  client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 100 });
  const device = await pairPhone(client, (await t.api('GET', '/api/relay')).body.pairing.blob, { name: 'tcp phone' });
  const phone = new RelayPhone(client, device);
  await phone.start();
  const session = await phone.request('GET', '/api/mobile/session');
  assert.equal(session.status, 200);
  assert.equal(session.body.device.id, device.device);
  assert.equal((await phone.request('GET', '/api/settings')).status, 403, 'the relay policy holds over TCP too');

  broker.kill('SIGTERM');
  await new Promise((r) => broker!.once('exit', r));
  await until(async () => (await t!.api('GET', '/api/relay')).body.state !== 'connected', 'the connector to notice the broker is gone');
  broker = await startMosquitto(config, port);
  await until(async () => (await t!.api('GET', '/api/relay')).body.state === 'connected', 'the connector to come back after the restart');
  await until(async () => client!.connected, 'the phone to reconnect');
  await phone.start(); // Mosquitto kept no sessions (persistence off): the phone subscribes again
  assert.equal((await phone.request('GET', '/api/mobile/approvals')).status, 200);
  phone.stop();
});
