/**
 * Which repository a git route acts on. `?root=` names a root (`workspace` or a mount) or the
 * virtual folder of a nested repository (as GET /api/git/repos lists it); either way it resolves
 * through the fence, and git may not walk up out of that folder (its parent is a ceiling), so a
 * route never reads a repository whose files lie outside the fence.
 */
import { realpathSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { EngineError, notFound } from '../../kernel/errors.js';
import type { Fence, Root } from '../../kernel/fence.js';
import { LIMITS } from '../../kernel/limits.js';
import { firstLine, git, type GitConfine, type GitOptions, type GitResult } from './exec.js';
import type { RepoInfo } from './types.js';

export interface RepoTarget {
  /** The `?root=` value as given (`workspace`, a mount name, or a nested repository's folder). */
  name: string;
  root: Root;
  /** The repository's folder (real, absolute). */
  dir: string;
  /** Prepended to a repository-relative path to make its virtual path ('' in the workspace, `docs/` in mount docs). */
  prefix: string;
}

export interface RepoContext {
  fence: Fence;
  /** The engine home: a ceiling for every command. */
  home: string;
  /** Runs git inside the sandbox when one is active (exec.ts `GitConfine`). */
  confine?: GitConfine;
}

export async function resolveTarget(ctx: RepoContext, rootParam: string | undefined): Promise<RepoTarget> {
  const name = rootParam?.trim() || 'workspace';
  const mount = name === 'workspace' || ctx.fence.roots().some((r) => r.name === name);
  if (mount) {
    const root = ctx.fence.root(name);
    return { name, root, dir: root.path, prefix: root.kind === 'workspace' ? '' : `${root.name}/` };
  }
  const resolved = await ctx.fence.resolve(name).catch((err) => {
    if (name.includes('/')) throw err;
    return undefined;
  });
  const st = resolved && (await stat(resolved.real).catch(() => undefined));
  if (!resolved || !st?.isDirectory()) {
    throw notFound(`no mounted folder or repository folder is named "${name}"; GET /api/git/repos lists the repositories and their ?root= values`);
  }
  return { name, root: resolved.root, dir: resolved.real, prefix: `${resolved.virtual}/` };
}

/** Runs git inside the target repository; a folder that is not a repository's top is a 404 sentence. */
export async function inRepo(ctx: RepoContext, target: RepoTarget, args: string[], opts: Partial<GitOptions> = {}): Promise<GitResult> {
  // Every root stays writable: a worktree's or submodule's git dir may lie elsewhere in them.
  const writable = ctx.fence.roots().map((r) => r.path);
  const result = await git(args, { ...opts, cwd: target.dir, ceilings: ceilingsFor(ctx, target.dir), confine: ctx.confine, writable });
  if (result.code === 128 && /not a git repository/i.test(result.stderr)) throw notARepo(target);
  if (result.code === -1 && !result.truncated) throw new EngineError(500, `git ${args[0]} did not finish in time in "${target.name}"`);
  return result;
}

/**
 * Refuses to write through a repository whose git dir, common dir or object store lies outside the
 * roots (a `.git` file, a `commondir` or a symlinked `objects` a command planted): the engine writes
 * only inside the fence. `objects/info/alternates` are only ever read, so they may point anywhere.
 */
export async function assertWritableRepo(ctx: RepoContext, target: RepoTarget): Promise<void> {
  const r = await inRepo(ctx, target, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir', '--git-path', 'objects']);
  if (r.code !== 0) throw new EngineError(500, `git could not tell where "${target.name}" keeps its repository: ${firstLine(r.stderr)}`);
  const roots = ctx.fence.roots().map((root) => realOr(root.path));
  for (const dir of r.stdout.toString('utf8').split('\n').filter(Boolean)) {
    const real = realOr(dir);
    if (!roots.some((root) => real === root || real.startsWith(root + path.sep))) {
      throw new EngineError(409, `"${target.name}" keeps its repository data in ${real}, outside the workspace and mounts (a .git file, commondir or symlink points there); the engine writes only inside them, so commit there from a terminal`);
    }
  }
}

export function ceilingsFor(ctx: RepoContext, dir: string): string[] {
  const parent = path.dirname(dir);
  return parent === dir ? [ctx.home] : [ctx.home, parent];
}

export const notARepo = (target: RepoTarget) =>
  notFound(`"${target.name}" is not a git repository (no .git in ${target.prefix || 'the workspace root'}); run git init there, or pick a root from GET /api/git/repos`);

/** The virtual path of a repository-relative path, or undefined when it lies in the engine home (a mount holding the home). */
export function toVirtual(ctx: RepoContext, target: RepoTarget, rel: string): string | undefined {
  if (target.root.kind === 'mount' && ctx.fence.insideProtected(path.join(target.dir, rel))) return undefined;
  return target.prefix + rel;
}

/** The pathspec that keeps the engine home out of a command in a mount holding it (else nothing). */
export function homeExcludeSpec(ctx: RepoContext, target: RepoTarget): string[] {
  const rel = path.relative(target.dir, ctx.home);
  if (target.root.kind !== 'mount' || !rel || rel.startsWith('..') || path.isAbsolute(rel)) return [];
  return [`:(exclude,literal)${rel.split(path.sep).join('/')}`];
}

/** A virtual path (as a client sends it) as a path relative to the target repository, fenced. */
export async function toRepoPath(ctx: RepoContext, target: RepoTarget, virtual: string): Promise<string> {
  const resolved = await ctx.fence.resolve(virtual);
  const rel = path.relative(target.dir, resolved.real);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new EngineError(400, `"${virtual}" is not inside repository "${target.name}"; send a path under ${target.prefix || 'the workspace'} or pick the matching ?root=`);
  }
  return rel.split(path.sep).join('/');
}

/** Every repository across the roots, nested ones included: a folder holding `.git` (a folder or a worktree's file). */
export async function findRepos(ctx: RepoContext): Promise<RepoInfo[]> {
  const found: RepoInfo[] = [];
  for (const root of ctx.fence.roots()) {
    let scanned = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      if (scanned++ > LIMITS.gitRepoScanDirs || ctx.fence.isProtected(dir)) return;
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      if (entries.some((e) => e.name === '.git' && (e.isDirectory() || e.isFile()))) {
        const rel = path.relative(root.path, dir).split(path.sep).join('/');
        const virtual = root.kind === 'workspace' ? rel : rel ? `${root.name}/${rel}` : root.name;
        found.push({ root: rel ? virtual : root.name, rootName: root.name, path: virtual, nested: rel !== '' });
      }
      if (depth >= LIMITS.gitRepoScanDepth) return;
      for (const e of entries) {
        if (!e.isDirectory() || e.name === '.git' || e.name === 'node_modules') continue;
        // A workspace folder hidden by a mount of the same name is not reachable; the mount is walked on its own.
        if (root.kind === 'workspace' && dir === root.path && ctx.fence.roots().some((r) => r.kind === 'mount' && r.name === e.name)) continue;
        await walk(path.join(dir, e.name), depth + 1);
      }
    };
    await walk(root.path, 0);
  }
  return found;
}

/** The real path of `p` (symlinks resolved), or `p` itself when it does not exist (yet). */
export function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
