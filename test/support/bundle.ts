/**
 * The bundle tests' shared steps: esbuild (a dev dependency) may be missing, and each test bundles
 * the CLI with scripts/bundle.mjs into a folder of its own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './process.js';

/** The skip reason when esbuild is not installed, else false. */
export const NO_ESBUILD: string | false = await import('esbuild').then(
  () => false,
  () => 'esbuild is not installed',
);

/** A folder for a bundle, inside the repository so the bundle resolves the external packages from node_modules. */
export function bundleDir(name: string): string {
  return path.join(REPO_ROOT, '.bench-tmp', `test-${name}-${process.pid}`);
}

/**
 * Bundles the CLI into `out` (main.js, engine.cjs); fails the test when the build does. The script
 * exits 0 on a failed build (an install falls back to dist/), so the files are checked too.
 */
export function buildBundle(out: string): void {
  const built = spawnSync(process.execPath, ['scripts/bundle.mjs', out], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  assert.ok(existsSync(path.join(out, 'main.js')) && existsSync(path.join(out, 'engine.cjs')), `no bundle was built: ${built.stderr}`);
}
