/**
 * Scale curves of a vault (issue 34) at 1k, 10k and 100k notes: the full index (cold, no persisted
 * index: every note read and parsed), search (a rare word, a word in about one note in ten, and a
 * word being typed, matched as a prefix) and backlinks (a note's metadata; and after a note is
 * added, which changes the set of names every link resolves against). Notes are written as plain
 * Markdown files with wiki links; the index is checked to hold every one. Expected: the full index
 * linear; search of a rare word flat, of a common word linear in its matches; backlinks flat.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-vault.bench.ts
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { VaultIndex } from '../src/capabilities/vaults/index.js';
import { DEFAULT_SCHEMA } from '../src/capabilities/vaults/schema.js';
import { Home } from '../src/kernel/home.js';
import { Fence } from '../src/kernel/fence.js';
import { FencedReader } from '../src/kernel/fenced-read.js';
import { type Curve, printCurve, sizes } from './lib/curve.js';
import { cpuMs, eachSize, get, getJson, heapMb, medianCpuMs, request, withEngine } from './lib/scale-home.js';

const SIZES = sizes([1_000, 10_000, 100_000]);

/** A word per index, made of syllables (so words are real tokens, not numbers). */
function word(i: number): string {
  const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'pe', 'zu', 'ga', 'do'];
  let s = '';
  for (let n = i + 12; n > 0; n = Math.floor(n / syll.length)) s += syll[n % syll.length];
  return s;
}
const COMMON = 'common';
const RARE = 'solitaryword';

/** `n` notes in folders of 100: body words from a vocabulary that grows with the vault, three links each. */
function writeVault(root: string, n: number): void {
  const vocabulary = Math.max(1000, n / 2);
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let d = 0; d < n / 100; d++) {
    const dir = path.join(root, `area${d % 10}`, `topic${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 100; f++) {
      const i = d * 100 + f;
      const words = Array.from({ length: 80 }, () => word(Math.floor(vocabulary * rand() ** 2)));
      if (i % 10 === 0) words.push(COMMON);
      if (i === Math.floor(n / 2)) words.push(RARE);
      // Every note links to note 0 (the hub) and two others.
      const links = `[[note 0]] [[note ${Math.floor(rand() * n)}]] [[note ${Math.floor(rand() * n)}]]`;
      writeFileSync(path.join(dir, `note ${i}.md`), `---\ntags: [t${i % 20}]\n---\n# Note ${i}\n\n${words.slice(0, 40).join(' ')}.\n\n## More\n\n${words.slice(40).join(' ')} ${links}\n`);
    }
  }
}

/** Heap and typed arrays (the search index's postings live in the latter), after a collection has let both settle. */
async function settledMemory(): Promise<{ heap: number; typed: number }> {
  heapMb();
  await new Promise((r) => setTimeout(r, 300)); // typed arrays' memory is given back after the collection, off the main thread
  return { heap: heapMb(), typed: process.memoryUsage().arrayBuffers / 1e6 };
}
const typed: string[] = [];

const curves = {
  index: { path: 'vault full index (cold)', unit: 'notes', expected: 'linear', points: [] } as Curve,
  rare: { path: 'GET /api/vaults/<v>/search (a rare word)', unit: 'notes', expected: 'flat', points: [] } as Curve,
  common: { path: 'GET /api/vaults/<v>/search (a word in 1 note of 10)', unit: 'notes', expected: 'linear', points: [] } as Curve,
  prefix: { path: 'GET /api/vaults/<v>/search (a word being typed: prefix)', unit: 'notes', expected: 'linear', points: [] } as Curve,
  backlinks: { path: 'GET /api/vaults/<v>/note (metadata, backlinks)', unit: 'notes', expected: 'flat', points: [] } as Curve,
  added: { path: 'POST a note, then GET another note (backlinks again)', unit: 'notes', expected: 'flat', points: [] } as Curve,
};

await eachSize('vault', SIZES, async (n, base, warm) => {
  const root = path.join(base, 'vault');
  writeVault(root, n);
  writeFileSync(path.join(root, 'vault.json'), JSON.stringify(DEFAULT_SCHEMA));

  // The full index, in-process and cold: every note read and parsed.
  const home = new Home(path.join(base, 'index-home'));
  await home.ensure();
  const cache = path.join(base, 'index-home', 'index.json');
  const build = async () => {
    rmSync(cache, { force: true });
    const index = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
    const stats = await index.load();
    if (stats.parsed !== n) throw new Error(`indexed ${stats.parsed} notes of ${n}`);
    await index.flush();
    return index;
  };
  // The first build is the warm-up and the memory reading; the time is the better of two more.
  const before = await settledMemory();
  let kept: VaultIndex | undefined = await build();
  const after = await settledMemory();
  const held = after.heap - before.heap;
  if (!warm) typed.push(`${n}: ${(after.typed - before.typed).toFixed(1)} MB`);
  if (kept.size !== n) throw new Error('the index lost notes');
  kept = undefined; // the engine below builds its own: two 100k-note indexes in one heap would time the collector
  const indexMs = Math.min(await cpuMs(build), await cpuMs(build));
  if (!warm) curves.index.points.push({ size: n, ms: indexMs, mb: held });

  await withEngine(path.join(base, 'home'), async (engine) => {
  await request(engine.url + '/api/vaults', 'POST', { name: 'big', path: root });
  const hits = (q: string) => getJson(engine, `/api/vaults/big/search?q=${q}&limit=20`).then((r) => r.results as Array<{ path: string }>);
  if ((await hits(RARE)).length !== 1 || (await hits(COMMON)).length !== Math.min(20, n / 10)) throw new Error('search does not find the generated words');
  const hub = encodeURIComponent('area0/topic0/note 0.md');
  const meta = (await getJson(engine, `/api/vaults/big/note?path=${hub}`)).meta;
  if (meta.backlinks.length < n - 1) throw new Error(`note 0 has ${meta.backlinks.length} backlinks; every note links to it`);
  const other = encodeURIComponent('area0/topic0/note 50.md');
  if (!warm) {
    curves.rare.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/vaults/big/search?q=${RARE}&limit=20`), 9) });
    curves.common.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/vaults/big/search?q=${COMMON}&limit=20`), 9) });
    curves.prefix.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/vaults/big/search?q=${word(3).slice(0, 3)}&limit=20`), 5) });
    curves.backlinks.points.push({ size: n, ms: await medianCpuMs(() => get(engine, `/api/vaults/big/note?path=${other}`), 9) });
    let k = 0;
    curves.added.points.push({
      size: n,
      ms: await medianCpuMs(async () => {
        await request(engine.url + '/api/vaults/big/notes', 'POST', { name: `added ${k++}`, type: 'note', content: 'A new note about [[note 50]].\n' });
        await get(engine, `/api/vaults/big/note?path=${other}`);
      }, 5),
    });
  }
  });
});
console.log(`(MB: heap the index of the vault holds; typed arrays besides: ${typed.join(', ')})`);
for (const c of Object.values(curves)) printCurve(c);
