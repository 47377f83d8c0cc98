/**
 * The semantic index and the brain (issue 32), each beside a baseline in one run:
 *   1. indexing this repository's own src/ and test/ (a mount of them) through a zero-cost
 *      embedder (the loopback fake, vectors computed from words): wall time and RSS added, beside
 *      reading and hashing the same files (the floor any index pays). Aim: under 10 s, 150 MB.
 *   2. a query over 20 000 chunks of 384 dimensions (sqlite-vec + FTS5 + fusion), p50, beside a
 *      brute-force cosine scan over the same vectors in JS. Aim: under 50 ms p50.
 *   3. a one-file edit made searchable: write, then poll search_code until the new name is found.
 *      Aim: under 2 s.
 *   4. GET /api/brain on a home with 10 000 runs (focused on a file, and the whole graph capped),
 *      beside GET /api/status on the same engine. Aim: under 100 ms.
 *   npm run bench -- search-index
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chunkFile } from '../src/capabilities/codeindex/chunks.js';
import { IndexStore } from '../src/capabilities/codeindex/store.js';
import { createBrainService } from '../src/capabilities/brain/service.js';
import { startTestEngine } from '../test/support/engine.js';
import { startFakeEmbeddings } from '../test/support/fake-embeddings.js';
import { collectEvents } from '../test/support/events.js';
import { fmt, median, result, table } from './lib/report.js';

const repo = path.resolve(import.meta.dirname, '..');
const rss = () => process.memoryUsage().rss / 1e6;

// 1. Index this repository's code.
{
  const fake = await startFakeEmbeddings();
  const t = await startTestEngine();
  const events = await collectEvents(t.url);
  for (const name of ['src', 'test']) await t.api('POST', '/api/mounts', { name: `repo-${name}`, path: path.join(repo, name) });
  const before = rss();
  const t0 = performance.now();
  const seq = events.events.at(-1)?.seq ?? 0;
  await t.api('PUT', '/api/config', { providers: [], defaultProvider: null, embeddings: { baseUrl: fake.baseUrl, model: 'fake' } });
  const done = await events.waitFor((e) => e.kind === 'index.completed' && e.seq > seq, 120_000);
  const took = (performance.now() - t0) / 1000;
  const added = rss() - before;
  // The floor: read and hash every file the index holds.
  const files = (await t.api('GET', '/api/status')).body.index.files as number;
  const b0 = performance.now();
  const { execFileSync } = await import('node:child_process');
  const list = execFileSync('git', ['-C', repo, 'ls-files', 'src', 'test'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of list) createHash('sha256').update(readFileSync(path.join(repo, f))).digest();
  const floor = (performance.now() - b0) / 1000;
  table([{ files: String(files), chunks: String(done.chunks), 'index s': fmt(took, 2), 'read+hash s': fmt(floor, 2), 'RSS added MB': fmt(added, 0), 'embed requests': String(fake.requests) }]);
  result('index this repository (src, test)', 's', took, floor, { under: 10 });
  result('index this repository: RSS added', 'MB', added, 150, { under: 150 });

  // 3. A one-file edit, searchable.
  const probe = path.join(repo, 'test', '_bench_probe.ts');
  const e0 = performance.now();
  writeFileSync(probe, 'export function benchProbeNeedleFunction() {\n  return 42;\n}\n');
  let found = false;
  while (!found && performance.now() - e0 < 10_000) {
    const r = await t.engine.tools.call({ callId: `c${Math.random()}`, name: 'search_code', args: { query: 'benchProbeNeedleFunction' } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
    found = r.text.split('\n')[0].includes('_bench_probe.ts');
    if (!found) await new Promise((r) => setTimeout(r, 25));
  }
  const searchable = performance.now() - e0;
  rmSync(probe);
  result('a one-file edit searchable', 'ms', searchable, 2000, { under: 2000 });
  events.close();
  await t.close();
  await fake.close();
}

// 2. A query over 20 000 chunks.
{
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-index-'));
  const store = new IndexStore(path.join(dir, 'code.sqlite'), 'bench');
  const D = 384;
  const rand = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
  const next = rand(7);
  const vectors: Float32Array[] = [];
  const words = ['retry', 'upload', 'parse', 'render', 'table', 'color', 'queue', 'token', 'cache', 'index', 'stream', 'socket'];
  for (let f = 0; f < 2_000; f++) {
    const chunks = await chunkFile(`src/f${f}.ts`, Array.from({ length: 10 }, (_, i) => `export function ${words[(f + i) % 12]}${f}_${i}(x: number) {\n  return x + ${i};\n}\n`).join('\n'));
    const vs = chunks.map(() => {
      const v = new Float32Array(D);
      for (let i = 0; i < D; i++) v[i] = next();
      return v;
    });
    store.cacheVectors(chunks.map((c, i) => [c.hash, vs[i]]));
    vectors.push(...vs);
    store.putFile(`src/f${f}.ts`, { mtime: 0, size: 0 }, chunks);
  }
  const q = vectors[123];
  const engine: number[] = [];
  const brute: number[] = [];
  for (let i = 0; i < 50; i++) {
    let t0 = performance.now();
    store.search('retry upload', q, 8);
    engine.push(performance.now() - t0);
    t0 = performance.now();
    const scores = vectors.map((v) => {
      let dot = 0;
      let a = 0;
      let b = 0;
      for (let j = 0; j < D; j++) {
        dot += v[j] * q[j];
        a += v[j] * v[j];
        b += q[j] * q[j];
      }
      return dot / Math.sqrt(a * b);
    });
    scores.map((s, k) => [s, k]).sort((x, y) => y[0] - x[0]).slice(0, 8);
    brute.push(performance.now() - t0);
  }
  table([{ chunks: String(store.counts().chunks), 'index p50 ms': fmt(median(engine), 2), 'brute-force JS p50 ms': fmt(median(brute), 2) }]);
  result('query over 20 000 chunks (384 dims), p50', 'ms', engine, brute, { under: 50 });
  store.close();
  rmSync(dir, { recursive: true, force: true });
}

// 4. The brain with 10 000 runs.
{
  const t = await startTestEngine();
  const dir = path.join(t.home, 'brain-bench');
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  let seq = 0;
  const ev = (kind: string, runId: string, extra: Record<string, unknown>) => brain.onEvent({ kind, ts: Date.now() - 1e6 + seq, seq: ++seq, runId, ...extra });
  for (let i = 0; i < 10_000; i++) {
    const runId = `run-${i}`;
    ev('run.started', runId, { source: 'chat', sessionId: `s${i % 500}`, model: 'm', agent: i % 3 ? undefined : 'helper', title: `task ${i}` });
    ev('file.read', runId, { path: `src/f${i % 700}.ts` });
    ev('file.written', runId, { path: `src/f${(i * 7) % 700}.ts` });
    ev('run.completed', runId, {});
  }
  const focused: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < 30; i++) {
    let t0 = performance.now();
    await brain.query({ focus: `src/f${i}.ts`, depth: '2' });
    focused.push(performance.now() - t0);
    t0 = performance.now();
    await brain.query({});
    whole.push(performance.now() - t0);
  }
  const status: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await t.api('GET', '/api/status');
    status.push(performance.now() - t0);
  }
  table([{ runs: '10 000', 'graph nodes': String((await brain.size()).nodes), 'focus depth 2 p50 ms': fmt(median(focused), 2), 'whole (cap 500) p50 ms': fmt(median(whole), 2), 'GET /api/status p50 ms': fmt(median(status), 2) }]);
  result('GET /api/brain, 10 000-run home (whole graph, cap 500)', 'ms', whole, status, { under: 100 });
  await brain.close();
  await t.close();
}
