/**
 * Issue 26: `npm start` builds only when the sources are newer than the build (it rebuilt every
 * time: 40 s on two cores). scripts/build-stale.mjs decides; scripts/start.mjs asks it.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs build script without types
import { staleBecause } from '../../scripts/build-stale.mjs';
import { tempDir } from '../support/engine.js';

test('a build is needed when missing or older than any source, and not otherwise', async () => {
  const root = await tempDir('start-build-');
  try {
    await mkdir(path.join(root, 'src', 'kernel'), { recursive: true });
    await writeFile(path.join(root, 'src', 'kernel', 'a.ts'), 'export {}');
    await writeFile(path.join(root, 'package.json'), '{}');
    assert.equal(staleBecause(root), 'there is no build yet');
    await mkdir(path.join(root, 'dist'), { recursive: true });
    await writeFile(path.join(root, 'dist', 'main.js'), '');
    const old = new Date(Date.now() - 60_000);
    for (const p of ['src/kernel/a.ts', 'src/kernel', 'src', 'package.json']) await utimes(path.join(root, p), old, old);
    assert.equal(staleBecause(root), undefined, 'fresh build: no rebuild');
    await writeFile(path.join(root, 'src', 'kernel', 'a.ts'), 'export const x = 1');
    assert.equal(staleBecause(root), 'src changed since the last build');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
