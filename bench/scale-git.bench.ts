/**
 * Scale curves for git (10k and 100k committed files, 1 000 of them changed: 600 modified, 200
 * deleted, 200 new; SCALE=0.1 for a quick look), each side by side with the git CLI doing the same
 * work at the same size, rounds alternating:
 *
 *   GET /api/git/status        against `git status --porcelain=v2 -z --branch -uall` (GIT_OPTIONAL_LOCKS=0)
 *   checkpoint (incremental)   checkpoints.snapshot after one more edit, against add -A, write-tree,
 *                              commit-tree, update-ref by hand on a second shadow repository
 *
 * Both must stay within 1.2x of git at every size; the curves show git's own growth too.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { run } from './files-fixture.js';
import { alternate, cleanup } from './git-fixture.js';
import { type Point, printCurve, sizes } from './lib/curve.js';
import { loadNote } from './lib/rounds.js';
import { makeWorkspace, since, sourceFile } from './scale-workspace.js';

const SIZES = sizes([10_000, 100_000]);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

// No automatic gc: it would start in the background, during the timings.
const ID = ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', '-c', 'gc.auto=0', '-c', 'maintenance.auto=false'];

/** The scale workspace (mostly empty files: one blob, quick to remove on this disk) committed in one commit. */
function makeRepo(dir: string, n: number): void {
  makeWorkspace(dir, n, false);
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  execFileSync('git', ['-C', dir, 'add', '-A']);
  execFileSync('git', ['-C', dir, ...ID, 'commit', '-q', '-m', 'fixture']);
}

/** `count` changes spread over the tree: 60% modified, 20% deleted, 20% new files. */
async function change(dir: string, n: number, count: number): Promise<void> {
  const step = Math.floor(n / count);
  for (let k = 0; k < count; k++) {
    const file = sourceFile(dir, k * step);
    if (k % 5 < 3) await writeFile(file, `// changed ${k}\n`);
    else if (k % 5 === 3) await unlink(file);
    else await writeFile(file.replace(/\.ts$/, '.new.ts'), `// new ${k}\n`);
  }
  // As after any status a person runs: the index's stat cache refreshed, written after the files.
  await new Promise((r) => setTimeout(r, 1100));
  execFileSync('git', ['-C', dir, 'status', '--porcelain'], { stdio: 'ignore' });
}

const status = { engine: [] as Point[], git: [] as Point[] };
const checkpoint = { engine: [] as Point[], git: [] as Point[], full: [] as Point[] };
const lines: string[] = [];
for (const n of SIZES) {
  const changes = Math.min(1000, Math.floor(n / 10));
  const home = await mkdtemp(path.join(os.tmpdir(), 'bench-scale-git-'));
  const ws = path.join(home, 'workspace');
  const manual = path.join(home, 'manual-shadow.git');
  try {
    const t0 = performance.now();
    makeRepo(ws, n);
    await change(ws, n, changes);
    console.log(`fixture: ${n} files committed, ${changes} changed, in ${since(t0)} s`);
    const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
    try {
      const s = await alternate(
        ROUNDS,
        async () => {
          const body = (await (await fetch(`${engine.url}/api/git/status`)).json()) as { unstaged: unknown[]; untracked: unknown[] };
          if (body.unstaged.length + body.untracked.length !== changes) throw new Error(`status shows ${body.unstaged.length + body.untracked.length} changes, not ${changes}`);
        },
        () => run('git', ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'], ws, { GIT_OPTIONAL_LOCKS: '0' }),
      );
      status.engine.push({ size: n, ms: s.engine.median });
      status.git.push({ size: n, ms: s.baseline.median });
      lines.push(`${n} files: status engine ${s.engine.median.toFixed(1)} ms, git ${s.baseline.median.toFixed(1)} ms, ratio ${(s.engine.median / s.baseline.median).toFixed(2)} (aim <= 1.2)`);

      const live = engine.runs.start({ source: 'bench' });
      const f0 = performance.now();
      await engine.git.checkpoints.snapshot({ runId: live.id, roots: ['workspace'], reason: 'first' });
      checkpoint.full.push({ size: n, ms: performance.now() - f0 });
      const env = { GIT_DIR: manual, GIT_WORK_TREE: ws, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
      const sh = (args: string[]) => run('git', args, ws, env);
      const out = (args: string[]) => execFileSync('git', args, { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
      await mkdir(manual);
      await run('git', ['init', '-q', '--bare', manual], home);
      await sh(['config', 'core.bare', 'false']);
      await sh(['config', 'core.untrackedCache', 'true']);
      await sh(['add', '-A']);
      let edits = 0;
      const touch = () => appendFile(sourceFile(ws, 4242 % n), `// edit ${++edits}\n`);
      const c = await alternate(
        ROUNDS,
        async () => {
          await touch();
          const t = performance.now();
          await engine.git.checkpoints.snapshot({ runId: live.id, roots: ['workspace'], reason: 'bench' });
          return performance.now() - t;
        },
        async () => {
          await touch();
          await sh(['add', '-A']);
          const sha = out(['commit-tree', out(['write-tree']), '-m', 'x']);
          await sh(['update-ref', `refs/checkpoints/${sha}`, sha]);
        },
      );
      await live.finish('completed');
      checkpoint.engine.push({ size: n, ms: c.engine.median });
      checkpoint.git.push({ size: n, ms: c.baseline.median });
      lines.push(`${n} files: checkpoint engine ${c.engine.median.toFixed(1)} ms, by hand ${c.baseline.median.toFixed(1)} ms, ratio ${(c.engine.median / c.baseline.median).toFixed(2)} (aim <= 1.2); first full checkpoint ${checkpoint.full.at(-1)!.ms.toFixed(0)} ms`);
    } finally {
      await engine.close();
    }
  } finally {
    await cleanup(home);
  }
}
console.log(await loadNote());
for (const l of lines) console.log(l);
printCurve({ path: 'GET /api/git/status (1k changed)', unit: 'files', expected: 'linear', points: status.engine });
printCurve({ path: 'git status --porcelain=v2 (baseline)', unit: 'files', expected: 'linear', points: status.git });
printCurve({ path: 'checkpoint, incremental', unit: 'files', expected: 'linear', points: checkpoint.engine });
printCurve({ path: 'checkpoint by hand (baseline)', unit: 'files', expected: 'linear', points: checkpoint.git });
printCurve({ path: 'checkpoint, first (full)', unit: 'files', expected: 'linear', points: checkpoint.full });
