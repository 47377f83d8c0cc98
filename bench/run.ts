/**
 * Runs every bench/*.bench.ts (or those whose name contains an argument), one process each, and
 * repeats their RESULT lines at the end. `npm run bench [-- name ...]`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = path.dirname(new URL(import.meta.url).pathname);
const filter = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !filter.length || filter.some((x) => f.includes(x)))
  .sort();
const results: string[] = [];
let failed = 0;
for (const f of files) {
  console.log(`\n== ${f}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, f)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  process.stdout.write(r.stdout ?? '');
  if (r.status !== 0) {
    failed++;
    results.push(`ERROR ${f}: exited with ${r.status}`);
  }
  for (const line of (r.stdout ?? '').split('\n')) if (line.startsWith('RESULT ')) results.push(line);
}
console.log('\n== summary');
for (const line of results) console.log(line);
process.exit(failed ? 1 : 0);
