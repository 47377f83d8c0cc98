/**
 * GET /api/git/status on a 50 000-file repository with 1 000 changes (600 modified, 200 deleted,
 * 200 untracked) against `git status --porcelain=v2 -z` run directly with the same flags
 * (`--branch --untracked-files=all`, GIT_OPTIONAL_LOCKS=0: the same work the route asks of git).
 * The plain `git status --porcelain=v2 -z` is timed too, for context.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { result, run } from './files-fixture.js';
import { alternate, cleanup, makeChanges, makeRepoTree, showSpread } from './git-fixture.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-git-status-'));
const ws = path.join(home, 'workspace');
try {
  const t0 = performance.now();
  await makeRepoTree(ws, 50_000);
  await makeChanges(ws);
  console.log(`fixture: 50 000 files committed, 1 000 changes, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
  try {
    const r = await alternate(
      15,
      async () => {
        const res = await fetch(`${engine.url}/api/git/status`);
        const body = (await res.json()) as { unstaged: unknown[]; untracked: unknown[] };
        if (body.unstaged.length !== 800 || body.untracked.length !== 200) throw new Error(`unexpected status: ${body.unstaged.length} unstaged, ${body.untracked.length} untracked`);
      },
      () => run('git', ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'], ws, { GIT_OPTIONAL_LOCKS: '0' }),
    );
    showSpread('engine  GET /api/git/status', r.engine);
    showSpread('baseline git status --porcelain=v2 -z --branch -uall', r.baseline);
    const plain = await alternate(5, () => run('git', ['status', '--porcelain=v2', '-z'], ws), async () => undefined);
    showSpread('context  git status --porcelain=v2 -z (no flags)', plain.engine);
    result('git_status_50k_1k_changes', r.engine.median, r.baseline.median, 'within 1.2x of git status --porcelain=v2 -z', r.engine.median <= 1.2 * r.baseline.median);
  } finally {
    await engine.close();
  }
} finally {
  await cleanup(home);
}
