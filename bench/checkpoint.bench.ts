/**
 * An incremental checkpoint of a 50 000-file workspace after one file changed (target: under
 * 300 ms), through the checkpoints API the chat hook and workflows call, against the same git steps
 * run by hand on a second shadow repository of the same tree (add -A, write-tree, commit-tree,
 * update-ref). The first, full checkpoint is timed once, for context.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { result, run } from './files-fixture.js';
import { alternate, cleanup, makeRepoTree, showSpread } from './git-fixture.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-checkpoint-'));
const ws = path.join(home, 'workspace');
const manual = path.join(home, 'manual-shadow.git');
try {
  const t0 = performance.now();
  await makeRepoTree(ws, 50_000, false);
  console.log(`fixture: 50 000 files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
  const env = { GIT_DIR: manual, GIT_WORK_TREE: ws, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  const sh = (args: string[]) => run('git', args, ws, env);
  try {
    const live = engine.runs.start({ source: 'bench' });
    const f0 = performance.now();
    await engine.git.checkpoints.snapshot({ runId: live.id, roots: ['workspace'], reason: 'first' });
    console.log(`first (full) checkpoint of 50 000 files: ${(performance.now() - f0).toFixed(0)} ms`);
    await mkdir(manual);
    await run('git', ['init', '-q', '--bare', manual], home);
    await sh(['config', 'core.bare', 'false']);
    await sh(['config', 'core.untrackedCache', 'true']);
    await sh(['add', '-A']);
    let n = 0;
    const touch = () => appendFile(path.join(ws, 'pkg3', 'mod7', 'file42.ts'), `// edit ${++n}\n`);
    const r = await alternate(
      9,
      async () => {
        await touch();
        const t = performance.now();
        await engine.git.checkpoints.snapshot({ runId: live.id, roots: ['workspace'], reason: 'bench' });
        return performance.now() - t;
      },
      async () => {
        await touch();
        await sh(['add', '-A']);
        const tree = execFileSync('git', ['write-tree'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
        const sha = execFileSync('git', ['commit-tree', tree, '-m', 'x'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
        await sh(['update-ref', `refs/checkpoints/${sha}`, sha]);
      },
    );
    showSpread('engine  checkpoints.snapshot (one file changed)', r.engine);
    showSpread('baseline add -A, write-tree, commit-tree, update-ref by hand', r.baseline);
    await live.finish('completed');
    result('checkpoint_incremental_50k', r.engine.median, r.baseline.median, 'under 300 ms', r.engine.median < 300);
  } finally {
    await engine.close();
  }
} finally {
  await cleanup(home);
}
