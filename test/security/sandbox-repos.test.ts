/**
 * The walk that finds every .git to keep read-only, with its listing cache: a repository that appears
 * in a folder whose listing was cached is still found (the folder's mtime moves), and submodule and
 * worktree git dirs are found too.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rename, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { scanRepos } from '../../src/sandbox/repos.js';

let root: string;
before(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sandbox-repos-')));
});
after(() => rm(root, { recursive: true, force: true }));

/** Sets every folder's times an hour back, so cached listings are not "racy" and the cache is used. */
async function age(dir: string): Promise<void> {
  const old = new Date(Date.now() - 3_600_000);
  for (const e of await readdir(dir, { withFileTypes: true })) if (e.isDirectory() && e.name !== '.git') await age(path.join(dir, e.name));
  await utimes(dir, old, old);
}

test('a repository made (or moved in) after a cached walk is found by the next walk', async () => {
  const ws = path.join(root, 'ws');
  await mkdir(path.join(ws, 'a', 'b', 'c'), { recursive: true });
  await age(ws);
  assert.deepEqual((await scanRepos([ws])).gitDirs, []);
  assert.deepEqual((await scanRepos([ws])).gitDirs, []); // served from the cache
  execFileSync('git', ['init', '-q', path.join(ws, 'a', 'b', 'c')]);
  assert.deepEqual((await scanRepos([ws])).gitDirs, [path.join(ws, 'a', 'b', 'c', '.git')]);
  // A whole tree holding a repository, renamed into a cached folder.
  const outside = path.join(root, 'outside', 'tree', 'deep');
  await mkdir(outside, { recursive: true });
  execFileSync('git', ['init', '-q', outside]);
  await age(ws);
  await scanRepos([ws]);
  await rename(path.join(root, 'outside', 'tree'), path.join(ws, 'a', 'tree'));
  const scan = await scanRepos([ws]);
  assert.ok(scan.gitDirs.includes(path.join(ws, 'a', 'tree', 'deep', '.git')), scan.gitDirs.join(', '));
  assert.ok(scan.readOnly.includes(path.join(ws, 'a', 'tree', 'deep', '.git', 'config')));
  assert.ok(scan.readOnly.includes(path.join(ws, 'a', 'tree', 'deep', '.git', 'hooks')));
});

test('submodule git dirs (.git/modules) and a worktree .git file pointing inside the roots are found; node_modules is skipped', async () => {
  const ws = path.join(root, 'ws2');
  await mkdir(path.join(ws, 'main'), { recursive: true });
  execFileSync('git', ['init', '-q', path.join(ws, 'main')]);
  const mod = path.join(ws, 'main', '.git', 'modules', 'lib', 'inner');
  await mkdir(mod, { recursive: true });
  await writeFile(path.join(mod, 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(path.join(mod, 'config'), '[core]\n');
  await mkdir(path.join(ws, 'main', 'lib', 'inner'), { recursive: true });
  await writeFile(path.join(ws, 'main', 'lib', 'inner', '.git'), 'gitdir: ../../.git/modules/lib/inner\n');
  await mkdir(path.join(ws, 'node_modules', 'pkg', '.git'), { recursive: true });
  const scan = await scanRepos([ws]);
  assert.ok(scan.gitDirs.includes(mod), scan.gitDirs.join(', '));
  assert.ok(scan.readOnly.includes(path.join(mod, 'config')));
  assert.ok(!scan.gitDirs.some((d) => d.includes('node_modules')));
});
