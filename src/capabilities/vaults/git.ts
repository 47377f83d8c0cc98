/**
 * A vault made with `git: true` is a repository, and every write the engine makes there is a commit.
 * Git runs through the git capability's one runner (argument arrays, clean environment, no hooks or
 * fsmonitor program), handed in by the composition root as for work boards. Commits carry an engine
 * identity only when the repository has none of its own, so a person's configured name still wins.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** The git capability's runner, bound to the engine's ceilings. */
export type VaultGit = (args: string[], cwd: string) => Promise<{ code: number; stdout: Buffer; stderr: string }>;

const IDENTITY = ['-c', 'user.name=Workbench Engine', '-c', 'user.email=engine@localhost'];

/** `git init` unless the folder is a repository already; true when it made one. */
export async function ensureRepo(git: VaultGit, root: string): Promise<boolean> {
  if (await stat(path.join(root, '.git')).catch(() => undefined)) return false;
  const r = await git(['init', '--quiet'], root);
  if (r.code !== 0) throw new Error(`git init failed in ${root}: ${r.stderr.trim() || `exit ${r.code}`}`);
  return true;
}

async function hasIdentity(git: VaultGit, root: string): Promise<boolean> {
  const r = await git(['config', 'user.email'], root);
  return r.code === 0 && r.stdout.toString('utf8').trim() !== '';
}

/** Stages `rels` (added, changed or removed) and commits them; nothing staged is no commit. */
export async function commit(git: VaultGit, root: string, rels: string[], message: string): Promise<{ ok: boolean; error?: string }> {
  // A path that is gone is staged as removed (or ignored when git never knew it); the rest added.
  const present: string[] = [];
  const gone: string[] = [];
  for (const rel of rels) ((await stat(path.join(root, rel)).catch(() => undefined)) ? present : gone).push(rel);
  if (present.length) {
    const add = await git(['add', '--all', '--', ...present], root);
    if (add.code !== 0) return { ok: false, error: add.stderr.trim() };
  }
  if (gone.length) {
    const rm = await git(['rm', '--cached', '--quiet', '--ignore-unmatch', '-r', '--', ...gone], root);
    if (rm.code !== 0) return { ok: false, error: rm.stderr.trim() };
  }
  const staged = await git(['diff', '--cached', '--quiet'], root);
  if (staged.code === 0) return { ok: true };
  const who = (await hasIdentity(git, root)) ? [] : IDENTITY;
  const r = await git([...who, 'commit', '--quiet', '--no-verify', '-m', message], root);
  return r.code === 0 ? { ok: true } : { ok: false, error: r.stderr.trim() || `exit ${r.code}` };
}
