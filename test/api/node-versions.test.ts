/** Issue 10 item 13: Node 20.19+, 22 and 24 are supported, and nothing installed asks for more (no EBADENGINE). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/process.js';

const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'));
const SUPPORTED = ['20.19.0', '20.20.0', '22.0.0', '22.23.3', '24.0.0', '24.11.1'];

test('engines.node says 20.19+, 22 and 24, and refuses older', () => {
  for (const v of SUPPORTED) assert.ok(semver.satisfies(v, pkg.engines.node), `${v} within ${pkg.engines.node}`);
  for (const v of ['18.20.0', '20.18.3', '21.7.0', '23.11.0']) assert.ok(!semver.satisfies(v, pkg.engines.node), `${v} outside ${pkg.engines.node}`);
  assert.ok(semver.satisfies(process.versions.node, pkg.engines.node), `this Node ${process.versions.node}`);
});

test('no locked package requires a Node the engine supports but it does not (npm would warn EBADENGINE)', () => {
  const problems: string[] = [];
  for (const [where, entry] of Object.entries<any>(lock.packages)) {
    const wants = entry?.engines?.node;
    if (!where || typeof wants !== 'string' || entry.optional) continue;
    for (const v of SUPPORTED) if (!semver.satisfies(v, wants)) problems.push(`${where}@${entry.version} needs node ${wants}; ${v} is supported`);
  }
  assert.deepEqual(problems, [], 'run `npm install` so package-lock.json applies the overrides of package.json');
});
