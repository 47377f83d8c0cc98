/**
 * Finds every git repository inside the writable roots, so the sandbox can keep each one's `config`
 * and `hooks` read-only: both name programs git runs later (core.fsmonitor, core.hooksPath,
 * core.pager, filters, hooks), outside any sandbox, when a person types `git status`. The rest of
 * the repository (objects, refs, index) stays writable so a command can still commit.
 *
 * The walk runs before every sandboxed command (mounts are fixed when the sandbox starts) and again
 * after it (to report repositories the command created). It never follows symlinks, does not enter
 * dependency and cache folders (SKIP) and stops at LIMITS.sandboxRepoScanDirs folders and
 * LIMITS.sandboxRepoScanDepth levels (docs/security.md says what that means).
 */
import { lstatSync, promises as fs, readdirSync, type BigIntStats, type Dirent } from 'node:fs';
import path from 'node:path';
import { LIMITS } from '../kernel/limits.js';

export interface RepoScan {
  /** Git directories found (`<repo>/.git`, submodule and worktree git dirs inside a root). */
  gitDirs: string[];
  /** Folders to bind onto themselves, so they cannot be renamed or removed: the git dirs. */
  pinned: string[];
  /** The paths to keep read-only: `.git` files and each git dir's config, config.worktree, hooks and commondir. */
  readOnly: string[];
  /** Missing files git would read (config.worktree), kept from being made: an empty read-only file. */
  emptyFiles: string[];
  /** Missing folders git would read (hooks), kept from being made: an empty read-only folder. */
  emptyDirs: string[];
  /** The walk hit its folder budget: repositories deeper or further on were not looked for. */
  truncated: boolean;
  /** Layouts left alone (a `.git` file or `commondir` pointing outside the roots), as sentences. */
  skipped: string[];
}

// Dependency and cache folders: package managers and tools write there, people do not run git there,
// and they are most of a project's folders (the walk runs twice per command).
const SKIP = new Set(['node_modules', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', '.gradle', '.next', '.nuxt', '.cache']);

interface Listing {
  /** The folder's identity and mtime when it was read (lstat before readdir). */
  ino: bigint;
  mtimeNs: bigint;
  /** When it was read, ms since the epoch. */
  readAt: number;
  subdirs: string[];
  gitDir?: string;
  gitFile?: string;
}

/** Folder listings from earlier walks, keyed by real path (the walk runs before and after every command). */
const cache = new Map<string, Listing>();
// A change within the file system's timestamp granularity of the read could leave the mtime as it
// was read: a folder whose mtime is this recent is read again (git's "racy" rule).
const RACY_MS = 2_000;

/**
 * One folder's subfolders and `.git`, synchronously: a walk is a few thousand lstat calls, cheaper
 * done in one go than through the thread pool. The cached listing is used when the folder is the
 * same inode with the same mtime, and that mtime was not recent when it was read: adding, removing
 * or renaming an entry (a new `.git`, a folder moved in) always moves the folder's mtime.
 */
function listing(dir: string): Listing | undefined {
  let st: BigIntStats;
  try {
    st = lstatSync(dir, { bigint: true });
  } catch {
    return undefined;
  }
  if (!st.isDirectory()) return undefined;
  const cached = cache.get(dir);
  if (cached && cached.ino === st.ino && cached.mtimeNs === st.mtimeNs && cached.readAt - Number(st.mtimeMs) > RACY_MS) return cached;
  const list: Listing = { ino: st.ino, mtimeNs: st.mtimeNs, readAt: Date.now(), subdirs: [] };
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.name === '.git') {
      if (e.isDirectory()) list.gitDir = full;
      else if (e.isFile()) list.gitFile = full;
    } else if (e.isDirectory() && !SKIP.has(e.name)) list.subdirs.push(full);
  }
  return list;
}

export async function scanRepos(roots: string[], opts: { maxDirs?: number; maxDepth?: number; log?: (line: string) => void } = {}): Promise<RepoScan> {
  const maxDirs = opts.maxDirs ?? LIMITS.sandboxRepoScanDirs;
  const maxDepth = opts.maxDepth ?? LIMITS.sandboxRepoScanDepth;
  const gitDirs = new Set<string>();
  const gitFiles: string[] = [];
  const skipped: string[] = [];
  let truncated = false;
  const realRoots = await Promise.all(roots.map((r) => fs.realpath(r).catch(() => r)));
  /**
   * A git dir named by a `.git` file or a `commondir`, as a real path, when it is a folder inside
   * the roots; anything else (outside, through a symlink, missing, not a folder) is skipped and
   * said why: the sandbox protects and writes nothing there, and git is not pointed at it.
   */
  const inside = async (target: string, from: string): Promise<string | undefined> => {
    const real = await fs.realpath(target).catch(() => undefined);
    const st = real ? await fs.stat(real).catch(() => undefined) : undefined;
    if (real && st?.isDirectory() && realRoots.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep))) return real;
    skipped.push(`${from} points at ${target}, which is ${real ? (st?.isDirectory() ? 'outside the writable roots' : 'not a folder') : 'missing'}; that repository is skipped`);
    return undefined;
  };

  // Breadth first. Each folder's listing comes from the cache when the folder's mtime says nothing
  // was added, removed or renamed in it since it was read (see `listing`).
  const queue: Array<{ dir: string; depth: number }> = roots.map((dir) => ({ dir, depth: 0 }));
  const seen = new Map<string, Listing>();
  for (let i = 0; i < queue.length; i++) {
    if (i >= maxDirs) {
      truncated = true;
      break;
    }
    const { dir, depth } = queue[i];
    const list = listing(dir);
    if (!list) continue;
    seen.set(dir, list);
    if (list.gitDir) gitDirs.add(list.gitDir);
    if (list.gitFile) {
      // A worktree or submodule: `.git` is a file pointing at the real git dir (read every time:
      // its content can change without the folder's mtime moving).
      gitFiles.push(list.gitFile);
      const target = await gitdirOf(list.gitFile);
      const real = target && (await inside(target, list.gitFile));
      if (real) gitDirs.add(real);
    }
    if (depth < maxDepth) for (const sub of list.subdirs) queue.push({ dir: sub, depth: depth + 1 });
  }
  // Keep what this walk saw under these roots; listings of folders that are gone fall out.
  for (const [dir] of cache) if (roots.some((r) => dir === r || dir.startsWith(r + path.sep)) && !seen.has(dir)) cache.delete(dir);
  for (const [dir, list] of seen) cache.set(dir, list);

  // Submodules keep their git dirs inside the parent's: `.git/modules/<name>[/modules/...]`.
  for (const dir of [...gitDirs]) await addModules(path.join(dir, 'modules'), gitDirs, 6);
  // A linked worktree's git dir shares config and hooks with the main one (its `commondir`).
  for (const dir of [...gitDirs]) {
    const common = await fs.readFile(path.join(dir, 'commondir'), 'utf8').catch(() => '');
    if (!common.trim()) continue;
    const real = await inside(path.resolve(dir, common.trim()), path.join(dir, 'commondir'));
    if (real) gitDirs.add(real);
  }
  for (const line of skipped) opts.log?.(`sandbox: ${line}`);

  // What git reads: each git dir's config, config.worktree, hooks and commondir, read-only; those
  // missing are kept from being made (an empty file, an empty read-only folder: the scan writes
  // nothing itself). The git dirs and `.git` files are pinned (bound onto themselves): a mount
  // point cannot be renamed, removed or replaced, so a `.git` cannot be moved away and copied back
  // writable, and a `.git` file cannot be pointed elsewhere.
  const readOnly: string[] = [...gitFiles];
  const emptyFiles: string[] = [];
  const emptyDirs: string[] = [];
  for (const dir of [...gitDirs].sort()) {
    for (const name of ['config', 'config.worktree', 'hooks', 'commondir']) {
      const p = path.join(dir, name);
      if (await exists(p)) readOnly.push(p);
      else if (name === 'config.worktree') emptyFiles.push(p);
      else if (name === 'hooks') emptyDirs.push(p);
    }
  }
  return { gitDirs: [...gitDirs].sort(), pinned: [...gitDirs].sort(), readOnly, emptyFiles, emptyDirs, truncated, skipped };
}

async function addModules(dir: string, found: Set<string>, depth: number): Promise<void> {
  if (depth <= 0) return;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const sub = path.join(dir, e.name);
    // A git dir has HEAD; anything else is a folder of a nested submodule name (`a/b`).
    if (await exists(path.join(sub, 'HEAD'))) {
      found.add(sub);
      await addModules(path.join(sub, 'modules'), found, depth - 1);
    } else await addModules(sub, found, depth - 1);
  }
}

async function gitdirOf(file: string): Promise<string | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const m = /^gitdir:\s*(.+)$/m.exec(text);
  return m ? path.resolve(path.dirname(file), m[1].trim()) : undefined;
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}
