#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (through tsx), one file per process.
//   node scripts/test.mjs [substring ...]      only the files whose path contains one of them
//   node scripts/test.mjs --node22 [...]       a second Node version (CI): files that need an addon
//                                              built for one Node ABI (they say `needs: better-sqlite3`)
//                                              are left out, with a line saying so, when it cannot load
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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
const filter = args.filter((a) => a !== '--node22');
let chosen = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;

if (otherNode && !addonLoads('better-sqlite3')) {
  const left = chosen.filter((f) => /needs: better-sqlite3/.test(readFileSync(f, 'utf8')));
  chosen = chosen.filter((f) => !left.includes(f));
  console.log(`# better-sqlite3 is built for another Node ABI and cannot be rebuilt offline; left to the Node 20 run: ${left.join(', ') || '(none)'}`);
}

// A ceiling on every test, hook and file (node applies --test-timeout to each file's process too):
// a test that hangs, or a file whose process never exits (a server left running after a failed
// hook), fails with the file's name instead of holding CI until its own limit. The slowest file
// takes 13 s alone on a quiet two-core machine (cli.test.ts); five minutes is far past any honest run.
const TEST_TIMEOUT_MS = 300_000;

// tsx caches each file it transpiles, and two test processes starting at once may transpile the same
// changed file together; a reader that meets the other's half-written cache entry loads a module with
// no exports ("does not provide an export named 'startEngine'", seen on Node 22 after a large change).
// One process loads the engine and the test support first, so the parallel files start from a warm cache.
spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', "await import('./test/support/engine.ts'); await import('./test/chat/harness.ts');"], { stdio: 'inherit' });
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, ...chosen], { stdio: 'inherit' });
process.exit(result.status ?? 1);

function addonLoads(name) {
  try {
    const Database = createRequire(path.resolve('package.json'))(name);
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}
