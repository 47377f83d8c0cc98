/**
 * Shared by the files benchmarks: a generated tree of small text files, a median timer and the
 * RESULT line every benchmark ends with.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { median } from './lib/report.js';

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

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Alternates engine and baseline `rounds` times after one warm-up each; returns every round's ms. */
export async function alternateSamples(rounds: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  await engine();
  await baseline();
  const e: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    e.push(await time(engine));
    b.push(await time(baseline));
  }
  return { engine: e, baseline: b };
}

/** Alternates engine and baseline `rounds` times after one warm-up each; returns medians in ms. */
export async function sideBySide(rounds: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  const s = await alternateSamples(rounds, engine, baseline);
  return { engine: median(s.engine), baseline: median(s.baseline) };
}

export function result(metric: string, engineMs: number, baselineMs: number, aim: string, pass: boolean): void {
  console.log(`| ${metric} | engine ${engineMs.toFixed(1)} ms | baseline ${baselineMs.toFixed(1)} ms |`);
  console.log(
    `RESULT ${metric}: engine ${engineMs.toFixed(1)} ms, baseline ${baselineMs.toFixed(1)} ms, ratio ${(engineMs / baselineMs).toFixed(2)} (aim: ${aim}) ${pass ? 'PASS' : 'MISS'}`,
  );
}
