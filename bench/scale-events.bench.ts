/**
 * Scale curves for the /events fan-out: 10, 100 and 1 000 WebSocket clients, the engine (its own
 * process, bench/fixtures/engine-server.ts) emitting events on its bus in batches of 100 a tick.
 *
 *   per-event cost     time until every client has every event, divided by the events: linear in
 *                      clients (each client gets its own copy of every frame); side by side with a
 *                      bare `ws` broadcast (bench/fixtures/baseline-ws.ts), rounds alternating
 *   slow client        10 clients reading, plus one that stops reading (its socket paused): the
 *                      others must get their events as fast as without it, and the slow one is
 *                      dropped once it is more than the buffer bound (8 MB) behind
 *
 * The clients run in this process, so their own parsing is part of the time, the same at every size
 * per client; SCALE scales the events sent (SCALE=0.1 for a quick look).
 */
import WebSocket from 'ws';
import { printCurve, scaled, type Point } from './lib/curve.js';
import { median } from './lib/report.js';
import { startFixture } from './lib/child.js';
import { alternate, describe, loadNote, timed } from './lib/rounds.js';

type Server = Awaited<ReturnType<typeof startFixture>>;

async function connect(port: number, n: number): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
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

/** Emits `events` and resolves once every socket in `readers` has them all. */
function fanOut(server: Server, readers: WebSocket[], events: number, pad: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let remaining = readers.length;
    const timer = setTimeout(() => reject(new Error(`fan-out did not complete: ${remaining} clients short`)), 120_000);
    for (const ws of readers) {
      let got = 0;
      ws.removeAllListeners('message');
      ws.removeAllListeners('close');
      ws.once('close', () => reject(new Error('a reading client was dropped')));
      ws.on('message', () => {
        if (++got === events && --remaining === 0) {
          clearTimeout(timer);
          resolve();
        }
      });
    }
    server.child.send({ emit: events, batch: 100, pad });
  });
}

const close = (sockets: WebSocket[]) => sockets.forEach((ws) => (ws.removeAllListeners('close'), ws.terminate()));
const perEvent = { engine: [] as Point[], bare: [] as Point[] };
const PAD = 'x'.repeat(80);
const server = await startFixture('engine-server.ts');
const bare = await startFixture('baseline-ws.ts');
let stall = '';
try {
  for (const clients of [10, 100, 1000]) {
    const events = scaled(Math.max(2000, 200_000 / clients));
    const sockets = { engine: await connect(server.port, clients), bare: await connect(bare.port, clients) };
    try {
      const r = await alternate(5, { engine: () => timed(() => fanOut(server, sockets.engine, events, PAD)), bare: () => timed(() => fanOut(bare, sockets.bare, events, PAD)) });
      perEvent.engine.push({ size: clients, ms: median(r.engine) / events });
      perEvent.bare.push({ size: clients, ms: median(r.bare) / events });
      console.log(`${clients} clients, ${events} events to all: engine ${describe(r.engine, 0)} ms, bare ws ${describe(r.bare, 0)} ms, ratio ${(median(r.engine) / median(r.bare)).toFixed(2)}`);
    } finally {
      close(sockets.engine);
      close(sockets.bare);
    }
  }
  await bare.stop();

  // 1 KB events, 20 MB of them: past the 8 MB bound plus what the kernel buffers for a client that
  // does not read (its receive window never grows), and little enough that readers keep up.
  const big = 'y'.repeat(1000);
  const events = 20_000;
  let readers = await connect(server.port, 10);
  let readerDrops = 0;
  /** A round again (with fresh readers) when a reader fell 8 MB behind and was dropped: counted, reported. */
  const again = async <T>(round: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await round();
      } catch (err) {
        if (!/reading client was dropped/.test((err as Error).message) || ++readerDrops > 3) throw err;
        close(readers);
        readers = await connect(server.port, 10);
      }
    }
  };
  try {
    /** One round with a fresh client that stops reading: the readers' time, and whether the slow one was dropped short. */
    const withSlow = async () => {
      const [slow] = await connect(server.port, 1);
      let got = 0;
      slow.on('message', () => got++);
      const raw = (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      raw.pause();
      const t = performance.now();
      await fanOut(server, readers, events, big);
      const ms = performance.now() - t;
      // Reading again: a dropped client reads what reached it, then its socket closes short of the events.
      const closed = new Promise<boolean>((resolve) => {
        slow.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 10_000);
      });
      raw.resume();
      const dropped = (await closed) && got < events;
      slow.terminate();
      return { ms, dropped, got };
    };
    const alone: number[] = [];
    const slowRounds: Array<{ ms: number; dropped: boolean; got: number }> = [];
    await again(() => fanOut(server, readers, events, big));
    for (let r = 0; r < 3; r++) {
      alone.push(await again(() => timed(() => fanOut(server, readers, events, big))));
      slowRounds.push(await again(withSlow));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
    const a = med(alone);
    const w = med(slowRounds.map((x) => x.ms));
    const dropped = slowRounds.every((x) => x.dropped);
    stall = `RESULT scale /events slow client: 10 readers got ${events} 1 KB events in ${a.toFixed(0)} ms alone, ${w.toFixed(0)} ms with a client that stopped reading (median of 3, ratio ${(w / a).toFixed(2)}, aim <= 1.3); the slow client ${dropped ? `was dropped every time (after ${slowRounds.map((x) => x.got).join(', ')} events)` : 'was NOT always dropped'}; readers dropped for falling 8 MB behind: ${readerDrops} ${w <= 1.3 * a && dropped ? 'ok' : 'STALLS'}`;
  } finally {
    close(readers);
  }
} finally {
  await Promise.all([server.stop(), bare.stop()]);
}
console.log(await loadNote());
printCurve({ path: '/events per-event cost to all clients', unit: 'clients', expected: 'linear', points: perEvent.engine });
printCurve({ path: 'bare ws broadcast per-event cost (baseline)', unit: 'clients', expected: 'linear', points: perEvent.bare });
console.log(stall);
