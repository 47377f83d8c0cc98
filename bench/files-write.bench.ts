/**
 * PUT /api/files/<path>: a 4 KB file four folders deep, rewritten CALLS times a round, one request
 * at a time (an editor saving). The engine (guard, schema, fence resolved once, the folder pinned
 * and proven, temp file + fsync + rename, the file.written event) against a bare node:http server
 * doing the same fsync'd atomic write with no fence. Both in their own processes, the client here;
 * rounds alternate (ABBA); writes per second, medians and spread.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFixture } from './lib/child.js';
import { result, table } from './lib/report.js';
import { alternate, describe, loadNote, timed } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const CALLS = 200;
const REL = 'a/b/c/d/file.txt';
const CONTENT = 'x'.repeat(4096);

const home = await mkdtemp(path.join(os.tmpdir(), 'bench-write-'));
const engineWs = path.join(home, 'workspace');
const bareWs = path.join(home, 'bare');
for (const ws of [engineWs, bareWs]) {
  await mkdir(path.join(ws, path.dirname(REL)), { recursive: true });
  await writeFile(path.join(ws, REL), CONTENT);
}
const engine = await startFixture('engine-server.ts', { BENCH_HOME: home });
const bare = await startFixture('baseline-write.ts', { WORKSPACE: bareWs });
try {
  const body = JSON.stringify({ content: CONTENT });
  const put = async (port: number) => {
    for (let i = 0; i < CALLS; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/api/files/${REL}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const rate = (port: number) => async () => CALLS / ((await timed(() => put(port))) / 1000);
  const s = await alternate(ROUNDS, { engine: rate(engine.port), bare: rate(bare.port) });
  console.log(await loadNote());
  table([{ 'engine PUT writes/s': describe(s.engine, 0), 'bare fsync atomic write writes/s': describe(s.bare, 0) }]);
  result('PUT /api/files, 4 KB, fsync atomic', 'writes/s', s.engine, s.bare, { ratioAtLeast: 0.9 });
} finally {
  await Promise.all([engine.stop(), bare.stop()]);
  await rm(home, { recursive: true, force: true });
}
