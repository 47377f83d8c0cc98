/**
 * Symlink-safe folder walks. None of them follows a symlinked folder; the listing and glob walks
 * include a symlinked file only when its target lies inside a root; the ignore walk lists links only
 * when asked, for a caller that reads each name through the fenced reader (src/kernel/fenced-read.ts),
 * which judges where it leads. A walk lists names: it reads no file but the ignore files, and those
 * never through a link. Entries are visited in sorted order so results are stable page after page.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { readOwnFile } from '../../kernel/fenced-read.js';
import { IGNORE_FILES, judge, parseIgnore, type IgnoreLevel, type Overrides } from './ignore.js';

/** Folders glob (and the file listing) skip unless the pattern names them. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', 'dist', 'build', '.next', 'coverage']);

export const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Compares `/`-separated paths segment by segment (the order a sorted depth-first walk yields). */
export function comparePaths(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort(byName);
  } catch {
    return [];
  }
}

/** Whether a symlink's target lies inside one of `inside` (real root paths). */
export async function linkInside(abs: string, inside: (real: string) => boolean): Promise<{ ok: boolean; isDir: boolean }> {
  try {
    const real = await realpath(abs);
    if (!inside(real)) return { ok: false, isDir: false };
    return { ok: true, isDir: (await lstat(real)).isDirectory() };
  } catch {
    return { ok: false, isDir: false };
  }
}

export interface SkipWalkOptions {
  /** Whether to descend into a folder (rel to the start, its name, its absolute path). */
  enter: (rel: string, name: string, abs: string) => boolean;
  /** Called per file in sorted order; return false to stop the walk. */
  file: (rel: string, abs: string) => boolean | void | Promise<boolean | void>;
  inside: (real: string) => boolean;
  signal?: AbortSignal;
}

/** A sorted depth-first walk that never follows symlinked folders. */
export async function walkSorted(start: string, opts: SkipWalkOptions): Promise<void> {
  const visit = async (dir: string, relDir: string): Promise<boolean> => {
    for (const e of await entries(dir)) {
      if (opts.signal?.aborted) return false;
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (opts.enter(rel, e.name, abs) && !(await visit(abs, rel))) return false;
      } else if (e.isFile()) {
        if ((await opts.file(rel, abs)) === false) return false;
      } else if (e.isSymbolicLink()) {
        const link = await linkInside(abs, opts.inside);
        if (link.ok && !link.isDir && (await opts.file(rel, abs)) === false) return false;
      }
    }
    return true;
  };
  await visit(start, '');
}

export interface IgnoreWalkOptions {
  overrides: Overrides;
  /** Folders from the root down to (not including) the start, whose ignore files also apply. */
  ancestors?: string[];
  /** Real paths never entered or searched. */
  skip?: (abs: string) => boolean;
  /** Also list symlinks (never entered) as files: for a caller that reads each through the fenced reader. */
  links?: boolean;
  /** Called per file in sorted order; return false to stop. */
  file: (rel: string, abs: string) => boolean | void | Promise<boolean | void>;
  signal?: AbortSignal;
}

/** The rules of each ignore file in `dir`, in IGNORE_FILES order; only names in `present` are read when it is given. */
const ignoreFamilies = (dir: string, present?: ReadonlySet<string>) =>
  Promise.all(IGNORE_FILES.map(async (f) => (present && !present.has(f) ? [] : parseIgnore((await readOwnFile(path.join(dir, f)))?.toString('utf8') ?? ''))));

/** The ripgrep-compatible walk: ignore files, overrides, hidden entries; symlinks are never followed. */
export async function walkIgnoring(start: string, opts: IgnoreWalkOptions): Promise<void> {
  const above: IgnoreLevel[] = [];
  for (const dir of opts.ancestors ?? []) {
    const families = await ignoreFamilies(dir);
    if (families.some((r) => r.length)) above.push({ base: '', up: path.relative(dir, start).split(path.sep).join('/'), families });
  }
  const visit = async (dir: string, relDir: string, parents: IgnoreLevel[]): Promise<boolean> => {
    const list = await entries(dir);
    const names = new Set(list.map((e) => e.name));
    let levels = parents;
    if (IGNORE_FILES.some((f) => names.has(f))) {
      levels = [...parents, { base: relDir, families: await ignoreFamilies(dir, names) }];
    }
    for (const e of list) {
      if (opts.signal?.aborted) return false;
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      if (opts.skip?.(path.join(dir, e.name))) continue;
      if (e.isDirectory()) {
        if (judge(levels, opts.overrides, rel, e.name, true) && !(await visit(path.join(dir, e.name), rel, levels))) return false;
      } else if (e.isFile() || (opts.links && e.isSymbolicLink())) {
        if (judge(levels, opts.overrides, rel, e.name, false) && (await opts.file(rel, path.join(dir, e.name))) === false) return false;
      }
    }
    return true;
  };
  await visit(start, '', above);
}
