/**
 * Vaults over 10 000 generated notes, each measure side by side with its baseline, alternating:
 *  1. index build (cold: no persisted index) vs `rg -c ''` reading every file — aim under 2 s;
 *     and the warm start (persisted index, stat only) for the record;
 *  2. a changed note searchable: PUT .../note then GET .../search finds the new word — aim under
 *     20 ms; baseline: write the file and `rg -l` for the word; the outside-edit path (plain write,
 *     the watcher re-indexes) is printed for the record;
 *  3. search p50 over the same words vs `rg -l -i -w` — aim: engine at least 10x faster.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';
import { VaultIndex } from '../src/capabilities/vaults/index.js';
import { DEFAULT_SCHEMA } from '../src/capabilities/vaults/schema.js';
import { Home } from '../src/kernel/home.js';
import { Fence } from '../src/kernel/fence.js';
import { FencedReader } from '../src/kernel/fenced-read.js';
import { run } from './files-fixture.js';
import { fmt, median, result, table } from './lib/report.js';

const NOTES = 10_000;
const WORDS = Array.from({ length: 3000 }, (_, i) => word(i));

function word(i: number): string {
  const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'shi', 'pe', 'zu', 'ga', 'do'];
  let s = '';
  let n = i + 12;
  while (n > 0) {
    s += syll[n % syll.length];
    n = Math.floor(n / syll.length);
  }
  return s;
}

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
// Zipf-like: a few words are everywhere, most are rare, as in real notes.
const pick = () => WORDS[Math.floor(WORDS.length * rand() ** 3)];

async function makeVault(root: string): Promise<void> {
  for (let d = 0; d < NOTES / 100; d++) {
    const dir = path.join(root, `area${d % 10}`, `topic${d}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: 100 }, (_, f) => {
        const i = d * 100 + f;
        const words = Array.from({ length: 120 }, pick);
        const links = Array.from({ length: 3 }, () => `[[note ${Math.floor(rand() * NOTES)}]]`).join(' ');
        const text = `---\ntags: [${pick()}]\n${i % 10 === 0 ? `aliases: [alias ${i}]\n` : ''}---\n# Note ${i}\n\n${words.slice(0, 60).join(' ')}.\n\n## Details\n\n${words.slice(60).join(' ')} ${links}\n`;
        return writeFile(path.join(dir, `note ${i}.md`), text);
      }),
    );
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Alternating rounds after one warm-up each; medians and spreads (min-max) in ms. */
async function sideBySide(rounds: number, engine: (i: number) => Promise<unknown>, baseline: (i: number) => Promise<unknown>) {
  await engine(-1);
  await baseline(-1);
  const e: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    e.push(await time(() => engine(i)));
    b.push(await time(() => baseline(i)));
  }
  const spread = (xs: number[]) => `${fmt(Math.min(...xs), 1)}-${fmt(Math.max(...xs), 1)}`;
  return { engine: median(e), baseline: median(b), engineSpread: spread(e), baselineSpread: spread(b) };
}

const base = await mkdtemp(path.join(os.tmpdir(), 'bench-vaults-'));
const root = path.join(base, 'vault');
try {
  const t0 = performance.now();
  await makeVault(root);
  await writeFile(path.join(root, 'vault.json'), JSON.stringify(DEFAULT_SCHEMA));
  console.log(`generated ${NOTES} notes in ${fmt(performance.now() - t0)} ms`);
  const rows: Array<Record<string, string>> = [];

  // 1. Index build, cold, in-process (the index alone), vs rg reading every file.
  const home = new Home(path.join(base, 'home'));
  await home.ensure();
  const cache = path.join(base, 'home', 'vaults', 'bench', 'index.json');
  // CPU time too: on a shared machine the wall clock mostly measures the other processes.
  const buildCpu: number[] = [];
  const build = await sideBySide(
    5,
    async () => {
      await rm(cache, { force: true });
      const c0 = process.cpuUsage();
      const index = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
      const stats = await index.load();
      const c = process.cpuUsage(c0);
      buildCpu.push((c.user + c.system) / 1000);
      if (stats.parsed !== NOTES) throw new Error(`parsed ${stats.parsed}`);
      // Its save now, outside the measure: left to its timer (5 s) it lands during the warm starts
      // below, and a start reading between its two files (stamps that differ) indexes every note again.
      await index.flush();
    },
    () => run('rg', ['-c', '', root]),
  );
  rows.push({ measure: 'index build, 10 000 notes (cold)', engine: `${fmt(build.engine, 1)} ms (${build.engineSpread}), CPU ${fmt(median(buildCpu))} ms`, baseline: `rg -c '' ${fmt(build.baseline, 1)} ms (${build.baselineSpread})` });
  // The warm start: a persisted index, every note stat'ed, none read.
  const warmIndex = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
  await warmIndex.load();
  await warmIndex.flush();
  const warm: number[] = [];
  const warmCpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const index = new VaultIndex(root, home, cache, DEFAULT_SCHEMA, new FencedReader(new Fence(root, () => [])));
    const c0 = process.cpuUsage();
    const ms = await time(() => index.load());
    const c = process.cpuUsage(c0);
    warmCpu.push((c.user + c.system) / 1000);
    if (index.stats.reused !== NOTES) throw new Error(`reused ${index.stats.reused}`);
    warm.push(ms);
  }
  rows.push({ measure: 'start with a persisted index (stat only)', engine: `${fmt(median(warm), 1)} ms, CPU ${fmt(median(warmCpu))} ms`, baseline: '' });

  // 2 and 3 through the real HTTP API.
  const engine = await startEngine({ home: path.join(base, 'ehome'), port: 0, log: () => undefined, secretsBackend: 'file' });
  try {
    const api = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(engine.url + route, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await api('POST', '/api/vaults', { name: 'bench', path: root });
    const target = 'area3/topic13/note 1313.md';
    const changed = await sideBySide(
      21,
      async (i) => {
        const w = `freshword${i + 1}x`;
        await api('PUT', `/api/vaults/bench/note?path=${encodeURIComponent(target)}`, { content: `# Note 1313\n\nNow about ${w}.\n` });
        const r = await api('GET', `/api/vaults/bench/search?q=${w}`);
        if (r.results[0]?.path !== `bench/${target}`) throw new Error(`not found: ${JSON.stringify(r)}`);
      },
      async (i) => {
        const w = `rgword${i + 1}x`;
        await writeFile(path.join(root, 'area4/topic14/note 1414.md'), `# Note 1414\n\nNow about ${w}.\n`);
        await run('rg', ['-l', w, root]);
      },
    );
    rows.push({ measure: 'changed note searchable (PUT + search)', engine: `${fmt(changed.engine, 1)} ms (${changed.engineSpread})`, baseline: `write + rg -l ${fmt(changed.baseline, 1)} ms (${changed.baselineSpread})` });

    // For the record: an edit made outside the engine, seen through the watcher (batched 100 ms).
    const outside: number[] = [];
    for (let i = 0; i < 5; i++) {
      const w = `outsideword${i}x`;
      const t1 = performance.now();
      await writeFile(path.join(root, 'area5/topic15/note 1515.md'), `# Note 1515\n\n${w}\n`);
      for (;;) {
        const r = await api('GET', `/api/vaults/bench/search?q=${w}`);
        if (r.results.length) break;
        await new Promise((res) => setTimeout(res, 5));
      }
      outside.push(performance.now() - t1);
    }
    rows.push({ measure: 'outside edit searchable (watcher)', engine: `${fmt(median(outside), 1)} ms`, baseline: '' });

    const queries = [WORDS[5], WORDS[40], WORDS[300], WORDS[1200], WORDS[2500], 'details', WORDS[17], WORDS[900]];
    const search = await sideBySide(
      25,
      async (i) => {
        const q = queries[Math.max(i, 0) % queries.length];
        await api('GET', `/api/vaults/bench/search?q=${q}`);
      },
      (i) => run('rg', ['-l', '-i', '-w', queries[Math.max(i, 0) % queries.length], root]),
    );
    rows.push({ measure: 'search p50 (same words)', engine: `${fmt(search.engine, 2)} ms (${search.engineSpread})`, baseline: `rg -l -i -w ${fmt(search.baseline, 1)} ms (${search.baselineSpread})` });

    table(rows);
    result('vault_index_build_10k', 'ms', build.engine, build.baseline, { under: 2000 });
    result('vault_changed_note_searchable', 'ms', changed.engine, changed.baseline, { under: 20 });
    const ratio = search.engine / search.baseline;
    console.log(`RESULT vault_search_p50: engine ${fmt(search.engine, 2)} ms, baseline rg ${fmt(search.baseline, 1)} ms, ratio ${ratio.toFixed(3)} (aim: <= 0.1, 10x faster) ${ratio <= 0.1 ? 'PASS' : 'MISS'}`);
  } finally {
    await engine.close();
  }
} finally {
  await rm(base, { recursive: true, force: true });
}
