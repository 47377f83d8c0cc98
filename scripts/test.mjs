#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (through tsx), one file per process.
//   node scripts/test.mjs [substring ...]      only the files whose path contains one of them
//   node scripts/test.mjs --node22 [...]       a second Node version (CI): files that need an addon
//                                              built for one Node ABI (they say `needs: better-sqlite3`)
//                                              are left out, with a line saying so, when it cannot load
//   node scripts/test.mjs --stress N [...]     N busy loops (one process each) beside the run: a loaded
//                                              machine anyone can reproduce; the suite must pass on it
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const root = 'test';
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
};
walk(root);
const args = process.argv.slice(2);
const otherNode = args.includes('--node22');
const stressAt = args.indexOf('--stress');
const stress = stressAt < 0 ? 0 : Number(args[stressAt + 1]);
if (stressAt >= 0 && !(Number.isInteger(stress) && stress >= 0)) {
  console.error('--stress takes the number of busy loops to run beside the tests, such as --stress 3');
  process.exit(2);
}
const filter = args.filter((a, i) => a !== '--node22' && (stressAt < 0 || (i !== stressAt && i !== stressAt + 1)));
let chosen = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
if (!chosen.length) {
  // node --test without files would run every file it finds by its own patterns.
  console.error(`no test file's path contains ${filter.join(' or ')}`);
  process.exit(2);
}

if (otherNode && !addonLoads('better-sqlite3')) {
  const left = chosen.filter((f) => /needs: better-sqlite3/.test(readFileSync(f, 'utf8')));
  chosen = chosen.filter((f) => !left.includes(f));
  console.log(`# better-sqlite3 is built for another Node ABI and cannot be rebuilt offline; left to the Node 20 run: ${left.join(', ') || '(none)'}`);
}

// A ceiling on every test, hook and file (node applies --test-timeout to each file's process too):
// a test that hangs, or a file whose process never exits (a server left running after a failed
// hook), fails with the file's name instead of holding CI until its own limit. The slowest file
// takes minutes on a busy two-core machine (see the README); five minutes still bounds a hang.
const TEST_TIMEOUT_MS = 300_000;

// tsx caches each file it transpiles, and two test processes starting at once may transpile the same
// changed file together; a reader that meets the other's half-written cache entry loads a module with
// no exports ("does not provide an export named 'startEngine'", seen on Node 22 after a large change).
// One process loads the engine and the test support first, so the parallel files start from a warm cache.
const started = Date.now();
const loops = startBusyLoops(stress);
spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "await import('./test/support/engine.ts'); await import('./test/chat/harness.ts');"], { stdio: 'inherit' });
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, ...chosen], { stdio: 'inherit' });
for (const loop of loops) loop.kill('SIGKILL');
if (stress) console.log(`# ${chosen.length} file(s) in ${((Date.now() - started) / 1000).toFixed(0)} s beside ${stress} busy loop(s); load average now ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
process.exit(result.status ?? 1);

/**
 * `n` processes that each keep one core busy. Each also ends itself once its parent is gone (its
 * parent pid changes when it is re-parented), so a run that ends any way at all, a kill -9 or a
 * closed terminal included, leaves no loop behind; a normal end kills them above.
 */
function startBusyLoops(n) {
  const loop = 'const parent = process.ppid; for (;;) { for (let i = 0; i < 1e7; i++); if (process.ppid !== parent) process.exit(0); }';
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }));
  if (n) console.log(`# ${n} busy loop(s) beside the run (pids ${children.map((c) => c.pid).join(', ')})`);
  return children;
}

function addonLoads(name) {
  try {
    const Database = createRequire(path.resolve('package.json'))(name);
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}
