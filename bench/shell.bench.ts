/**
 * run_shell overhead: the engine's spawn path (fence resolve, env scrub, process group, clip, event,
 * sandbox; `bash -c` from the login shell's environment read once) against a bare `bash -lc` spawn
 * (a login shell per command, as the engine ran them before issue 26), same command, same machine, in one run.
 * Run: node --import tsx bench/shell.bench.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { allowAllGate } from '../src/tools/types.js';
import { median, table } from './lib/report.js';

const N = 30;
const COMMANDS = ['true', 'seq 1 20000'];

function bare(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-lc', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

async function main() {
  const home = await mkdtemp(path.join(os.tmpdir(), 'bench-shell-'));
  const engine = await startEngine({ home, port: 0, log: () => undefined });
  const ws = path.join(home, 'workspace');
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
  const rows: Array<{ command: string; engine: number; baseline: number }> = [];
  try {
    for (const command of COMMANDS) {
      const e: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < N; i++) {
        // Interleave so machine noise hits both sides alike.
        let t = performance.now();
        // A headless caller (allow-all gate): the bench measures the tool, not a permission prompt.
        const out = await engine.tools.call({ callId: `b${i}`, name: 'run_shell', args: { command } }, ctx, { gate: allowAllGate });
        if (out.isError) throw new Error(out.text);
        e.push(performance.now() - t);
        t = performance.now();
        await bare(command, ws);
        b.push(performance.now() - t);
      }
      rows.push({ command, engine: median(e), baseline: median(b) });
    }
  } finally {
    await engine.close();
    await rm(home, { recursive: true, force: true });
  }
  table(rows.map((r) => ({ command: r.command, 'engine ms': r.engine.toFixed(1), 'bare bash -lc ms': r.baseline.toFixed(1), ratio: (r.engine / r.baseline).toFixed(2) })));
  for (const r of rows) {
    const ratio = r.engine / r.baseline;
    console.log(`RESULT run_shell median latency (${r.command}): engine ${r.engine.toFixed(1)} ms, baseline ${r.baseline.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (aim: <= 1.25) ${ratio <= 1.25 ? 'PASS' : 'MISS'}`);
  }
}

await main();
