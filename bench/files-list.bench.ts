/**
 * GET /api/files on a 50 000-file workspace. The route lists at most 1 500 files per root (seed 000
 * §8), breadth-first, one stat per file. Baseline: a bare node:http server in its own process doing
 * that same work (the same walk, the same 1 500 stats, the same JSON), so the ratio is the engine's
 * own cost (fence, guard, Fastify, schema) and not a comparison with a walk of the whole tree.
 * Both servers run in their own processes; the client (fetch) runs here; rounds alternate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeTree } from './files-fixture.js';
import { startFixture } from './lib/child.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote, timed } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const home = await mkdtemp(path.join(os.tmpdir(), 'bench-files-'));
const ws = path.join(home, 'workspace');
try {
  const t0 = performance.now();
  await makeTree(ws, 50_000);
  console.log(`fixture: 50 000 files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const engine = await startFixture('engine-server.ts', { BENCH_HOME: home });
  const bare = await startFixture('baseline-list.ts', { WORKSPACE: ws });
  try {
    const get = async (port: number) => {
      const body = (await (await fetch(`http://127.0.0.1:${port}/api/files`)).json()) as { files: unknown[] };
      if (body.files.length !== 1500) throw new Error(`expected 1500 files, got ${body.files.length}`);
    };
    const s = await alternate(ROUNDS, { engine: () => timed(() => get(engine.port)), bare: () => timed(() => get(bare.port)) }, { warmup: 2 });
    console.log(await loadNote());
    table([{ 'engine GET /api/files ms': describe(s.engine), 'bare walk + stat of the same 1 500 files ms': describe(s.bare) }]);
    result('GET /api/files, 50 000-file workspace', 'ms', s.engine, s.bare, { ratioAtMost: 1.5 });
  } finally {
    await Promise.all([engine.stop(), bare.stop()]);
  }
} finally {
  await rm(home, { recursive: true, force: true });
}
