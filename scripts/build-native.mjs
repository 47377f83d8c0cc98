#!/usr/bin/env node
// Compiles native/sqlite-csv.c, the SQLite table-valued function that writes export CSV in C, into
// dist/native/sqlite-csv.<so|dylib> against the SQLite headers better-sqlite3 ships (the same SQLite
// it loads into). Optional, like the bundle: without a C compiler (or on Windows) SQLite exports
// build their lines in SQL instead, slower but the same bytes (src/capabilities/db/drivers/sqlite-worker.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const skip = (why) => {
  process.stderr.write(`native: skipped (${why}); SQLite CSV exports build their lines in SQL (slower, same bytes)\n`);
  process.exit(0);
};
if (process.platform === 'win32') skip('not built on Windows');
let headers;
try {
  headers = path.join(path.dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3');
} catch {
  skip('better-sqlite3 is not installed');
}
if (!existsSync(path.join(headers, 'sqlite3ext.h'))) skip(`no sqlite3ext.h in ${headers}`);
const out = path.join('dist', 'native', `sqlite-csv.${process.platform === 'darwin' ? 'dylib' : 'so'}`);
mkdirSync(path.dirname(out), { recursive: true });
rmSync(out, { force: true });
const shared = process.platform === 'darwin' ? ['-dynamiclib', '-undefined', 'dynamic_lookup'] : ['-shared'];
const cc = process.env.CC || 'cc';
const r = spawnSync(cc, ['-O2', '-fPIC', ...shared, '-I', headers, path.join('native', 'sqlite-csv.c'), '-o', out], { encoding: 'utf8' });
if (r.error) skip(`${cc} not found: ${r.error.message}`);
if (r.status !== 0) skip(`${cc} failed: ${(r.stderr || '').trim().split('\n')[0]}`);
