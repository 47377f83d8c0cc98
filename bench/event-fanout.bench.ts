/**
 * Event fan-out: N WebSocket clients on /events, the server emits E events as fast as it can
 * (a batch per tick, as real work does), and we time until every client has every event.
 * The engine (bus -> /events socket, guard on the upgrade) against a bare `ws` broadcast server that
 * serializes and encodes each event once for all clients, as the engine does (the strongest bare
 * way: a baseline encoding per client would hand the engine a head start). Both servers keep their
 * clients connected for the whole case; rounds alternate (ABBA), medians and spread are compared.
 */
import WebSocket from 'ws';
import { startFixture } from './lib/child.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const PAD = 'x'.repeat(80); // a frame of roughly the size of a typical node.delta event
const CASES = [
  // Rounds of about a second: with bursts leaving as one write per client, shorter rounds measured
  // start-up compilation and single GC pauses more than the fan-out.
  { clients: 100, events: 20_000, rounds: Number(process.env.BENCH_ROUNDS ?? 15) },
  { clients: 1000, events: 2_000, rounds: Number(process.env.BENCH_ROUNDS ?? 11) },
].filter((c) => !process.env.FANOUT_CLIENTS || process.env.FANOUT_CLIENTS.split(',').includes(String(c.clients))); // FANOUT_CLIENTS=1000: one case

async function connect(port: number, n: number): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  // Open in groups so the accept queue is not flooded.
  for (let i = 0; i < n; i += 50) {
    const group = Array.from({ length: Math.min(50, n - i) }, () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/events`, { perMessageDeflate: false });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      }),
    );
    out.push(...(await Promise.all(group)));
  }
  return out;
}

/** Emits `events` through the server and resolves with the seconds until every client had them all. */
function fanOut(server: Awaited<ReturnType<typeof startFixture>>, sockets: WebSocket[], events: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let remaining = sockets.length;
    const started = performance.now();
    const timer = setTimeout(() => reject(new Error(`fan-out did not complete: ${remaining} clients short`)), 60_000);
    for (const ws of sockets) {
      let got = 0;
      ws.removeAllListeners('message');
      ws.removeAllListeners('close');
      ws.on('message', () => {
        if (++got === events && --remaining === 0) {
          clearTimeout(timer);
          resolve((performance.now() - started) / 1000);
        }
      });
      ws.once('close', () => reject(new Error('a client was dropped')));
    }
    server.child.send({ emit: events, batch: 100, pad: PAD });
  });
}

const rows: Array<Record<string, string>> = [];
const results: Array<{ label: string; engine: number[]; baseline: number[] }> = [];
for (const c of CASES) {
  // Both servers and both sets of clients stay up for the whole case, so rounds can alternate.
  const engine = await startFixture('engine-server.ts');
  const bare = await startFixture('baseline-ws.ts');
  const engineSockets = await connect(engine.port, c.clients);
  const bareSockets = await connect(bare.port, c.clients);
  try {
    const s = await alternate(
      c.rounds,
      {
        engine: async () => c.events / (await fanOut(engine, engineSockets, c.events)),
        bare: async () => c.events / (await fanOut(bare, bareSockets, c.events)),
      },
      { warmup: 2 },
    );
    rows.push({ clients: String(c.clients), 'engine events/s to all': describe(s.engine, 0), 'bare ws (encode once) events/s': describe(s.bare, 0) });
    results.push({ label: `event fan-out to ${c.clients} clients`, engine: s.engine, baseline: s.bare });
  } finally {
    for (const ws of [...engineSockets, ...bareSockets]) {
      ws.removeAllListeners('close');
      ws.terminate();
    }
    await Promise.all([engine.stop(), bare.stop()]);
  }
}
console.log(await loadNote());
table(rows);
for (const r of results) result(r.label, 'events/s', r.engine, r.baseline, { ratioAtLeast: 0.7 });
