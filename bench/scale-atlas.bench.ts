/**
 * Scale curve of the atlas list (issue 42) at 500, 5 000 and 50 000 source files in the scope of
 * one standard atlas: `GET /api/atlas` when nothing changed. Staleness is kept from file events, so
 * the list should stay flat in the files of its scopes. Side by side in the same run, the same list
 * from an engine without the file watcher, which works staleness out on every ask (a re-brief of
 * the scope: what every list cost before).
 *
 * Two engines, each with its own home mounting the same tree, asked in turn; medians of wall time.
 *
 *   SCALE=0.1 node --import tsx bench/scale-atlas.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEngine, type Engine } from '../src/engine.js';
import { type Point, printCurve, sizes } from './lib/curve.js';
import { loadNote } from './lib/rounds.js';
import { eachSize, request } from './lib/scale-home.js';

const SIZES = sizes([500, 5_000, 50_000]);
const ROUNDS = 9;

/** n TypeScript files in folders of 50, each importing a file of the next folder. */
function writeTree(dir: string, n: number): void {
  const folders = Math.ceil(n / 50);
  for (let f = 0; f < folders; f++) {
    mkdirSync(path.join(dir, `pkg${f}`), { recursive: true });
    for (let i = 0; i < 50 && f * 50 + i < n; i++) {
      writeFileSync(path.join(dir, `pkg${f}`, `m${i}.ts`), `import { f${(f + 1) % folders}_0 } from '../pkg${(f + 1) % folders}/m0.js';\nexport function f${f}_${i}(x: number): number {\n  return x + ${i};\n}\n`);
    }
  }
}

const start = (home: string, watch: boolean): Promise<Engine> => startEngine({ home, port: 0, log: () => undefined, secretsBackend: 'file', files: { watch } });

const kept: Point[] = [];
const worked: Point[] = [];
const notes: string[] = [];
await eachSize('atlas', SIZES, async (n, home, warm) => {
  const tree = path.join(home, 'tree');
  writeTree(tree, n);
  const watching = await start(path.join(home, 'watching'), true);
  let blind: Engine | undefined;
  try {
    blind = await start(path.join(home, 'blind'), false);
    for (const e of [watching, blind]) {
      await request(`${e.url}/api/mounts`, 'POST', { name: 'tree', path: tree });
      await request(`${e.url}/api/atlas/standard`, 'POST', { scope: 'tree' });
    }
    const times = { kept: [] as number[], worked: [] as number[] };
    const ask = async (e: Engine, into: number[]) => {
      const t0 = performance.now();
      const res = await request(`${e.url}/api/atlas`);
      into.push(performance.now() - t0);
      if (!res.text.includes('"stale":0')) throw new Error(`the atlas should have nothing stale: ${res.text.slice(0, 300)}`);
    };
    await ask(watching, []);
    await ask(blind, []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [blind, watching] : [watching, blind];
      for (const e of order) await ask(e, e === watching ? times.kept : times.worked);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    if (warm) return;
    kept.push({ size: n, ms: median(times.kept) });
    worked.push({ size: n, ms: median(times.worked) });
    notes.push(`${n} files: kept ${median(times.kept).toFixed(2)} ms, worked out on every ask ${median(times.worked).toFixed(1)} ms (${(median(times.worked) / median(times.kept)).toFixed(0)}x)`);
  } finally {
    await blind?.close();
    await watching.close();
  }
});
console.log(await loadNote());
for (const line of notes) console.log(line);
printCurve({ path: 'GET /api/atlas, staleness kept from file events', unit: 'files', expected: 'flat', points: kept });
printCurve({ path: 'GET /api/atlas, staleness worked out on every ask (no watcher: the cost before)', unit: 'files', expected: 'linear', points: worked });
