/**
 * What a vault's agentForbidden fence costs every model tool (issue 23): read_file, grep and
 * run_shell in an engine that mounts a 2 000-note vault hiding `private/**` (200 notes), against the
 * same calls in an engine with the same folder mounted as a plain mount (nothing hidden). Same
 * machine, one run, calls interleaved.
 * Run: node --import tsx bench/vault-hidden.bench.ts
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine, type Engine } from '../src/engine.js';
import { allowAllGate } from '../src/tools/types.js';
import { median, table } from './lib/report.js';

const N = 20;
const NOTES = 2_000;
const HIDDEN = 200;

async function fixture(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'private'), { recursive: true });
  await mkdir(path.join(dir, 'notes'), { recursive: true });
  for (let i = 0; i < NOTES; i++) {
    const where = i < HIDDEN ? 'private' : 'notes';
    await writeFile(path.join(dir, where, `n${i}.md`), `# Note ${i}\nSome words about otters and note ${i}.\n`);
  }
}

async function main() {
  const base = await mkdtemp(path.join(os.tmpdir(), 'bench-hidden-'));
  const vaultDir = path.join(base, 'vault');
  const plainDir = path.join(base, 'plain');
  await fixture(vaultDir);
  await fixture(plainDir);
  const engines: Engine[] = [];
  try {
    const fenced = await startEngine({ home: path.join(base, 'home-a'), port: 0, gatewayPort: 0, log: () => undefined, secretsBackend: 'file' });
    const plain = await startEngine({ home: path.join(base, 'home-b'), port: 0, gatewayPort: 0, log: () => undefined, secretsBackend: 'file' });
    engines.push(fenced, plain);
    const post = (e: Engine, route: string, body: unknown) => fetch(e.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if ((await post(fenced, '/api/vaults', { name: 'kb', path: vaultDir, schema: { agentForbidden: ['private/**'] } })).status !== 201) throw new Error('vault not created');
    if ((await post(plain, '/api/mounts', { name: 'kb', path: plainDir })).status >= 300) throw new Error('mount not created');

    const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
    const calls: Array<{ name: string; args: Record<string, unknown> }> = [
      { name: 'read_file', args: { path: 'kb/notes/n500.md' } },
      { name: 'grep', args: { pattern: 'otters', path: 'kb' } },
      { name: 'run_shell', args: { command: 'true' } },
    ];
    const rows: Array<{ call: string; fenced: number; plain: number }> = [];
    for (const c of calls) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < N; i++) {
        for (const [engine, into] of [
          [fenced, a],
          [plain, b],
        ] as const) {
          const t = performance.now();
          const out = await engine.tools.call({ callId: `b${i}`, name: c.name, args: c.args }, ctx, { gate: allowAllGate });
          if (out.isError) throw new Error(`${c.name}: ${out.text}`);
          into.push(performance.now() - t);
        }
      }
      rows.push({ call: c.name, fenced: median(a), plain: median(b) });
    }
    table(rows.map((r) => ({ call: r.call, 'vault (fenced) ms': r.fenced.toFixed(1), 'plain mount ms': r.plain.toFixed(1), ratio: (r.fenced / r.plain).toFixed(2) })));
    for (const r of rows) {
      const ratio = r.fenced / r.plain;
      console.log(`RESULT ${r.call} through a vault's agentForbidden fence: ${r.fenced.toFixed(1)} ms, plain mount ${r.plain.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (aim: <= 1.5) ${ratio <= 1.5 ? 'PASS' : 'MISS'}`);
    }
  } finally {
    for (const e of engines) await e.close();
    await rm(base, { recursive: true, force: true });
  }
}

await main();
