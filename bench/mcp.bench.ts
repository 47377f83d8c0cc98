/**
 * MCP, side by side in one run, rounds alternating:
 *   1. a tool call through the engine's registry (coerce, validate, gate, run, clip, events) against
 *      the same call made directly with the SDK client to the same kind of stdio server; the aim is
 *      under 1 ms added at p50;
 *   2. engine start to the first 200 with ten configured servers against an empty map: the servers
 *      connect after the engine listens, so the ratio should stay near 1.
 *
 *   node --import tsx bench/mcp.bench.ts
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEngine } from '../src/engine.js';
import { EVERYTHING } from '../test/mcp/support.js';
import { fmt, median, pct, result, table } from './lib/report.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const STARTS = Number(process.env.BENCH_STARTS ?? 8);
const entry = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

async function waitConnected(url: string, names: string[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const view = (await (await fetch(`${url}/api/mcp`)).json()) as any;
    if (names.every((n) => view.status[n]?.state === 'connected' && view.status[n].tools.length)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('servers did not connect');
}

async function main() {
  // 1. Tool call latency.
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport(entry));
  const home = await mkdtemp(path.join(os.tmpdir(), 'bench-mcp-'));
  await writeFile(path.join(home, 'mcp.json'), JSON.stringify({ servers: { everything: entry } }));
  const engine = await startEngine({ home, port: 0, gatewayPort: 0, log: () => undefined, secretsBackend: 'file' } as Parameters<typeof startEngine>[0]);
  await waitConnected(engine.url, ['everything']);
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
  const viaEngine = async () => {
    const t = performance.now();
    const out = await engine.tools.call({ callId: 'b', name: 'everything_echo', args: { message: 'ping' } }, ctx);
    if (out.isError) throw new Error(out.text);
    return performance.now() - t;
  };
  const viaSdk = async () => {
    const t = performance.now();
    await direct.callTool({ name: 'echo', arguments: { message: 'ping' } });
    return performance.now() - t;
  };
  for (let i = 0; i < 50; i++) {
    await viaEngine();
    await viaSdk();
  }
  const calls = { engine: [] as number[], sdk: [] as number[] };
  for (let i = 0; i < CALLS; i++) {
    if (i % 2) {
      calls.sdk.push(await viaSdk());
      calls.engine.push(await viaEngine());
    } else {
      calls.engine.push(await viaEngine());
      calls.sdk.push(await viaSdk());
    }
  }
  await engine.close();
  await direct.close();

  // 2. Start-up with ten servers configured.
  const tenHome = await mkdtemp(path.join(os.tmpdir(), 'bench-mcp10-'));
  const emptyHome = await mkdtemp(path.join(os.tmpdir(), 'bench-mcp0-'));
  await writeFile(path.join(tenHome, 'mcp.json'), JSON.stringify({ servers: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, entry])) }));
  const starts = { ten: [] as number[], none: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const which of i % 2 ? (['none', 'ten'] as const) : (['ten', 'none'] as const)) {
      const t = performance.now();
      const e = await startEngine({ home: which === 'ten' ? tenHome : emptyHome, port: 0, gatewayPort: 0, log: () => undefined, secretsBackend: 'file' } as Parameters<typeof startEngine>[0]);
      const res = await fetch(`${e.url}/api/status`);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      starts[which].push(performance.now() - t);
      if (which === 'ten') await waitConnected(e.url, ['s0']); // let them come up before closing, as in use
      await e.close();
    }
  }

  table([
    { measure: 'tool call p50 (ms)', engine: fmt(pct(calls.engine, 0.5), 3), baseline: fmt(pct(calls.sdk, 0.5), 3), spread: `${fmt(pct(calls.engine, 0.1), 3)}-${fmt(pct(calls.engine, 0.9), 3)} / ${fmt(pct(calls.sdk, 0.1), 3)}-${fmt(pct(calls.sdk, 0.9), 3)} (p10-p90)` },
    { measure: 'tool call p99 (ms)', engine: fmt(pct(calls.engine, 0.99), 3), baseline: fmt(pct(calls.sdk, 0.99), 3), spread: '' },
    { measure: 'start to first 200 (ms), 10 servers vs none', engine: fmt(median(starts.ten), 1), baseline: fmt(median(starts.none), 1), spread: `${fmt(Math.min(...starts.ten), 1)}-${fmt(Math.max(...starts.ten), 1)} / ${fmt(Math.min(...starts.none), 1)}-${fmt(Math.max(...starts.none), 1)}` },
  ]);
  result('mcp tool call added p50', 'ms', pct(calls.engine, 0.5) - pct(calls.sdk, 0.5), 1, { under: 1 });
  result('engine start with 10 MCP servers (none/ten)', 'ms', starts.none, starts.ten, { ratioAtLeast: 0.8 });
  for (const h of [home, tenHome, emptyHome]) await rm(h, { recursive: true, force: true });
}

await main();
