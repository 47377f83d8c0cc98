/**
 * GET /api/files on a 50 000-file workspace against a full `find` walk of the same tree.
 * The route lists at most 1500 files per root (seed 000 §8), so it stops early by design; the
 * uncapped walk below is printed for context.
 */
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { startEngine } from '../src/engine.js';
import { makeTree, result, run, sideBySide } from './files-fixture.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-files-'));
const ws = path.join(home, 'workspace');
try {
  const t0 = performance.now();
  await makeTree(ws, 50_000);
  console.log(`fixture: 50 000 files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
  try {
    const r = await sideBySide(
      7,
      async () => {
        const res = await fetch(`${engine.url}/api/files`);
        const body = (await res.json()) as { files: unknown[] };
        if (body.files.length !== 1500) throw new Error(`expected 1500 files, got ${body.files.length}`);
      },
      () => run('find', [ws, '-type', 'f']),
    );
    result('files_list_50k', r.engine, r.baseline, 'within 3x of find', r.engine <= 3 * r.baseline);
  } finally {
    await engine.close();
  }
} finally {
  await rm(home, { recursive: true, force: true });
}
