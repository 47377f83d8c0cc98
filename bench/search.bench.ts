/**
 * GET /api/search across three roots (the workspace and two mounts) against one `rg` over the same
 * three folders.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { makeTree, result, run, sideBySide } from './files-fixture.js';

const base = await mkdtemp(path.join(os.tmpdir(), 'bench-search-'));
const home = path.join(base, 'home');
const roots = [path.join(home, 'workspace'), path.join(base, 'one'), path.join(base, 'two')];
try {
  for (const r of roots) await makeTree(r, 15_000, 150); // 100 matching files per root, 300 in all
  const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
  try {
    for (const [i, r] of roots.slice(1).entries()) {
      const res = await fetch(`${engine.url}/api/mounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: r, name: `m${i}` }) });
      if (res.status !== 201) throw new Error(await res.text());
    }
    const reals = await Promise.all(roots.map((r) => realpath(r)));
    const r = await sideBySide(
      Number(process.env.BENCH_ROUNDS ?? 11),
      async () => {
        const res = await fetch(`${engine.url}/api/search?q=needle_token`);
        const body = (await res.json()) as { results: unknown[]; truncated: boolean };
        if (body.results.length !== 300 || body.truncated) throw new Error(`unexpected ${body.results.length} results`);
      },
      () => run('rg', ['--json', '-i', '-F', 'needle_token', ...reals]),
    );
    result('search_3_roots', r.engine, r.baseline, 'within 1.5x of one rg', r.engine <= 1.5 * r.baseline, r.samples);
  } finally {
    await engine.close();
  }
} finally {
  await rm(base, { recursive: true, force: true });
}
