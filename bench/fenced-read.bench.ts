/**
 * What the fenced reader costs (issue 38 §1: under 5 %), with and without it in one run, rounds
 * alternating:
 *   1. indexing this repository: a full rebuild of the semantic index over the work tree (walk, stat,
 *      read, chunk, write; vectors from the cache, so reading is as large a share of the work as it
 *      gets) through the fenced reader, beside the same indexer reading the lexical path with
 *      stat/readFile (what it did before the fence);
 *   2. GET /api/search's work over this repository (ripgrep, then every row proven by a read) with
 *      the fenced reader, beside the lexical one;
 *   3. the reads alone, every indexed file: the fenced read beside stat + readFile (not an aim: the
 *      per-file price the two above pay).
 * In-process work (1 and 3) is also measured in CPU time (this process and its thread pool), which a
 * loaded machine skews far less than the wall clock; the index's RESULT is its CPU time. The search
 * runs ripgrep in a child process, so its RESULT is wall time.
 *   npm run bench -- fenced-read
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createIndexer } from '../src/capabilities/codeindex/indexer.js';
import { IndexStore } from '../src/capabilities/codeindex/store.js';
import { MountStore } from '../src/capabilities/files/mounts.js';
import { createFilesService } from '../src/capabilities/files/service.js';
import { findRipgrep } from '../src/capabilities/files/search.js';
import { Fence } from '../src/kernel/fence.js';
import { FencedReader } from '../src/kernel/fenced-read.js';
import { Home } from '../src/kernel/home.js';
import { vectorOf } from '../test/support/fake-embeddings.js';
import { fmt, median, result, table } from './lib/report.js';
import { alternate, describe, loadNote } from './lib/rounds.js';

const repo = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const base = mkdtempSync(path.join(os.tmpdir(), 'bench-fenced-'));
const fence = new Fence(repo, () => []);
const fenced = new FencedReader(fence);

/** The reads as they were before the fence: the lexical path, stat and readFile following every link. */
const lexical = {
  areas: async () => [],
  walkSkip: () => () => false,
  async stat(p: string) {
    const real = fence.locate(p).real;
    const st = await stat(real).catch(() => undefined);
    return st?.isFile() ? { ok: true as const, virtual: p, real, size: st.size, mtimeMs: st.mtimeMs } : { ok: false as const, status: 404, reason: 'missing' };
  },
  async read(p: string, opts: { maxBytes?: number } = {}) {
    const st = await lexical.stat(p);
    if (!st.ok) return st;
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes) return { ok: false as const, status: 413, reason: 'too large' };
    return { ...st, bytes: await readFile(st.real) };
  },
  async readText(p: string) {
    const file = await lexical.read(p);
    return file.ok ? { ...file, text: file.bytes.toString('utf8') } : file;
  },
} as unknown as FencedReader;

type Side = 'fenced' | 'lexical';
/** Wall and CPU milliseconds (user + system: this process and its thread pool) of each side, rounds alternating. */
async function both(rounds: number, sides: Record<Side, () => Promise<unknown>>) {
  const wall: Record<Side, number[]> = { fenced: [], lexical: [] };
  const used: Record<Side, number[]> = { fenced: [], lexical: [] };
  const measure = (side: Side) => async () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sides[side]();
    wall[side].push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    used[side].push((c.user + c.system) / 1000);
    return 0;
  };
  await alternate(rounds, { fenced: measure('fenced'), lexical: measure('lexical') });
  // The warm-up round is in the samples too: drop it.
  for (const xs of [wall.fenced, wall.lexical, used.fenced, used.lexical]) xs.shift();
  return { wall, cpu: used };
}
const row = (measure: string, m: { wall: Record<Side, number[]>; cpu: Record<Side, number[]> }) => ({
  measure,
  'fenced wall / CPU ms': `${describe(m.wall.fenced, 0)} / ${fmt(median(m.cpu.fenced))}`,
  'lexical wall / CPU ms': `${describe(m.wall.lexical, 0)} / ${fmt(median(m.cpu.lexical))}`,
  'ratio wall / CPU': `${(median(m.wall.fenced) / median(m.wall.lexical)).toFixed(3)} / ${(median(m.cpu.fenced) / median(m.cpu.lexical)).toFixed(3)}`,
});

const embedder = { id: 'bench', embed: async (texts: string[]) => texts.map((t) => Float32Array.from(vectorOf(t))) };
const noEmit = () => undefined;
const rows: Array<Record<string, string>> = [];

try {
  // 1. A full rebuild of the index over this repository, each side with its own store (vectors cached).
  const indexers = Object.fromEntries(
    (['fenced', 'lexical'] as const).map((side) => {
      const store = new IndexStore(path.join(base, side, 'code.sqlite'), embedder.id);
      return [side, { store, indexer: createIndexer({ roots: () => fence.roots(), reader: side === 'fenced' ? fenced : lexical, store: () => store, embedder: () => embedder, emit: noEmit }) }];
    }),
  ) as Record<'fenced' | 'lexical', { store: IndexStore; indexer: ReturnType<typeof createIndexer> }>;
  for (const { indexer } of Object.values(indexers)) await indexer.sync(); // fills each vector cache
  const counts = indexers.fenced.store.counts();
  if (counts.files !== indexers.lexical.store.counts().files) throw new Error(`the two indexes differ: ${JSON.stringify(counts)} vs ${JSON.stringify(indexers.lexical.store.counts())}`);
  const index = await both(ROUNDS, { fenced: () => indexers.fenced.indexer.rebuild(), lexical: () => indexers.lexical.indexer.rebuild() });
  rows.push(row(`index rebuild, ${counts.files} files, ${counts.chunks} chunks`, index));
  for (const { store } of Object.values(indexers)) store.close();

  // 2. GET /api/search's work: rg over the repository, then every row proven by a read.
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  const mounts = new MountStore(home, () => repo);
  await mounts.load();
  const rg = findRipgrep();
  const searchWith = (reader: FencedReader) => createFilesService({ home, fence, reader, mounts, emit: noEmit, rg });
  const sides = { fenced: searchWith(fenced), lexical: searchWith(lexical) };
  const query = async (files: ReturnType<typeof createFilesService>) => {
    const out = await files.search('reader', { caseSensitive: false, regex: false });
    if (!out.results.length) throw new Error('no search results');
  };
  const search = await both(ROUNDS * 5, { fenced: () => query(sides.fenced), lexical: () => query(sides.lexical) });
  rows.push(row(`GET /api/search "reader" (${rg ? 'rg' : 'walk'}, then every row proven)`, search));

  // 3. The reads alone.
  const reopened = new IndexStore(path.join(base, 'fenced', 'code.sqlite'), embedder.id);
  const names = [...reopened.indexedFiles().keys()];
  reopened.close();
  const readAll = (reader: FencedReader) => async () => {
    for (const n of names) await reader.read(n, { maxBytes: 512 * 1024 });
  };
  const reads = await both(ROUNDS * 3, { fenced: readAll(fenced), lexical: readAll(lexical) });
  rows.push(row(`read ${names.length} files one after another`, reads));

  console.log(await loadNote());
  table(rows);
  console.log(`per file, CPU: fenced ${fmt((median(reads.cpu.fenced) / names.length) * 1000, 1)} µs, lexical ${fmt((median(reads.cpu.lexical) / names.length) * 1000, 1)} µs`);
  result('fenced reader: index this repository (CPU)', 'ms', index.cpu.fenced, index.cpu.lexical, { ratioAtMost: 1.05 });
  result('fenced reader: GET /api/search', 'ms', search.wall.fenced, search.wall.lexical, { ratioAtMost: 1.05 });
} finally {
  rmSync(base, { recursive: true, force: true });
}
