/**
 * `git status --porcelain=v2 -z` parsed into entries, and the explorer's one map of statuses.
 * Never parsed from human output: v2 has fixed fields, and -z keeps every byte of a path.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { firstLine } from './exec.js';
import { findRepos, inRepo, resolveTarget, toVirtual, type RepoContext, type RepoTarget } from './repo.js';
import type { GitStatus, StatusEntry } from './types.js';

export const STATUS_ARGS = ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'];

export interface ParsedStatus {
  branch: { head: string | null; oid: string | null; upstream: string | null; ahead: number; behind: number };
  /** Raw records: kind (1, 2, u, ?, !), XY, repository-relative path and original path, submodule flag. */
  records: Array<{ kind: string; xy: string; path: string; oldPath?: string; submodule: boolean }>;
}

/** Parses porcelain v2 with -z. Fields are split on single spaces up to the path, which may hold spaces. */
export function parsePorcelainV2(out: string): ParsedStatus {
  const branch: ParsedStatus['branch'] = { head: null, oid: null, upstream: null, ahead: 0, behind: 0 };
  const records: ParsedStatus['records'] = [];
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (!f) continue;
    if (f.startsWith('# ')) {
      const [key, ...rest] = f.slice(2).split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') branch.oid = value === '(initial)' ? null : value;
      else if (key === 'branch.head') branch.head = value === '(detached)' ? null : value;
      else if (key === 'branch.upstream') branch.upstream = value;
      else if (key === 'branch.ab') {
        const m = /^\+(\d+) -(\d+)$/.exec(value);
        if (m) [branch.ahead, branch.behind] = [Number(m[1]), Number(m[2])];
      }
      continue;
    }
    const kind = f[0];
    if (kind === '?' || kind === '!') {
      records.push({ kind, xy: kind + kind, path: f.slice(2), submodule: false });
      continue;
    }
    const counts: Record<string, number> = { '1': 8, '2': 9, u: 10 };
    const n = counts[kind];
    if (n === undefined) continue;
    const parts = splitN(f, n);
    const rec = { kind, xy: parts[1], path: parts[n], submodule: parts[2].startsWith('S') } as ParsedStatus['records'][number];
    if (kind === '2') rec.oldPath = fields[++i];
    records.push(rec);
  }
  return { branch, records };
}

/** The first `n` space-separated fields and the rest (the path) as field `n`. */
function splitN(line: string, n: number): string[] {
  const parts: string[] = [];
  let at = 0;
  for (let k = 0; k < n; k++) {
    const sp = line.indexOf(' ', at);
    parts.push(line.slice(at, sp));
    at = sp + 1;
  }
  parts.push(line.slice(at));
  return parts;
}

export async function status(ctx: RepoContext, rootParam: string | undefined): Promise<GitStatus> {
  const target = await resolveTarget(ctx, rootParam);
  const result = await inRepo(ctx, target, STATUS_ARGS);
  if (result.code !== 0) throw new EngineError(500, `git status failed in "${target.name}": ${firstLine(result.stderr)}`);
  return toStatus(ctx, target, parsePorcelainV2(result.stdout.toString('utf8')));
}

export function toStatus(ctx: RepoContext, target: RepoTarget, parsed: ParsedStatus): GitStatus {
  const out: GitStatus = {
    root: target.name,
    branch: parsed.branch.head,
    detached: parsed.branch.head === null && parsed.branch.oid !== null,
    head: parsed.branch.oid,
    upstream: parsed.branch.upstream,
    ahead: parsed.branch.ahead,
    behind: parsed.branch.behind,
    staged: [],
    unstaged: [],
    untracked: [],
    conflicted: [],
    clean: true,
    operation: operationInProgress(target.dir),
  };
  for (const rec of parsed.records) {
    if (rec.kind === '!') continue;
    const p = toVirtual(ctx, target, rec.path);
    if (p === undefined) continue;
    const entry = (letter: string): StatusEntry => {
      const e: StatusEntry = { path: p, status: letter };
      const old = rec.oldPath !== undefined && (letter === 'R' || letter === 'C') ? toVirtual(ctx, target, rec.oldPath) : undefined;
      if (old !== undefined) e.oldPath = old;
      if (rec.submodule) e.submodule = true;
      return e;
    };
    if (rec.kind === '?') out.untracked.push(entry('?'));
    else if (rec.kind === 'u') out.conflicted.push({ ...entry('U'), conflict: rec.xy });
    else {
      if (rec.xy[0] !== '.') out.staged.push(entry(rec.xy[0]));
      // A rename lives in the index; the work tree side of the same record carries its own letter.
      if (rec.xy[1] !== '.') out.unstaged.push(entry(rec.xy[1]));
    }
  }
  out.clean = !out.staged.length && !out.unstaged.length && !out.untracked.length && !out.conflicted.length;
  return out;
}

/** The operation a repository is in the middle of, read from the marker files git leaves in its git dir. */
function operationInProgress(dir: string): string | null {
  let gitDir = path.join(dir, '.git');
  try {
    if (statSync(gitDir).isFile()) {
      const m = /^gitdir: (.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (!m) return null;
      gitDir = path.resolve(dir, m[1].trim());
    }
  } catch {
    return null;
  }
  const markers: Array<[string, string]> = [
    ['MERGE_HEAD', 'merge'],
    ['rebase-merge', 'rebase'],
    ['rebase-apply', 'rebase'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
    ['BISECT_LOG', 'bisect'],
  ];
  for (const [file, op] of markers) if (existsSync(path.join(gitDir, file))) return op;
  return null;
}

/** The one-letter code the explorer shows: a conflict wins, then the work tree side, then the index. */
function letterOf(rec: ParsedStatus['records'][number]): string {
  if (rec.kind === 'u') return 'U';
  if (rec.kind === '?') return '?';
  return rec.xy[1] !== '.' ? rec.xy[1] : rec.xy[0];
}

/** One map virtual path -> letter over every repository of every root (or of one root), nested ones included. */
export async function treeStatus(ctx: RepoContext, rootName?: string): Promise<{ entries: Record<string, string>; repos: string[]; truncated: boolean }> {
  if (rootName) ctx.fence.root(rootName); // an unknown root is a 404 sentence, not an empty map
  const repos = (await findRepos(ctx)).filter((r) => !rootName || r.rootName === rootName);
  const entries: Record<string, string> = {};
  let count = 0;
  let truncated = false;
  // Deeper repositories last, so a nested repository's own statuses win over its parent's view of it.
  repos.sort((a, b) => a.path.length - b.path.length);
  for (const repo of repos) {
    const target = await resolveTarget(ctx, repo.root);
    const result = await inRepo(ctx, target, STATUS_ARGS).catch(() => undefined);
    if (!result || result.code !== 0) continue;
    for (const rec of parsePorcelainV2(result.stdout.toString('utf8')).records) {
      if (rec.kind === '!') continue;
      const p = toVirtual(ctx, target, rec.path);
      if (p === undefined) continue;
      if (!(p in entries) && ++count > LIMITS.gitTreeStatusEntries) {
        truncated = true;
        break;
      }
      entries[p] = letterOf(rec);
    }
  }
  return { entries, repos: repos.map((r) => r.path), truncated };
}
