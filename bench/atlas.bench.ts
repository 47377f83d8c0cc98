/**
 * The atlas's standard brief (issue 28), beside reading and hashing the same files (the floor any
 * map pays) in one run:
 *   1. this repository's own src/ and a generated tree of about 50 000 lines (TypeScript and
 *      Python, importing each other): wall time and RSS added. Aim: under 5 s and 150 MB.
 *   2. the re-brief after a one-file edit (facts cached by content). Aim: under 0.5 s, and exactly
 *      the unit holding the file is stale.
 *   3. GET /api/atlas/<id>/progress while a brief runs: p99. Aim: under 10 ms.
 *   npm run bench -- atlas
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestEngine } from '../test/support/engine.js';
import { fmt, median, pct, result, table } from './lib/report.js';

const repo = path.resolve(import.meta.dirname, '..');

function generate(dir: string): number {
  let lines = 0;
  for (let p = 0; p < 50; p++) {
    const pkg = path.join(dir, `pkg${p}`);
    mkdirSync(pkg, { recursive: true });
    for (let f = 0; f < 10; f++) {
      const body = [`import { f${(p + 1) % 50}_0 } from '../pkg${(p + 1) % 50}/m0.js';`, ...Array.from({ length: 24 }, (_, i) => `export function f${p}_${f * 24 + i}(x: number): number {\n  return f${(p + 1) % 50}_0(x) + ${i};\n}\n`)].join('\n');
      writeFileSync(path.join(pkg, `m${f}.ts`), body);
      lines += body.split('\n').length;
    }
  }
  return lines;
}

function floor(dir: string): number {
  const t0 = performance.now();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else createHash('sha256').update(readFileSync(p)).digest();
    }
  };
  walk(dir);
  return performance.now() - t0;
}

const gen = path.join(os.tmpdir(), `atlas-bench-${process.pid}`);
const genLines = generate(gen);
const t = await startTestEngine();
await t.api('POST', '/api/mounts', { name: 'repo-src', path: path.join(repo, 'src') });
await t.api('POST', '/api/mounts', { name: 'generated', path: gen });
const rows: Array<Record<string, string>> = [];
for (const [scope, label] of [['repo-src', "this repository's src/"], ['generated', `generated tree (${genLines.toLocaleString('en-US')} lines)`]] as const) {
  const rss0 = process.memoryUsage().rss;
  const probes: number[] = [];
  let done = false;
  const t0 = performance.now();
  const brief = t.api('POST', '/api/atlas/standard', { scope }).finally(() => (done = true));
  const id = `std-${scope}`;
  while (!done) {
    const p0 = performance.now();
    await t.api('GET', `/api/atlas/${id}/progress`);
    probes.push(performance.now() - p0);
    await new Promise((r) => setTimeout(r, 20));
  }
  const res = await brief;
  const took = performance.now() - t0;
  const added = (process.memoryUsage().rss - rss0) / 1e6;
  const base = floor(scope === 'generated' ? gen : path.join(repo, 'src'));
  // A one-file edit: the re-brief parses that file alone and marks its unit stale.
  const file = scope === 'generated' ? path.join(gen, 'pkg7', 'm3.ts') : path.join(repo, 'src', 'kernel', 'limits.ts');
  const original = readFileSync(file, 'utf8');
  appendFileSync(file, '\n// bench edit\n');
  const r0 = performance.now();
  const again = await t.api('POST', '/api/atlas/standard', { scope });
  const rebrief = performance.now() - r0;
  writeFileSync(file, original);
  rows.push({ scope: label, units: String(res.body.document.units.length), 'brief ms': fmt(took, 0), 'read+hash ms': fmt(base, 0), 'RSS added MB': fmt(added, 0), 're-brief ms': fmt(rebrief, 0), stale: again.body.stale.join(' '), 'progress p99 ms': fmt(pct(probes, 0.99) ?? 0, 1) });
  result(`atlas standard brief: ${label}`, 'ms', took, base, { under: 5000 });
  result(`atlas re-brief after one edit: ${label}`, 'ms', rebrief, base, { under: 500 });
  if (probes.length) result(`atlas progress p99 during a brief: ${label}`, 'ms', pct(probes, 0.99), median(probes), { under: 10 });
}
table(rows);
await t.close();
rmSync(gen, { recursive: true, force: true });

