/**
 * The engine's name and version, read once from the package.json above this module (the same walk
 * works from src/, dist/ and dist/bundle/).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ENGINE_NAME = 'Workbench Engine';

let found: { root: string; version: string } | undefined;

function locate(): { root: string; version: string } {
  if (found) return found;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'workbench-engine' && pkg.version) return (found = { root: dir, version: pkg.version });
    } catch {
      // Not here; one folder up.
    }
    dir = path.dirname(dir);
  }
  return (found = { root: process.cwd(), version: '0.0.0-unknown' });
}

export const engineVersion = (): string => locate().version;

/** The folder holding package.json, README.md and docs/. */
export const packageRoot = (): string => locate().root;
