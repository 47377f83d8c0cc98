/**
 * The phone relay over loopback (docs/relay.md), a real engine and a real broker (aedes over
 * WebSocket, as in the tests):
 *   latency    GET /api/mobile/session three ways, alternating: straight over HTTP with the mobile
 *              token (the baseline), a bare MQTT round trip through the broker (its own hop: a
 *              plaintext echo client, no engine), and through the relay (sealed, dispatched into the
 *              engine's routes, sealed back). Added latency = relay minus HTTP; aim p50 < 5 ms.
 *   memory     heap + external of the engine process with the connector idle and connected, against
 *              the same engine with the relay off; mqtt.js's code (and what its first connection loads)
 *              is loaded beforehand and counted apart: it is the library's, paid once.
 *   reconnect  seconds from a restarted broker listening again to the connector connected; aim < 5 s.
 */
import mqtt from 'mqtt';
import { pairPhone, RelayPhone } from '../src/capabilities/relay/phone-client.js';
import { startBroker } from '../test/support/mqtt-broker.js';
import { startFixture } from './lib/child.js';
import { fmt, result, table } from './lib/report.js';
import { describe, loadNote, stats } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);

// The engine in its own process (its memory is its own); the broker and the phone here.
const broker = await startBroker();
const engine = await startFixture('relay-engine.ts');
const base = `http://127.0.0.1:${engine.port}`;
const ask = <T>(question: string, more: Record<string, string> = {}) =>
  new Promise<T>((resolve) => {
    engine.child.once('message', (m: { answer: T }) => resolve(m.answer));
    engine.child.send({ ask: question, ...more });
  });
const relay = async () => (await fetch(`${base}/api/relay`)).json() as Promise<{ state: string; pairing: { blob: string } | null }>;
const waitState = async (state: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while ((await relay()).state !== state) {
    if (Date.now() > end) throw new Error(`the relay did not reach ${state}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const token = await ask<string>('token');

// ---- memory: the same engine, relay off, then on, connected and idle ---------------------------
await new Promise((r) => setTimeout(r, 6000)); // past the engine's warm-ups (grammar, sandbox probe, login shell)
const off = await ask<number>('measure');
await ask('preload', { url: broker.url }); // mqtt.js's code and what a first connection loads, counted apart
const loaded = await ask<number>('measure');
await fetch(`${base}/api/relay/enable`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: broker.url }) });
await waitState('connected');
await new Promise((r) => setTimeout(r, 2000)); // idle: keepalives only
const idle = await ask<number>('measure');

// ---- latency -------------------------------------------------------------------------------------
const client = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
const device = await pairPhone(client, (await relay()).pairing!.blob);
const phone = new RelayPhone(client, device);
await phone.start();

const echo = await mqtt.connectAsync(broker.url, { protocolVersion: 4 });
await echo.subscribeAsync('bench/ping');
echo.on('message', (_t, payload) => echo.publish('bench/pong', payload));
await client.subscribeAsync('bench/pong');
let pong: (() => void) | undefined;
client.on('message', (topic) => void (topic === 'bench/pong' && pong?.()));
const body = JSON.stringify({ t: 'req', id: 'x', method: 'GET', path: '/api/mobile/session' });

const sides = {
  http: async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/mobile/session`, { headers: { 'x-engine-mobile-token': token } });
    await res.json();
    return performance.now() - t0;
  },
  broker: async () => {
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      pong = resolve;
      client.publish('bench/ping', body);
    });
    return performance.now() - t0;
  },
  relay: async () => {
    const t0 = performance.now();
    const res = await phone.request('GET', '/api/mobile/session');
    if (res.status !== 200) throw new Error(`relay answered ${res.status}`);
    return performance.now() - t0;
  },
};
const samples: Record<keyof typeof sides, number[]> = { http: [], broker: [], relay: [] };
const names = Object.keys(sides) as Array<keyof typeof sides>;
for (let w = 0; w < 50; w++) for (const n of names) await sides[n]();
for (let r = 0; r < ROUNDS; r++) for (const n of r % 2 ? [...names].reverse() : names) samples[n].push(await sides[n]());
const added = samples.relay.map((x, i) => x - samples.http[i]);

// ---- reconnect -----------------------------------------------------------------------------------
const reconnects: number[] = [];
for (let i = 0; i < 3; i++) {
  await broker.restart(); // every connection is cut before it listens again
  const t0 = performance.now();
  await waitState('connecting'); // the engine noticed the drop (it redials a second later at the earliest)
  await waitState('connected');
  reconnects.push((performance.now() - t0) / 1000);
}

phone.stop();
await client.endAsync(true);
await echo.endAsync(true);
await engine.stop();
await broker.close();

const p = (xs: number[]) => stats(xs);
table([
  { path: 'HTTP with the mobile token (baseline)', 'ms p50 (p25-p75, min-max, n)': describe(samples.http, 2) },
  { path: 'broker hop alone (MQTT echo, plaintext)', 'ms p50 (p25-p75, min-max, n)': describe(samples.broker, 2) },
  { path: 'through the relay (sealed, dispatched)', 'ms p50 (p25-p75, min-max, n)': describe(samples.relay, 2) },
  { path: 'added by the relay (relay - HTTP)', 'ms p50 (p25-p75, min-max, n)': describe(added, 2) },
]);
console.log(
  `memory: mqtt.js code ${fmt((loaded - off) / 1024)} kB (loaded on the first enable, once); connector connected and idle ${fmt((idle - loaded) / 1024)} kB; ` +
    `reconnect after a broker restart ${reconnects.map((s) => s.toFixed(2)).join(', ')} s`,
);
console.log(await loadNote());
result('relay added latency p50 (relay - HTTP)', 'ms', p(added).median, p(samples.broker).median, { under: 5 });
result('relay round trip vs HTTP with the token', 'ms', samples.relay, samples.http, { ratioAtMost: 10 });
result('relay connector idle memory (connected, mqtt.js preloaded)', 'kB', (idle - loaded) / 1024, (loaded - off) / 1024, { under: 1024 });
result('relay reconnect after a broker restart', 's', reconnects, 1, { under: 5 });
process.exit(0);
