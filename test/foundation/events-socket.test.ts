/** The /events socket: unlogged kinds, and a client that stops reading is dropped without stalling others. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { eventsSocket } from '../../src/http/sockets/events.js';
import { Bus } from '../../src/kernel/bus.js';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('fs.changed, config.reloaded and chat.renamed reach the socket but no run log; runless events no log', async () => {
  const events = await collectEvents(t.url);
  const run = t.engine.runs.start({ source: 'test' });
  for (const kind of ['fs.changed', 'config.reloaded', 'chat.renamed']) run.emit(kind, { note: 'unlogged' });
  t.engine.bus.emit('workflows.changed', {});
  run.emit('node.started', { nodeId: 'n' });
  await run.finish('completed');
  await events.waitFor((e) => e.kind === 'run.completed' && e.runId === run.id);
  for (const kind of ['fs.changed', 'config.reloaded', 'chat.renamed']) assert.ok(events.events.some((e) => e.kind === kind && e.runId === run.id), kind);
  assert.ok(events.events.some((e) => e.kind === 'workflows.changed' && e.runId === undefined));
  const log = (await t.api('GET', `/api/runs/${run.id}/events`)).body.events.map((e: { kind: string }) => e.kind);
  assert.deepEqual(log, ['run.started', 'node.started', 'run.completed']);
  events.close();
});

test('a client that stops reading is dropped; the others get every event', async () => {
  const healthy = await collectEvents(t.url);
  // A raw WebSocket client that completes the handshake and then never reads again.
  const stalled = net.connect(t.engine.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    stalled.once('error', reject);
    stalled.once('connect', () => {
      stalled.write(
        `GET /events HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
      );
    });
    stalled.once('data', (chunk) => {
      assert.match(chunk.toString('latin1'), /^HTTP\/1\.1 101/);
      stalled.pause();
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
  const pad = 'x'.repeat(64 * 1024);
  const total = 600; // ~38 MB: far beyond the socket buffers and the 8 MB bound
  // Paced so a reader that keeps up (the healthy client shares this process) never falls 8 MB behind.
  for (let i = 0; i < total; i++) {
    t.engine.bus.emit('test.flood', { i, pad });
    if (i % 4 === 3) await new Promise((r) => setTimeout(r, 1));
  }
  const last = await healthy.waitFor((e) => e.kind === 'test.flood' && e.i === total - 1, 60_000);
  assert.ok(last);
  assert.equal(healthy.events.filter((e) => e.kind === 'test.flood').length, total);
  // Reading again drains what the kernel held, then meets the close the engine sent long ago.
  stalled.resume();
  stalled.on('data', () => undefined);
  await closed;
  healthy.close();
});

test('a burst emitted in one tick (corked per client) reaches every client whole and in order, and so do later bursts', async () => {
  const clients = await Promise.all([collectEvents(t.url), collectEvents(t.url), collectEvents(t.url)]);
  for (let burst = 0; burst < 3; burst++) {
    for (let i = 0; i < 250; i++) t.engine.bus.emit('test.burst', { burst, i });
    await new Promise((r) => setImmediate(r));
  }
  t.engine.bus.emit('test.burst.end', {}); // a lone event after the bursts, in its own tick
  for (const c of clients) {
    await c.waitFor((e) => e.kind === 'test.burst.end');
    const got = c.events.filter((e) => e.kind === 'test.burst').map((e) => `${e.burst}.${e.i}`);
    assert.deepEqual(got, Array.from({ length: 750 }, (_, n) => `${Math.floor(n / 250)}.${n % 250}`));
    c.close();
  }
});

test('a burst larger than the lag bound, emitted in one tick, does not drop a client that keeps up', async () => {
  // The socket handler on a bus of its own: nothing else emits, so the only bytes queued are the
  // burst's. (In a whole engine a start-up event arriving while the client is still 8 MB behind
  // would drop it, as the bound says; that is not what this test is about.)
  const bus = new Bus();
  const events = eventsSocket(bus);
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => events.handle(req, socket, head));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const client = await collectEvents(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const pad = 'b'.repeat(100_000);
    const total = 120; // ~12 MB corked at once: past the 8 MB bound only because it waits on purpose
    for (let i = 0; i < total; i++) bus.emit('test.big-burst', { i, pad });
    await client.waitFor((e) => e.kind === 'test.big-burst' && e.i === total - 1, 60_000);
    assert.equal(client.events.filter((e) => e.kind === 'test.big-burst').length, total);
    assert.equal(events.clients(), 1, 'still connected');
  } finally {
    client.close();
    events.close();
    server.close();
  }
});
