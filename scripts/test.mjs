#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (through tsx), one file per process.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
const filter = process.argv.slice(2);
const chosen = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...chosen], { stdio: 'inherit' });
process.exit(result.status ?? 1);
