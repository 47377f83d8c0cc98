/**
 * Event fan-out: N WebSocket clients on /events, the server emits E events as fast as it can
 * (a batch per tick, as real work does), and we time until every client has every event.
 * The engine (bus -> /events socket, guard on the upgrade) against a bare `ws` broadcast server.
 * Rounds alternate between the two; medians are compared.
 */
import WebSocket from 'ws';
import { startFixture } from './lib/child.js';
import { fmt, median, result, table } from './lib/report.js';

const PAD = 'x'.repeat(80); // a frame of roughly the size of a typical node.delta event
const CASES = [
  { clients: 100, events: 3_000 },
  { clients: 1000, events: 200 },
];
const ROUNDS = 3;

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
const results: Array<{ label: string; engine: number; baseline: number }> = [];
for (const c of CASES) {
  const sides = [
    { name: 'engine', fixture: 'engine-server.ts', rates: [] as number[] },
    { name: 'bare ws', fixture: 'baseline-ws.ts', rates: [] as number[] },
  ];
  for (const side of sides) {
    const server = await startFixture(side.fixture);
    const sockets = await connect(server.port, c.clients);
    try {
      await fanOut(server, sockets, Math.min(100, c.events)); // warm-up
      for (let r = 0; r < ROUNDS; r++) {
        const seconds = await fanOut(server, sockets, c.events);
        side.rates.push(c.events / seconds);
      }
    } finally {
      for (const ws of sockets) {
        ws.removeAllListeners('close');
        ws.terminate();
      }
      await server.stop();
    }
  }
  for (const side of sides) {
    const m = median(side.rates);
    rows.push({ clients: String(c.clients), server: side.name, 'events/s to all (median)': fmt(m), 'frames/s delivered': fmt(m * c.clients) });
  }
  results.push({ label: `event fan-out to ${c.clients} clients`, engine: median(sides[0].rates), baseline: median(sides[1].rates) });
}
table(rows);
for (const r of results) result(r.label, 'events/s', r.engine, r.baseline, { ratioAtLeast: 0.7 });
