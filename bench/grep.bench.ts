/**
 * The grep tool (through the registry, rg on PATH) against `rg --json` with the same pattern over
 * the same 50 000-file tree.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { makeTree, result, run, sideBySide } from './files-fixture.js';

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-grep-'));
const ws = path.join(home, 'workspace');
try {
  await makeTree(ws, 50_000, 250); // 200 matching files
  const engine = await startEngine({ home, port: 0, log: () => undefined, files: { watch: false } });
  const real = await realpath(ws);
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
  try {
    const r = await sideBySide(
      Number(process.env.BENCH_ROUNDS ?? 11),
      async () => {
        const out = await engine.tools.call({ callId: 'b', name: 'grep', args: { pattern: 'needle_token \\d+' } }, ctx);
        if (out.isError || !out.text.startsWith('matches 1-200')) throw new Error(out.text.slice(0, 200));
      },
      () => run('rg', ['--json', 'needle_token \\d+'], real),
    );
    result('grep_tool_50k', r.engine, r.baseline, 'within 1.2x + 20 ms of rg --json', r.engine <= 1.2 * r.baseline + 20, r.samples);
  } finally {
    await engine.close();
  }
} finally {
  await rm(home, { recursive: true, force: true });
}
