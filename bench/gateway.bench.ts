/**
 * The completions gateway against the same request sent straight to the upstream, side by side in
 * one run, rounds alternating (gateway, direct, gateway, ...), one keep-alive client for both:
 *   1. added time to first byte of a streamed completion: p50 and p99 of the gateway's TTFB minus
 *      the direct TTFB (aim: under 1 ms p50, under 5 ms p99);
 *   2. 100 concurrent streams: wall time for all of them (ratio gateway/direct);
 *   3. streamed bytes per second of a long answer (aim: at least 0.95x of direct).
 * The upstream (the scripted model server), the engine and this client each run in their own
 * process, as they would in use; every request asks for usage so both paths stream the same bytes.
 *
 *   node --import tsx bench/gateway.bench.ts
 */
import http from 'node:http';
import type { ScriptStep } from '../test/support/model-server.js';
import { startFixture } from './lib/child.js';
import { fmt, median, pct, result, table } from './lib/report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);
const CONCURRENT = 100;
const CONCURRENT_ROUNDS = 6;
const BIG_ROUNDS = 8;
const BIG_CHARS = 2_000_000;

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** Sends one streamed completion; resolves with the time to the first body byte and the bytes read. */
function stream(base: string, model: string): Promise<{ ttfb: number; bytes: number; total: number }> {
  const url = new URL(base + '/chat/completions');
  const body = JSON.stringify({ model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfb = 0;
    let bytes = 0;
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', (c: Buffer) => {
        if (!ttfb) ttfb = performance.now() - started;
        bytes += c.length;
      });
      res.on('end', () => resolve({ ttfb, bytes, total: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const upstream = await startFixture('model-server.ts');
  const engine = await startFixture('engine-server.ts');
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${engine.port}${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json() as Promise<any>;
  };
  const direct = `http://127.0.0.1:${upstream.port}/v1`;
  await api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'up', baseUrl: direct, model: 'bench' }], defaultProvider: 'up' });
  const gateway = `http://127.0.0.1:${(await api('GET', '/api/models')).gateway.port}/v1`;
  const model = {
    script: (step: ScriptStep, times = 1) =>
      new Promise<void>((resolve) => {
        upstream.child.once('message', () => resolve());
        upstream.child.send({ script: step, times });
      }),
  };
  const small: ScriptStep = { text: 'one two three four five', usage: { input: 5, output: 5 } };

  const run = async (via: 'gateway' | 'direct') => (via === 'gateway' ? stream(gateway, 'up') : stream(direct, 'bench'));

  // Warm both paths (connections, JIT) before measuring.
  for (let i = 0; i < 40; i++) {
    await model.script(small, 2);
    await run('gateway');
    await run('direct');
  }

  // 1. Added time to first byte.
  const ttfb = { gateway: [] as number[], direct: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const via of i % 2 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
      await model.script(small);
      ttfb[via].push((await run(via)).ttfb);
    }
  }
  const added50 = pct(ttfb.gateway, 0.5) - pct(ttfb.direct, 0.5);
  const added99 = pct(ttfb.gateway, 0.99) - pct(ttfb.direct, 0.99);

  // 2. 100 concurrent streams.
  const wall = { gateway: [] as number[], direct: [] as number[] };
  for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
    for (const via of r % 2 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
      await model.script({ ...small, delayMs: 1 }, CONCURRENT);
      const started = performance.now();
      await Promise.all(Array.from({ length: CONCURRENT }, () => run(via)));
      wall[via].push(performance.now() - started);
    }
  }

  // 3. Streamed bytes per second of a long answer.
  const big: ScriptStep = { text: 'x'.repeat(BIG_CHARS), chunkChars: 2000 };
  const rate = { gateway: [] as number[], direct: [] as number[] };
  for (let r = 0; r < BIG_ROUNDS; r++) {
    for (const via of r % 2 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
      await model.script(big);
      const { bytes, total } = await run(via);
      rate[via].push(bytes / (total / 1000));
    }
  }

  table([
    { measure: 'TTFB p50 (ms)', gateway: fmt(pct(ttfb.gateway, 0.5), 3), direct: fmt(pct(ttfb.direct, 0.5), 3), spread: `${fmt(pct(ttfb.gateway, 0.1), 3)}-${fmt(pct(ttfb.gateway, 0.9), 3)} / ${fmt(pct(ttfb.direct, 0.1), 3)}-${fmt(pct(ttfb.direct, 0.9), 3)} (p10-p90)` },
    { measure: 'TTFB p99 (ms)', gateway: fmt(pct(ttfb.gateway, 0.99), 3), direct: fmt(pct(ttfb.direct, 0.99), 3), spread: '' },
    { measure: `${CONCURRENT} concurrent streams (ms)`, gateway: fmt(median(wall.gateway), 1), direct: fmt(median(wall.direct), 1), spread: `${fmt(Math.min(...wall.gateway), 1)}-${fmt(Math.max(...wall.gateway), 1)} / ${fmt(Math.min(...wall.direct), 1)}-${fmt(Math.max(...wall.direct), 1)}` },
    { measure: 'stream MB/s', gateway: fmt(median(rate.gateway) / 1e6, 1), direct: fmt(median(rate.direct) / 1e6, 1), spread: `${fmt(Math.min(...rate.gateway) / 1e6, 1)}-${fmt(Math.max(...rate.gateway) / 1e6, 1)} / ${fmt(Math.min(...rate.direct) / 1e6, 1)}-${fmt(Math.max(...rate.direct) / 1e6, 1)}` },
  ]);
  result('gateway added TTFB p50', 'ms', added50, 1, { under: 1 });
  result('gateway added TTFB p99', 'ms', added99, 5, { under: 5 });
  result(`gateway ${CONCURRENT} concurrent streams (direct/gateway)`, 'ms', wall.direct, wall.gateway, { ratioAtLeast: 0.5 });
  result('gateway stream throughput', 'B/s', rate.gateway, rate.direct, { ratioAtLeast: 0.95 });

  agent.destroy();
  await engine.stop();
  await upstream.stop();
}

await main();
