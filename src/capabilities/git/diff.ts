/**
 * Diffs of the user's repositories: raw (`?staged=1`), contextual (what a review surface shows) and
 * per file. Diff headers carry virtual paths (`a/docs/x.md` in mount docs). A diff past the size
 * bound keeps whole files and lists the rest with their line counts; binary files are git's own
 * one-line summary, listed in `binary`.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { badRequest, EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { firstLine, lit, nulFields, type GitResult } from './exec.js';
import { homeExcludeSpec, inRepo, resolveTarget, toRepoPath, type RepoContext, type RepoTarget } from './repo.js';
import type { DiffAnswer } from './types.js';

/** The flags every patch gets, whatever the user's diff configuration says. */
export const PATCH_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M', '--submodule=short'];

/** Runs a patch and its numstat side by side and bounds the answer (see the file comment). */
export async function boundedDiff(
  run: (args: string[], maxBytes?: number) => Promise<GitResult>,
  prefix: string,
  maxBytes: number = LIMITS.gitDiffBytes,
): Promise<DiffAnswer> {
  const [patch, numstat] = await Promise.all([
    run(['-p', ...PATCH_FLAGS, `--src-prefix=a/${prefix}`, `--dst-prefix=b/${prefix}`], maxBytes + 1),
    run(['--numstat', '-z', '-M', '--no-ext-diff', '--no-textconv', '--submodule=short']),
  ]);
  for (const r of [patch, numstat]) {
    if (r.code !== 0 && r.code !== 1 && !r.truncated) throw new EngineError(500, `git diff failed: ${firstLine(r.stderr)}`);
  }
  const files = parseNumstat(numstat.stdout, prefix);
  const answer: DiffAnswer = { diff: patch.stdout.toString('utf8') };
  const binary = files.filter((f) => f.added === null).map((f) => f.path);
  if (binary.length) answer.binary = binary;
  if (!patch.truncated) return answer;
  // Keep the whole files that fit; list the others.
  const sections = splitSections(answer.diff);
  sections.pop(); // the last section was cut mid-way
  answer.diff = sections.join('');
  const omitted = files.slice(sections.length);
  answer.omitted = omitted;
  const bytes = Math.round(maxBytes / 1024 / 1024);
  answer.note = `the diff is larger than ${bytes} MB: ${omitted.length} of ${files.length} files are left out (listed in "omitted" with their line counts); ask for them one at a time with GET /api/git/file-diff?path=`;
  return answer;
}

/** `git diff --numstat -z`: `added\tdeleted\tpath\0`, or `added\tdeleted\t\0old\0new\0` for a rename; `-` counts for binary. */
export function parseNumstat(buf: Buffer, prefix: string): NonNullable<DiffAnswer['omitted']> {
  const fields = nulFields(buf);
  const out: NonNullable<DiffAnswer['omitted']> = [];
  for (let i = 0; i < fields.length; i++) {
    const [a, d, p] = fields[i].split('\t');
    if (d === undefined) continue;
    let file = p;
    if (p === '') {
      i += 2; // rename: old, new
      file = fields[i];
    }
    out.push({ path: prefix + file, added: a === '-' ? null : Number(a), deleted: d === '-' ? null : Number(d) });
  }
  return out;
}

/** A patch split at each `diff --git` header, each section whole. */
export function splitSections(diff: string): string[] {
  const sections: string[] = [];
  let start = 0;
  for (let at = diff.indexOf('\ndiff --git '); at !== -1; at = diff.indexOf('\ndiff --git ', at + 1)) {
    sections.push(diff.slice(start, at + 1));
    start = at + 1;
  }
  if (diff.length > start) sections.push(diff.slice(start));
  return sections.filter((s) => s.startsWith('diff --git '));
}

export type WorkMode = 'auto' | 'staged' | 'unstaged' | 'head';
export const WORK_MODES: WorkMode[] = ['auto', 'staged', 'unstaged', 'head'];

/** Pathspecs limiting a diff: the given repository paths, and never the engine home when a mount holds it. */
function pathspecs(ctx: RepoContext, target: RepoTarget, paths?: string[]): string[] {
  const specs = paths?.length ? paths.map(lit) : [];
  const home = homeExcludeSpec(ctx, target);
  if (home.length && !specs.length) specs.push('.'); // an exclude alone would match nothing
  specs.push(...home);
  return specs.length ? ['--', ...specs] : [];
}

/** True when the index differs from HEAD (something is staged). */
async function hasStaged(ctx: RepoContext, target: RepoTarget, paths?: string[]): Promise<boolean> {
  const r = await inRepo(ctx, target, ['diff', '--cached', '--quiet', '--no-ext-diff', ...pathspecs(ctx, target, paths)]);
  return r.code === 1;
}

/**
 * The diff of one repository. `staged`: index vs HEAD; `unstaged`: work tree vs index; `head`: work
 * tree vs HEAD with untracked files shown as additions; `auto`: `staged` when anything is staged,
 * else `head`.
 */
export async function workDiff(ctx: RepoContext, target: RepoTarget, mode: WorkMode, paths?: string[]): Promise<DiffAnswer & { mode: WorkMode }> {
  if (mode === 'auto') mode = (await hasStaged(ctx, target, paths)) ? 'staged' : 'head';
  const specs = pathspecs(ctx, target, paths);
  if (mode === 'staged' || mode === 'unstaged') {
    const base = mode === 'staged' ? ['diff', '--cached'] : ['diff'];
    const answer = await boundedDiff((args, maxBytes) => inRepo(ctx, target, [...base, ...args, ...specs], { maxBytes }), target.prefix);
    return { mode, ...answer };
  }
  return { mode, ...(await headDiff(ctx, target, specs)) };
}

/**
 * Work tree vs HEAD, untracked files included as additions. The untracked files are marked
 * intent-to-add in a copy of the index (GIT_INDEX_FILE), so the user's own index is never written.
 */
async function headDiff(ctx: RepoContext, target: RepoTarget, specs: string[]): Promise<DiffAnswer> {
  const [head, indexPath, untracked] = await Promise.all([
    inRepo(ctx, target, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']),
    inRepo(ctx, target, ['rev-parse', '--path-format=absolute', '--git-path', 'index']),
    inRepo(ctx, target, ['ls-files', '-z', '--others', '--exclude-standard', ...specs]),
  ]);
  const base = head.code === 0 ? head.stdout.toString('utf8').trim() : await emptyTree(ctx, target);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'engine-git-'));
  try {
    const index = path.join(tmp, 'index');
    await copyFile(indexPath.stdout.toString('utf8').trim(), index).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err; // no index yet: an empty one is created by add
    });
    const env = { GIT_INDEX_FILE: index };
    const files = nulFields(untracked.stdout).filter((p) => !(target.root.kind === 'mount' && ctx.fence.insideProtected(path.join(target.dir, p))));
    if (files.length) {
      // A split-index setting would write a shared index into the user's .git: the copy is written whole.
      const added = await inRepo(ctx, target, ['-c', 'core.splitIndex=false', 'add', '--intent-to-add', '--pathspec-from-file=-', '--pathspec-file-nul'], { env, input: files.map(lit).join('\0') + '\0' });
      if (added.code !== 0) throw new EngineError(500, `git could not list the untracked files of "${target.name}": ${firstLine(added.stderr)}`);
    }
    return await boundedDiff((args, maxBytes) => inRepo(ctx, target, ['diff', base, ...args, ...specs], { env, maxBytes }), target.prefix);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function emptyTree(ctx: RepoContext, target: RepoTarget): Promise<string> {
  const r = await inRepo(ctx, target, ['hash-object', '-t', 'tree', '--stdin'], { input: '' });
  return r.stdout.toString('utf8').trim();
}

export function parseWorkMode(mode: string | undefined): WorkMode {
  const m = (mode ?? 'auto') as WorkMode;
  if (!WORK_MODES.includes(m)) throw badRequest(`mode "${mode}" is not known; use auto, staged, unstaged or head (or run with runId=, checkpoint with sha=)`);
  return m;
}

/** GET /api/git/diff: the raw diff of the work tree against the index, or of the index with `staged`. */
export async function rawDiff(ctx: RepoContext, rootParam: string | undefined, staged: boolean): Promise<DiffAnswer> {
  const target = await resolveTarget(ctx, rootParam);
  const { mode: _mode, ...answer } = await workDiff(ctx, target, staged ? 'staged' : 'unstaged');
  return answer;
}

/** One file's diff; `oldPath` brings the other side of a rename into the same diff. */
export async function fileDiff(ctx: RepoContext, target: RepoTarget, virtual: string, oldVirtual: string | undefined, mode: WorkMode) {
  const paths = [await toRepoPath(ctx, target, virtual)];
  if (oldVirtual) paths.push(await toRepoPath(ctx, target, oldVirtual));
  return workDiff(ctx, target, mode, paths);
}
