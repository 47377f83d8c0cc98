/**
 * The engine's added latency to the first `chat.delta`: from the moment the scripted model server
 * writes its first byte to the moment a WebSocket client on /events holds the first chat.delta.
 * Baseline, side by side in the same run: a bare fetch client reading the same server's stream,
 * from the server's first byte to the client holding its first chunk.
 *
 *   node --import tsx bench/chat-latency.bench.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startEngine } from '../src/engine.js';
import { startModelServer } from '../test/support/model-server.js';
import { fmt, median, pct, result, table } from './lib/report.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const WARMUP = 20;
const AIM_MS = 5;


async function main() {
  const model = await startModelServer();
  const home = await mkdtemp(path.join(os.tmpdir(), 'bench-chat-'));
  const engine = await startEngine({ home, port: 0, log: () => undefined });
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(engine.url + route, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json() as Promise<any>;
  };
  await api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'bench' }], defaultProvider: 'scripted' });

  const ws = new WebSocket(engine.url.replace('http', 'ws') + '/events');
  await new Promise((r) => ws.once('open', r));
  let waiting: { sessionId: string; resolve: (t: number) => void } | undefined;
  let ended: { sessionId: string; resolve: () => void } | undefined;
  ws.on('message', (data) => {
    const now = performance.now();
    const e = JSON.parse(String(data));
    if (e.kind === 'chat.delta' && waiting && e.sessionId === waiting.sessionId) {
      const w = waiting;
      waiting = undefined;
      w.resolve(now);
    }
    if (e.kind === 'chat.status' && e.busy === false && ended && e.sessionId === ended.sessionId) {
      const en = ended;
      ended = undefined;
      en.resolve();
    }
  });

  // Where the time goes: the bus sees chat.delta when the loop emits it; the socket client later.
  let emittedAt = 0;
  engine.bus.subscribe((e) => {
    if (e.kind === 'chat.delta' && waiting && e.sessionId === waiting.sessionId && !emittedAt) emittedAt = performance.now();
  });
  const emitSamples: number[] = [];
  const engineSamples: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    const sessionId = `bench-${i}`;
    model.script({ text: 'The first words of a reply.' });
    const before = model.requests.length;
    emittedAt = 0;
    const first = new Promise<number>((resolve) => (waiting = { sessionId, resolve }));
    const done = new Promise<void>((resolve) => (ended = { sessionId, resolve }));
    await api('POST', '/api/chat', { sessionId, message: 'hello' });
    const at = await first;
    await done;
    const served = model.requests[before].firstByteAt!;
    if (i >= WARMUP) {
      engineSamples.push(at - served);
      emitSamples.push(emittedAt - served);
    }
  }

  // Baseline: the same server and stream, read by a bare client.
  const baseSamples: number[] = [];
  for (let i = 0; i < TURNS + WARMUP; i++) {
    model.script({ text: 'The first words of a reply.' });
    const before = model.requests.length;
    const res = await fetch(model.baseUrl + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    const at = performance.now();
    while (!(await reader.read()).done);
    if (i >= WARMUP) baseSamples.push(at - model.requests[before].firstByteAt!);
  }

  ws.close();
  await engine.close();
  await model.close();
  await rm(home, { recursive: true, force: true });

  const row = (name: string, xs: number[]) => ({ [`first delta after the model's first byte (${TURNS} turns)`]: name, 'median ms': fmt(median(xs), 2), 'p90 ms': fmt(pct(xs, 0.9), 2), 'p99 ms': fmt(pct(xs, 0.99), 2) });
  table([row('engine (to chat.delta on ws)', engineSamples), row('  of which to bus.emit', emitSamples), row('baseline (bare fetch)', baseSamples)]);
  const e = median(engineSamples);
  const b = median(baseSamples);
  console.log(`engine added latency over the bare client: ${(e - b).toFixed(2)} ms at the median`);
  result('chat-first-delta-latency', 'ms', e, b, { under: AIM_MS });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
