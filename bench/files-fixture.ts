/**
 * Shared by the files benchmarks: a generated tree of small text files, a median timer and the
 * RESULT line every benchmark ends with.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { median } from './lib/report.js';
import { alternate, describe, timed } from './lib/rounds.js';

/** `files` files spread over folders of 100, every `needleEvery`-th file holding "needle_token". */
export async function makeTree(root: string, files: number, needleEvery = 100): Promise<void> {
  const perDir = 100;
  const dirs = Math.ceil(files / perDir);
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${Math.floor(d / 20)}`, `mod${d % 20}`);
    await mkdir(dir, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let f = 0; f < perDir && d * perDir + f < files; f++) {
      const i = d * perDir + f;
      const body =
        `// file ${i}\nexport function f${i}(x: number): number {\n  return x + ${i};\n}\n` +
        (i % needleEvery === 0 ? `const marker = "needle_token ${i}";\n` : '') +
        `// lorem ipsum dolor sit amet, consectetur adipiscing elit ${i}\n`;
      writes.push(writeFile(path.join(dir, `file${f}.ts`), body));
    }
    await Promise.all(writes);
  }
}

/** Runs a command to completion (with extra environment), draining its output; resolves with its exit code. */
export function run(cmd: string, args: string[], cwd?: string, env?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: env ? { ...process.env, ...env } : undefined, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
}

/** Alternates engine and baseline `rounds` times (order flipped every round) after one warm-up each; every round's ms. */
export async function alternateSamples(rounds: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  const s = await alternate(rounds, { engine: () => timed(engine), baseline: () => timed(baseline) });
  return { engine: s.engine, baseline: s.baseline };
}

/** Alternates engine and baseline; medians in ms and every sample (for the spread). */
export async function sideBySide(rounds: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  const samples = await alternateSamples(rounds, engine, baseline);
  return { engine: median(samples.engine), baseline: median(samples.baseline), samples };
}

/** The RESULT line; with `samples` it carries each side's spread (min-max, n) too. */
export function result(metric: string, engineMs: number, baselineMs: number, aim: string, pass: boolean, samples?: { engine: number[]; baseline: number[] }): void {
  const spread = (xs?: number[]) => (xs && xs.length > 1 ? ` [${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}, n=${xs.length}]` : '');
  if (samples) console.log(`| ${metric} | engine ${describe(samples.engine)} ms | baseline ${describe(samples.baseline)} ms |`);
  else console.log(`| ${metric} | engine ${engineMs.toFixed(1)} ms | baseline ${baselineMs.toFixed(1)} ms |`);
  console.log(
    `RESULT ${metric}: engine ${engineMs.toFixed(1)} ms${spread(samples?.engine)}, baseline ${baselineMs.toFixed(1)} ms${spread(samples?.baseline)}, ratio ${(engineMs / baselineMs).toFixed(2)} (aim: ${aim}) ${pass ? 'PASS' : 'MISS'}`,
  );
}
