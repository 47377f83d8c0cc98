/**
 * Shared by the git benchmarks: a 50 000-file repository (one commit), generated in a temp folder,
 * and a timer that alternates engine and baseline rounds and reports median and spread.
 */
import { execFileSync } from 'node:child_process';
import { rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { median } from './lib/report.js';
import { alternateSamples, makeTree } from './files-fixture.js';

// No automatic gc: a commit of 50 000 loose objects would start one in the background, during the timings.
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', '-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

/** `files` small files committed in one commit (about 10 s for 50 000 on 2 cores). */
export async function makeRepoTree(dir: string, files: number, commit = true): Promise<void> {
  await makeTree(dir, files);
  if (!commit) return;
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  execFileSync('git', ['-C', dir, 'add', '-A']);
  execFileSync('git', ['-C', dir, ...ID, 'commit', '-q', '-m', 'fixture']);
}

/** 1 000 changes: 600 modified, 200 deleted, 200 untracked. */
export async function makeChanges(dir: string): Promise<void> {
  const at = (d: number, name: string) => path.join(dir, `pkg${Math.floor(d / 20)}`, `mod${d % 20}`, name);
  for (let d = 0; d < 500; d++) await writeFile(at(d, 'file1.ts'), `// changed ${d}\n`);
  for (let d = 0; d < 100; d++) await writeFile(at(d, 'file3.ts'), `// changed ${d}\n`);
  for (let d = 0; d < 200; d++) await unlink(at(d, 'file2.ts'));
  for (let d = 0; d < 200; d++) await writeFile(at(d, 'new.ts'), `// new ${d}\n`);
  // As after any status a person runs: the index's stat cache refreshed, written after the files (not "racily clean").
  await new Promise((r) => setTimeout(r, 1100));
  execFileSync('git', ['-C', dir, 'status', '--porcelain'], { stdio: 'ignore' });
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}
const spread = (xs: number[]): Spread => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
export const showSpread = (name: string, s: Spread) => console.log(`${name}: median ${s.median.toFixed(1)} ms (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)})`);

/** Alternates engine and baseline `rounds` times after one warm-up each; median and spread of each. */
export async function alternate(rounds: number, engine: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  const s = await alternateSamples(rounds, engine, baseline);
  return { engine: spread(s.engine), baseline: spread(s.baseline) };
}

export const cleanup = (dir: string) => rm(dir, { recursive: true, force: true, maxRetries: 5 });
