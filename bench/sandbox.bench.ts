/**
 * The sandbox's cost: run_shell `true` through the whole registry path, sandboxed (bwrap, the
 * default workspace-write mode, network off) against the same engine code with `sandbox.mode: off`,
 * alternating call by call so machine noise hits both sides alike. Three cases: an empty workspace, a
 * workspace of 2 000 folders holding 20 git repositories (the per-command .git walk is part of the cost),
 * and an empty workspace with `sandbox.network: true` (since issue 42 the command joins the network
 * namespace the engine holds, its egress bridge already listening: src/sandbox/egress-session.ts) against the same sandbox with the network off, which
 * starts bwrap the way a network-on command did before issue 22. Both sides get an empty HOME (see main).
 * Run: node --import tsx bench/sandbox.bench.ts (BENCH_CASE=network runs only the cases whose label holds it)
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine, type Engine } from '../src/engine.js';
import { allowAllGate } from '../src/tools/types.js';
import { median, pct, table } from './lib/report.js';

const N = Number(process.env.BENCH_N ?? 40);
const WARMUP = 3;
const AIM = 1.25;


async function engineWith(mode: 'workspace-write' | 'off', fill: boolean, network = false): Promise<{ engine: Engine; home: string }> {
  const home = await mkdtemp(path.join(os.tmpdir(), `bench-sandbox-${mode}-`));
  const engine = await startEngine({ home, port: 0, gatewayPort: 0, log: () => undefined });
  await engine.settings.update({ sandbox: { mode, network } });
  if (fill) {
    const ws = path.join(home, 'workspace');
    for (let i = 0; i < 2000; i++) await mkdir(path.join(ws, `pkg${i % 20}`, `dir${i}`), { recursive: true });
    for (let r = 0; r < 20; r++) execFileSync('git', ['init', '-q', path.join(ws, `pkg${r}`)]);
  }
  return { engine, home };
}

async function call(engine: Engine, i: number): Promise<number> {
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
  const t = performance.now();
  const out = await engine.tools.call({ callId: `s${i}`, name: 'run_shell', args: { command: 'true' } }, ctx, { gate: allowAllGate });
  if (out.isError) throw new Error(out.text);
  return performance.now() - t;
}

async function main() {
  // An empty HOME for both sides: a login profile's own work differs inside and outside the sandbox
  // (pyenv's rehash gives up at once in a read-only home), which would hide the sandbox's cost.
  const emptyHome = await mkdtemp(path.join(os.tmpdir(), 'bench-sandbox-home-'));
  process.env.HOME = emptyHome;
  const rows: Array<Record<string, string>> = [];
  const results: string[] = [];
  const cases = [
    { fill: false, network: false, label: 'true, empty workspace' },
    { fill: true, network: false, label: 'true, 2 000 folders + 20 repos' },
    // Against the sandbox with the network off: what the network-on way out (namespace, bridge) adds.
    { fill: false, network: true, label: 'true, network on vs network off (both sandboxed)' },
  ].filter((c) => c.label.includes(process.env.BENCH_CASE ?? ''));
  for (const { fill, network, label } of cases) {
    const on = await engineWith('workspace-write', fill, network);
    const off = network ? await engineWith('workspace-write', fill, false) : await engineWith('off', fill);
    const a: number[] = [];
    const b: number[] = [];
    try {
      const status = await (await fetch(on.engine.url + '/api/status')).json();
      if (!status.sandbox.active) throw new Error(`the sandbox is not active here: ${status.sandbox.reason}`);
      for (let i = 0; i < N + WARMUP; i++) {
        // Alternate which side goes first, too.
        const first = i % 2 === 0;
        const x = first ? await call(on.engine, i) : 0;
        const y = await call(off.engine, i);
        const z = first ? x : await call(on.engine, i);
        if (i >= WARMUP) {
          a.push(z);
          b.push(y);
        }
      }
    } finally {
      for (const e of [on, off]) {
        await e.engine.close();
        await rm(e.home, { recursive: true, force: true });
      }
    }
    const ma = median(a);
    const mb = median(b);
    rows.push({
      case: label,
      'sandboxed ms (p10-p90)': `${ma.toFixed(1)} (${pct(a, 0.1).toFixed(1)}-${pct(a, 0.9).toFixed(1)})`,
      'unsandboxed ms (p10-p90)': `${mb.toFixed(1)} (${pct(b, 0.1).toFixed(1)}-${pct(b, 0.9).toFixed(1)})`,
      'added ms': (ma - mb).toFixed(1),
      ratio: (ma / mb).toFixed(2),
    });
    results.push(`RESULT run_shell sandbox cost (${label}): engine ${ma.toFixed(1)} ms, baseline ${mb.toFixed(1)} ms, ratio ${(ma / mb).toFixed(2)} (aim: <= ${AIM}) ${ma / mb <= AIM ? 'PASS' : 'MISS'}`);
  }
  await rm(emptyHome, { recursive: true, force: true });
  table(rows);
  for (const r of results) console.log(r);
}

await main();
