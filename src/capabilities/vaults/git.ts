/**
 * A vault made with `git: true` is a repository, and every write the engine makes there is a commit
 * (real git, spawned with argument arrays, never a shell). Commits carry an engine identity only
 * when the repository has none of its own, so a person's configured name still wins.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';

const IDENTITY = ['-c', 'user.name=Workbench Engine', '-c', 'user.email=engine@localhost'];
/**
 * No hooks and no fsmonitor program, as src/capabilities/git/exec.ts does: a vault's `.git` can lie
 * inside the fence, and `--no-verify` skips only pre-commit and commit-msg (post-commit would run).
 */
const NO_PROGRAMS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

function git(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', [...NO_PROGRAMS, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', (e) => resolve({ code: -1, out, err: e.message }));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

/** `git init` unless the folder is a repository already; true when it made one. */
export async function ensureRepo(root: string): Promise<boolean> {
  if (await stat(path.join(root, '.git')).catch(() => undefined)) return false;
  const r = await git(root, ['init', '--quiet']);
  if (r.code !== 0) throw new Error(`git init failed in ${root}: ${r.err.trim() || `exit ${r.code}`}`);
  return true;
}

async function hasIdentity(root: string): Promise<boolean> {
  const r = await git(root, ['config', 'user.email']);
  return r.code === 0 && r.out.trim() !== '';
}

/** Stages `rels` (added, changed or removed) and commits them; nothing staged is no commit. */
export async function commit(root: string, rels: string[], message: string): Promise<{ ok: boolean; error?: string }> {
  // A path that is gone is staged as removed (or ignored when git never knew it); the rest added.
  const present: string[] = [];
  const gone: string[] = [];
  for (const rel of rels) ((await stat(path.join(root, rel)).catch(() => undefined)) ? present : gone).push(rel);
  if (present.length) {
    const add = await git(root, ['add', '--all', '--', ...present]);
    if (add.code !== 0) return { ok: false, error: add.err.trim() };
  }
  if (gone.length) {
    const rm = await git(root, ['rm', '--cached', '--quiet', '--ignore-unmatch', '-r', '--', ...gone]);
    if (rm.code !== 0) return { ok: false, error: rm.err.trim() };
  }
  const staged = await git(root, ['diff', '--cached', '--quiet']);
  if (staged.code === 0) return { ok: true };
  const who = (await hasIdentity(root)) ? [] : IDENTITY;
  const r = await git(root, [...who, 'commit', '--quiet', '--no-verify', '-m', message]);
  return r.code === 0 ? { ok: true } : { ok: false, error: r.err.trim() || `exit ${r.code}` };
}
