/**
 * The completions gateway against the same request sent straight to the upstream (the reference the
 * issue names) and through a bare pass-through proxy (bench/fixtures/bare-proxy.ts: the same hop with
 * no engine, `upstream.pipe(response)`, the strongest honest baseline for "the cost of a hop"),
 * side by side in one run, the three sides alternating (A B C, C B A, ...), one keep-alive client:
 *   1. added time to first byte of a streamed completion: p50 and p99 of the gateway's TTFB minus
 *      the direct TTFB (aim: under 1 ms p50, under 5 ms p99), requests interleaved one by one,
 *      TTFB_ROUNDS rounds of TTFB_PER_ROUND requests per side, the spread across rounds shown;
 *   2. 100 concurrent streams: wall time for all of them (ratio direct/gateway, aim 0.5);
 *   3. streamed bytes per second of a long answer sent as fast as the upstream can write it
 *      (aim: at least 0.95x of direct);
 *   4. a paced answer, as a fast real model streams: a few tokens a chunk every ~1 ms, so no
 *      process saturates a core: bytes per second and the latency each chunk gains on the way
 *      (client arrival minus the upstream's write, matched by byte offset; the two processes'
 *      clock offset cancels in gateway minus direct). The caller does not ask for usage here, as
 *      most SDK callers do not, so the gateway's usage-cutting path is the one measured.
 * The upstream (the scripted model server), the engine, the bare proxy and this client each run in
 * their own process, as they would in use; cases 1-3 ask for usage so every path streams the same bytes.
 *
 *   npm run bench -- gateway     (BENCH_TTFB_ROUNDS, BENCH_TTFB_PER_ROUND to change the sample)
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import type { ScriptStep } from '../test/support/model-server.js';
import { startFixture } from './lib/child.js';
import { fmt, median, pct, result, table } from './lib/report.js';
import { loadNote } from './lib/rounds.js';

const TTFB_ROUNDS = Number(process.env.BENCH_TTFB_ROUNDS ?? 5);
const TTFB_PER_ROUND = Number(process.env.BENCH_TTFB_PER_ROUND ?? 300);
const CONCURRENT = 100;
const CONCURRENT_ROUNDS = 20;
const BIG_ROUNDS = 20;
const BIG_CHARS = 2_000_000;
const PACED_ROUNDS = 10;
const PACED_CHUNKS = 400;

const SIDES = ['gateway', 'proxy', 'direct'] as const;
type Side = (typeof SIDES)[number];
const orderOf = (r: number): readonly Side[] => (r % 2 ? [...SIDES].reverse() : SIDES);
const perSide = <T>(make: () => T) => Object.fromEntries(SIDES.map((s) => [s, make()])) as Record<Side, T>;

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const now = () => performance.timeOrigin + performance.now();

interface Streamed {
  ttfb: number;
  bytes: number;
  total: number;
  /** [body bytes so far, absolute ms] for every chunk read, when asked for. */
  arrivals?: number[];
}

/** Sends one streamed completion; resolves with the time to the first body byte and the bytes read. */
function stream(base: string, model: string, opts: { usage?: boolean; arrivals?: boolean } = {}): Promise<Streamed> {
  const url = new URL(base + '/chat/completions');
  const body = JSON.stringify({ model, stream: true, ...(opts.usage === false ? {} : { stream_options: { include_usage: true } }), messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfb = 0;
    let bytes = 0;
    const arrivals = opts.arrivals ? ([] as number[]) : undefined;
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', (c: Buffer) => {
        if (!ttfb) ttfb = performance.now() - started;
        bytes += c.length;
        arrivals?.push(bytes, now());
      });
      res.on('end', () => resolve({ ttfb, bytes, total: performance.now() - started, arrivals }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; NaN elsewhere). Under a
 * shared machine's load wall times swing, CPU spent per request much less: it says what each hop costs.
 */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, at USER_HZ 100
  } catch {
    return NaN;
  }
}

/** One IPC request to a model-server fixture, answered by the first reply carrying `key`. */
function ask<T>(child: ChildProcess, message: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      child.off('message', onMessage);
      resolve(m[key] as T);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/**
 * Latency each upstream write gained on its way to the client: the time from the write to the first
 * read that holds its last byte. The last three writes (finish, usage, [DONE]) are left out: the
 * gateway cuts the usage chunk the caller did not ask for, so offsets differ there.
 */
function chunkLatencies(writes: number[], arrivals: number[]): number[] {
  const out: number[] = [];
  let a = 0;
  for (let w = 0; w + 6 < writes.length; w += 2) {
    while (a + 2 < arrivals.length && arrivals[a] < writes[w]) a += 2;
    if (arrivals[a] >= writes[w]) out.push(arrivals[a + 1] - writes[w + 1]);
  }
  return out;
}

async function main() {
  const upstream = await startFixture('model-server.ts');
  const paced = await startFixture('model-server.ts', { BENCH_WRITE_LOG: '1' });
  const engine = await startFixture('engine-server.ts');
  const proxy = await startFixture('bare-proxy.ts', { UPSTREAM: `http://127.0.0.1:${upstream.port}` });
  const pacedProxy = await startFixture('bare-proxy.ts', { UPSTREAM: `http://127.0.0.1:${paced.port}` });
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${engine.port}${route}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json() as Promise<any>;
  };
  const providers = [
    { type: 'openai-compatible', name: 'up', baseUrl: `http://127.0.0.1:${upstream.port}/v1`, model: 'bench' },
    { type: 'openai-compatible', name: 'paced', baseUrl: `http://127.0.0.1:${paced.port}/v1`, model: 'bench' },
  ];
  await api('PUT', '/api/config', { providers, defaultProvider: 'up' });
  const gatewayBase = `http://127.0.0.1:${(await api('GET', '/api/models')).gateway.port}/v1`;
  const bases: Record<Side, string> = { gateway: gatewayBase, proxy: `http://127.0.0.1:${proxy.port}/v1`, direct: `http://127.0.0.1:${upstream.port}/v1` };
  const pacedBases: Record<Side, string> = { gateway: gatewayBase, proxy: `http://127.0.0.1:${pacedProxy.port}/v1`, direct: `http://127.0.0.1:${paced.port}/v1` };
  const script = (child: ChildProcess, step: ScriptStep, times = 1) => ask(child, { script: step, times }, 'queued');
  const small: ScriptStep = { text: 'one two three four five', usage: { input: 5, output: 5 } };
  const run = (via: Side) => stream(bases[via], via === 'gateway' ? 'up' : 'bench');

  console.log(await loadNote());
  // Warm every path (connections, JIT) before measuring.
  await script(upstream.child, small, 3 * 60);
  for (let i = 0; i < 60; i++) for (const via of SIDES) await run(via);

  const cpu: Array<{ measure: string; gateway: string; proxy: string; 'gateway/proxy': string }> = [];
  const cpuCase = async (measure: string, requests: number, body: () => Promise<void>) => {
    const before = [cpuMs(engine.child.pid), cpuMs(proxy.child.pid) + cpuMs(pacedProxy.child.pid)];
    await body();
    const g = (cpuMs(engine.child.pid) - before[0]) / requests;
    const p = (cpuMs(proxy.child.pid) + cpuMs(pacedProxy.child.pid) - before[1]) / requests;
    cpu.push({ measure, gateway: fmt(g, 3), proxy: fmt(p, 3), 'gateway/proxy': (g / p).toFixed(2) });
  };

  // 1. Added time to first byte: requests interleaved one by one, the order turning each request.
  const ttfb = perSide(() => [] as number[]);
  const roundP = { gateway50: [] as number[], gateway99: [] as number[], proxy50: [] as number[], proxy99: [] as number[] };
  await cpuCase('TTFB requests', TTFB_ROUNDS * TTFB_PER_ROUND, async () => {
    for (let r = 0; r < TTFB_ROUNDS; r++) {
      const round = perSide(() => [] as number[]);
      await script(upstream.child, small, 3 * TTFB_PER_ROUND);
      for (let i = 0; i < TTFB_PER_ROUND; i++) for (const via of orderOf(i)) round[via].push((await run(via)).ttfb);
      for (const via of SIDES) ttfb[via].push(...round[via]);
      roundP.gateway50.push(pct(round.gateway, 0.5) - pct(round.direct, 0.5));
      roundP.gateway99.push(pct(round.gateway, 0.99) - pct(round.direct, 0.99));
      roundP.proxy50.push(pct(round.proxy, 0.5) - pct(round.direct, 0.5));
      roundP.proxy99.push(pct(round.proxy, 0.99) - pct(round.direct, 0.99));
    }
  });
  const added = (via: Side, p: number) => pct(ttfb[via], p) - pct(ttfb.direct, p);

  // 2. 100 concurrent streams.
  const wall = perSide(() => [] as number[]);
  await cpuCase(`${CONCURRENT} concurrent streams, a stream`, CONCURRENT_ROUNDS * CONCURRENT, async () => {
    for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
      for (const via of orderOf(r)) {
        await script(upstream.child, { ...small, delayMs: 1 }, CONCURRENT);
        const started = performance.now();
        await Promise.all(Array.from({ length: CONCURRENT }, () => run(via)));
        wall[via].push(performance.now() - started);
      }
    }
  });

  // 3. Streamed bytes per second of a long answer, written as fast as the upstream can.
  const big: ScriptStep = { text: 'x'.repeat(BIG_CHARS), chunkChars: 2000 };
  const rate = perSide(() => [] as number[]);
  await cpuCase('2 MB answers, a MB', (BIG_ROUNDS * BIG_CHARS) / 1e6, async () => {
    for (let r = 0; r < BIG_ROUNDS; r++) {
      for (const via of orderOf(r)) {
        await script(upstream.child, big);
        const { bytes, total } = await run(via);
        rate[via].push(bytes / (total / 1000));
      }
    }
  });

  // 4. A paced answer: a few tokens a chunk, ~1 ms apart.
  const pacedStep: ScriptStep = { text: 'lorem ipsum '.repeat(PACED_CHUNKS), chunkChars: 12, delayMs: 1 };
  const pacedRate = perSide(() => [] as number[]);
  const latency = perSide(() => [] as number[]);
  const latencyRounds = perSide(() => [] as number[]);
  await cpuCase('paced answers, a stream', PACED_ROUNDS, async () => {
    for (let r = 0; r < PACED_ROUNDS; r++) {
      for (const via of orderOf(r)) {
        await script(paced.child, pacedStep);
        const got = await stream(pacedBases[via], via === 'gateway' ? 'paced' : 'bench', { usage: false, arrivals: true });
        const writes = await ask<number[]>(paced.child, { writeLog: true }, 'writeLog');
        pacedRate[via].push(got.bytes / (got.total / 1000));
        const lat = chunkLatencies(writes, got.arrivals!);
        latency[via].push(...lat);
        latencyRounds[via].push(median(lat));
      }
    }
  });

  const range = (xs: number[], scale = 1, digits = 1) => (!xs.length ? '-' : `${fmt(Math.min(...xs) / scale, digits)}-${fmt(Math.max(...xs) / scale, digits)}`);
  const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
  table([
    { measure: `TTFB p50 (ms, n=${ttfb.direct.length} a side)`, gateway: fmt(pct(ttfb.gateway, 0.5), 3), proxy: fmt(pct(ttfb.proxy, 0.5), 3), direct: fmt(pct(ttfb.direct, 0.5), 3), 'gateway/direct': '', 'proxy/direct': '', 'gateway/proxy': '' },
    { measure: 'TTFB p99 (ms)', gateway: fmt(pct(ttfb.gateway, 0.99), 3), proxy: fmt(pct(ttfb.proxy, 0.99), 3), direct: fmt(pct(ttfb.direct, 0.99), 3), 'gateway/direct': '', 'proxy/direct': '', 'gateway/proxy': '' },
    { measure: `added TTFB p50 (ms, rounds ${range(roundP.gateway50, 1, 2)})`, gateway: fmt(added('gateway', 0.5), 3), proxy: fmt(added('proxy', 0.5), 3), direct: '', 'gateway/direct': '', 'proxy/direct': '', 'gateway/proxy': '' },
    { measure: `added TTFB p99 (ms, rounds ${range(roundP.gateway99, 1, 2)})`, gateway: fmt(added('gateway', 0.99), 3), proxy: fmt(added('proxy', 0.99), 3), direct: '', 'gateway/direct': '', 'proxy/direct': '', 'gateway/proxy': '' },
    { measure: `${CONCURRENT} concurrent streams (ms, median of ${CONCURRENT_ROUNDS})`, gateway: `${fmt(median(wall.gateway), 1)} (${range(wall.gateway)})`, proxy: `${fmt(median(wall.proxy), 1)} (${range(wall.proxy)})`, direct: `${fmt(median(wall.direct), 1)} (${range(wall.direct)})`, 'gateway/direct': ratio(wall.direct, wall.gateway), 'proxy/direct': ratio(wall.direct, wall.proxy), 'gateway/proxy': ratio(wall.proxy, wall.gateway) },
    { measure: `stream MB/s (2 MB, median of ${BIG_ROUNDS})`, gateway: `${fmt(median(rate.gateway) / 1e6, 1)} (${range(rate.gateway, 1e6)})`, proxy: `${fmt(median(rate.proxy) / 1e6, 1)} (${range(rate.proxy, 1e6)})`, direct: `${fmt(median(rate.direct) / 1e6, 1)} (${range(rate.direct, 1e6)})`, 'gateway/direct': ratio(rate.gateway, rate.direct), 'proxy/direct': ratio(rate.proxy, rate.direct), 'gateway/proxy': ratio(rate.gateway, rate.proxy) },
    { measure: `paced stream kB/s (${PACED_CHUNKS} chunks ~1 ms apart)`, gateway: fmt(median(pacedRate.gateway) / 1e3, 1), proxy: fmt(median(pacedRate.proxy) / 1e3, 1), direct: fmt(median(pacedRate.direct) / 1e3, 1), 'gateway/direct': ratio(pacedRate.gateway, pacedRate.direct), 'proxy/direct': ratio(pacedRate.proxy, pacedRate.direct), 'gateway/proxy': ratio(pacedRate.gateway, pacedRate.proxy) },
    ...[0.5, 0.9, 0.99].map((p) => ({
      measure: `paced added latency a chunk, p${p * 100} (ms)`,
      gateway: fmt(pct(latency.gateway, p) - pct(latency.direct, p), 3),
      proxy: fmt(pct(latency.proxy, p) - pct(latency.direct, p), 3),
      direct: '',
      'gateway/direct': '',
      'proxy/direct': '',
      'gateway/proxy': '',
    })),
  ]);
  console.log('\nCPU time (ms) the gateway process and the bare proxy process spent, per request or per MB:');
  table(cpu);
  console.log(`added TTFB per round (gateway / proxy, ms): p50 ${roundP.gateway50.map((x) => fmt(x, 2)).join(' ')} / ${roundP.proxy50.map((x) => fmt(x, 2)).join(' ')}; p99 ${roundP.gateway99.map((x) => fmt(x, 2)).join(' ')} / ${roundP.proxy99.map((x) => fmt(x, 2)).join(' ')}`);
  console.log(`paced chunk latency per round (median ms, upstream write to client read; the clock offset between processes cancels only in differences): gateway ${latencyRounds.gateway.map((x) => fmt(x, 3)).join(' ')}, proxy ${latencyRounds.proxy.map((x) => fmt(x, 3)).join(' ')}, direct ${latencyRounds.direct.map((x) => fmt(x, 3)).join(' ')}`);
  result('gateway added TTFB p50', 'ms', added('gateway', 0.5), 1, { under: 1 });
  result('gateway added TTFB p99', 'ms', added('gateway', 0.99), 5, { under: 5 });
  // As rates, so the engine's figure is the gateway's and the ratio reads gateway/direct like the others.
  const perSecond = (ms: number[]) => ms.map((x) => (CONCURRENT * 1000) / x);
  result(`gateway ${CONCURRENT} concurrent streams`, 'streams/s', perSecond(wall.gateway), perSecond(wall.direct), { ratioAtLeast: 0.5 });
  result('gateway stream throughput', 'B/s', rate.gateway, rate.direct, { ratioAtLeast: 0.95 });
  result('gateway paced stream throughput', 'B/s', pacedRate.gateway, pacedRate.direct, { ratioAtLeast: 0.95 });
  console.log(`bare proxy against direct (no aim, the cost of a hop alone): 100 streams ${ratio(wall.direct, wall.proxy)}, throughput ${ratio(rate.proxy, rate.direct)}, paced ${ratio(pacedRate.proxy, pacedRate.direct)}; gateway against the bare proxy: 100 streams ${ratio(wall.proxy, wall.gateway)}, throughput ${ratio(rate.gateway, rate.proxy)}, paced ${ratio(pacedRate.gateway, pacedRate.proxy)}`);

  agent.destroy();
  await Promise.all([engine.stop(), proxy.stop(), pacedProxy.stop()]);
  await Promise.all([upstream.stop(), paced.stop()]);
}

await main();
