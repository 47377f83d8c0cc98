/** Real repositories for the git tests: made with the real git, with a test identity in a temp HOME. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Points HOME at a temp folder holding a .gitconfig with a test identity (or none), so neither the
 * tests' own git calls nor the engine's read the developer's configuration.
 */
export async function isolateGitHome(identity = true): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'git-home-'));
  if (identity) writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Test Person\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n');
  process.env.HOME = home;
  delete process.env.XDG_CONFIG_HOME;
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  return home;
}

/** Runs git in `cwd` and returns stdout (throws on failure). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(cwd) }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function gitBuf(cwd: string, ...args: string[]): Buffer {
  return execFileSync('git', args, { cwd, env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(cwd) }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes files (relative path -> content), creating folders. */
export function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

/** A repository at `dir` with `files` committed on branch main. */
export function makeRepo(dir: string, files: Record<string, string | Buffer>): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  write(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
}
