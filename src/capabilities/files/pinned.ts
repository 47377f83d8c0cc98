/**
 * Operating on what the fence checked. The fence resolves a path to a canonical, symlink-free
 * location; between that check and the operation another process can swap a folder or link on the
 * way for a symlink to somewhere else. So every operation opens what it acts on without following a
 * last symlink, proves the opened folder or file is the one that was checked, and then works
 * relative to that open folder:
 *
 * - Linux: the kernel says where a descriptor is (`/proc/self/fd/N`), and `/proc/self/fd/N/name`
 *   names `name` inside that very folder (the `openat` Node lacks), so no later swap of any parent
 *   can redirect a read, a temp file, a rename, a copy or a delete.
 * - Elsewhere: the opened descriptor must be the same inode as a fresh resolution of the checked
 *   path, and the folder is proven again right before each change; a swap can still land in the
 *   short window between that proof and the call (documented in docs/security.md).
 */
import { randomBytes } from 'node:crypto';
import { close, closeSync, constants, fchmodSync, fsync, open, readlinkSync, write } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { EngineError, conflict, forbidden, notFound } from '../../kernel/errors.js';
import { pinning, READ_FLAGS } from '../../kernel/fenced-read.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, COPYFILE_EXCL } = constants;
/** Opening a folder, never through a last symlink. */
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
// Whether the kernel pins (Linux) and how a file is opened to read are the fenced reader's (src/kernel/fenced-read.ts),
// which also does every read: what is here creates, renames, copies and removes.

/** What decides whether a location may be acted on (the fence). */
export interface Allows {
  allows(real: string): boolean;
}

// Raw descriptors where a FileHandle's bookkeeping is not needed: the write path is hot (bench/files-write).
const openFd = promisify(open);
const writeFd = promisify(write);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** An open folder, proven to be the checked one: a FileHandle, or (quickDir, Linux) a raw descriptor. */
export class PinnedDir {
  constructor(
    readonly handle: FileHandle | undefined,
    /** The canonical location it was proven to have. */
    readonly path: string,
    private readonly rawFd = -1,
    /** A held folder (quickDir) is given back, not closed. */
    private readonly release?: () => void,
  ) {}

  private get fd(): number {
    return this.handle ? this.handle.fd : this.rawFd;
  }

  /** The folder itself as a path that cannot be redirected (Linux) or its checked path. */
  self(): string {
    return pinning.proc ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /** `name` inside this very folder. */
  at(name: string): string {
    return pinning.proc ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.path, name);
  }

  async close(): Promise<void> {
    if (this.release) return this.release();
    if (!this.handle) return closeSync(this.rawFd); // a folder's close writes nothing: no thread-pool round trip
    await this.handle.close().catch(() => undefined);
  }
}

/** Where an open descriptor is: the kernel's answer on Linux, else `expected` when it still names the same inode. */
async function locationOf(handle: FileHandle, expected: string): Promise<string | undefined> {
  try {
    // A /proc readlink is answered from the kernel's own tables, no disk: synchronous, no round trip.
    if (pinning.proc) return readlinkSync(`/proc/self/fd/${handle.fd}`);
    const [opened, now, real] = await Promise.all([handle.stat(), fs.stat(expected), fs.realpath(expected)]);
    return opened.dev === now.dev && opened.ino === now.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

interface Held {
  fd: number;
  users: number;
  idleSince: number;
  /** Proven elsewhere since: closed by its last user. */
  stale: boolean;
}

/** Read once: the engine never changes its umask, and reading it per write would cost a syscall. */
const UMASK = process.umask();
/** A temp file is created private, then given its mode before any byte is written (see writeAtomic). */
const TEMP_MODE = 0o600;

/**
 * How long quickDir keeps a folder open after its last use. An editor saving again, or writers in
 * the same folder, reuse the descriptor after proving it again (a /proc readlink from the kernel's
 * tables, no I/O) instead of a thread-pool round trip to open it and a close. Short, so a mount's
 * folder is not held busy for long after the last write into it.
 */
const HOLD_MS = 2000;
/** At most this many folders held at once; past it, the idle ones are closed. */
const HOLD_MAX = 32;

const code = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

export function createPins(fence: Allows) {
  /** The disk changed between the check and the open: 403 when it now leads outside, else 409. */
  const moved = (shown: string, where: string | undefined) =>
    where !== undefined && !fence.allows(where)
      ? forbidden(`"${shown}" changed on disk while it was being opened and now leads outside the workspace and mounts (a symlink on its path was swapped); refused, nothing was touched`)
      : conflict(`"${shown}" changed on disk while it was being opened (a folder or symlink on its path was replaced); nothing was touched, try again`);

  /** Proves `handle` is at `expected`, closing it and throwing otherwise. */
  async function prove(handle: FileHandle, expected: string, shown: string): Promise<void> {
    const where = await locationOf(handle, expected);
    if (where === expected) return;
    await handle.close().catch(() => undefined);
    throw moved(shown, where);
  }

  /**
   * Turns an open's errno into a sentence: ELOOP, or ENOTDIR on a name that is now a symlink, means
   * a link replaced what was checked (which was free of them). Any other ENOTDIR (a file where a
   * folder was named) is passed on for the caller's sentence, unless the entry was just seen as a
   * folder (`wasDir`): then a file replaced it.
   */
  async function openFailed(err: unknown, shown: string, at: string, wasDir = false): Promise<never> {
    if (err instanceof EngineError) throw err;
    const c = code(err);
    if (c === 'ENOENT') throw notFound(`"${shown}" does not exist`);
    if (c === 'ELOOP' || c === 'EMLINK') throw moved(shown, undefined);
    if (c === 'ENOTDIR' && (wasDir || (await fs.lstat(at).then((st) => st.isSymbolicLink(), () => false)))) throw moved(shown, undefined);
    throw err;
  }

  /** Opens `at`, never through a last symlink, and proves (when asked) that it is `expected`. */
  async function openAt(at: string, flags: number, expected: string, shown: string, opts: { prove: boolean; wasDir?: boolean }): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await fs.open(at, flags);
    } catch (err) {
      return openFailed(err, shown, at, opts.wasDir);
    }
    if (opts.prove) await prove(handle, expected, shown);
    return handle;
  }

  /** Opens the existing folder at canonical `dir` and proves it is still that folder. */
  const dir = async (dirPath: string, shown: string) => new PinnedDir(await openAt(dirPath, DIR_FLAGS, dirPath, shown, { prove: true }), dirPath);

  /** Opens `name` inside a pinned folder as a folder, never through a symlink (pinned already on Linux). */
  async function child(parent: PinnedDir, name: string, shown: string): Promise<PinnedDir> {
    const expected = path.join(parent.path, name);
    return new PinnedDir(await openAt(parent.at(name), DIR_FLAGS, expected, shown, { prove: !pinning.proc, wasDir: true }), expected);
  }

  /**
   * Opens canonical folder `dirPath`, creating it and its missing parents one pinned step at a time
   * (`mkdir -p` that no swap can lead elsewhere). A root is never created: a vanished mount stays gone.
   */
  async function ensureDir(dirPath: string, shown: string): Promise<PinnedDir> {
    try {
      return await dir(dirPath, shown);
    } catch (err) {
      if (!(err instanceof EngineError) || err.status !== 404) throw err;
    }
    const parentPath = path.dirname(dirPath);
    if (parentPath === dirPath || !fence.allows(parentPath)) throw notFound(`the folder holding "${shown}" no longer exists`);
    const parent = await ensureDir(parentPath, shown);
    try {
      const name = path.basename(dirPath);
      await fs.mkdir(parent.at(name)).catch(async (err) => {
        if (code(err) !== 'EEXIST') throw err;
        // A file where a folder is wanted is the caller's 409; a symlink appeared after the check.
        const st = await fs.lstat(parent.at(name));
        if (!st.isDirectory() && !st.isSymbolicLink()) throw err;
      });
      return await child(parent, name, shown);
    } finally {
      await parent.close();
    }
  }

  /**
   * The folder at canonical `dirPath` when it is exactly there, no symlink on the way: opened
   * without following a last link and located by the kernel (Linux). Undefined for anything else
   * (missing, a link on the way, another platform): the caller then takes the general path (`dir`,
   * `ensureDir`) with its sentences. Two thread-pool round trips fewer than the fence's realpath
   * followed by `dir`, and the same proof.
   */
  async function quickDir(dirPath: string): Promise<PinnedDir | undefined> {
    if (!pinning.proc) return undefined;
    const kept = held.get(dirPath);
    if (kept) {
      // Proven again on every use: moved, replaced or deleted since, it is dropped and opened afresh.
      if (isAt(kept.fd, dirPath)) return lend(dirPath, kept);
      held.delete(dirPath);
      kept.stale = true;
      if (!kept.users) closeSync(kept.fd);
    }
    let fd: number;
    try {
      fd = await openFd(dirPath, DIR_FLAGS);
    } catch {
      return undefined;
    }
    if (!isAt(fd, dirPath)) {
      closeSync(fd);
      return undefined;
    }
    const raced = held.get(dirPath); // another write opened it meanwhile: keep one
    if (raced) {
      closeSync(fd);
      return lend(dirPath, raced);
    }
    if (held.size >= HOLD_MAX) sweep(0);
    const entry: Held = { fd, users: 0, idleSince: 0, stale: false };
    held.set(dirPath, entry);
    return lend(dirPath, entry);
  }

  /** Folders quickDir keeps open a short while (HOLD_MS), by canonical path. */
  const held = new Map<string, Held>();
  let sweeper: NodeJS.Timeout | undefined;
  const isAt = (fd: number, dirPath: string) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === dirPath;
    } catch {
      return false; // unreadable: not proven
    }
  };
  function lend(dirPath: string, entry: Held): PinnedDir {
    entry.users++;
    let given = false;
    return new PinnedDir(undefined, dirPath, entry.fd, () => {
      if (given) return;
      given = true;
      if (--entry.users) return;
      if (entry.stale) return closeSync(entry.fd);
      entry.idleSince = Date.now();
      sweeper ??= setInterval(() => sweep(HOLD_MS), HOLD_MS).unref();
    });
  }
  /** Closes the held folders idle for `idleMs` or more. */
  function sweep(idleMs: number): void {
    const now = Date.now();
    for (const [p, e] of held) {
      if (e.users || now - e.idleSince < idleMs) continue;
      held.delete(p);
      closeSync(e.fd);
    }
    if (!held.size && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  /** Off Linux: the folder must still be where it was proven right before a change through it. */
  async function still(d: PinnedDir, shown: string): Promise<void> {
    if (pinning.proc) return;
    const where = await locationOf(d.handle!, d.path); // never a quickDir: those are Linux-only
    if (where !== d.path) throw moved(shown, where);
  }

  /**
   * temp file + fsync + rename inside a pinned folder; the temp file is removed on any failure.
   * `mode` is the mode to keep (undefined: a new file's 0644 less the umask), or a promise of it
   * (false: write nothing and answer false), so a caller can look at what is there now while the
   * temp file is being created: one thread-pool round trip instead of two in a row.
   */
  async function writeAtomic(d: PinnedDir, name: string, data: string | Uint8Array, mode: number | undefined | Promise<number | undefined | false>, shown: string): Promise<boolean> {
    // The same temp-name shape as writeFileAtomic, so the watcher knows it for the engine's own.
    const tmp = d.at(`${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    let fd: number | undefined;
    try {
      // Created private: the final mode is set below, before any byte is written, so a process that
      // opened the temp file while it was empty never reads a private file's new bytes.
      const [opened, wanted] = await Promise.allSettled([openFd(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, TEMP_MODE), mode]);
      if (opened.status === 'fulfilled') fd = opened.value;
      if (wanted.status === 'rejected') throw wanted.reason;
      if (opened.status === 'rejected') throw opened.reason;
      if (wanted.value === false) {
        await discard(fd!, tmp);
        fd = undefined;
        return false;
      }
      const final = wanted.value ?? 0o644 & ~UMASK;
      // A chmod of an open file changes its inode in memory: synchronous, no round trip.
      if (final !== (TEMP_MODE & ~UMASK)) fchmodSync(fd!, final);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += (await writeFd(fd!, bytes, at, bytes.length - at)).bytesWritten;
      await fsyncFd(fd!);
      // After fsync a close has nothing left to write: done here, not as another thread-pool round trip.
      const done = fd!;
      fd = undefined;
      closeSync(done);
      await still(d, shown);
      await fs.rename(tmp, d.at(name));
      return true;
    } catch (err) {
      await discard(fd, tmp);
      const c = code(err);
      if (c === 'ENOSPC' || c === 'EDQUOT') {
        throw new EngineError(507, `the disk is full; nothing was written to ${shown}. Free some space and try again`);
      }
      throw err;
    }
  }

  /** Closes and removes a temp file that will not be renamed into place. */
  async function discard(fd: number | undefined, tmp: string): Promise<void> {
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
  }

  /**
   * Removes `name` inside a pinned folder and everything under it. Each entry is looked at without
   * following it: a link is removed as a link, a folder is opened (never through a symlink) before
   * it is read, so a folder swapped for a link mid-walk is removed as that link, never followed.
   */
  async function removeTree(parent: PinnedDir, name: string, shown: string): Promise<void> {
    let st;
    try {
      st = await fs.lstat(parent.at(name));
    } catch (err) {
      if (code(err) === 'ENOENT') return;
      throw err;
    }
    if (!st.isDirectory()) {
      await still(parent, shown);
      return unlinkQuiet(parent.at(name));
    }
    let d: PinnedDir;
    try {
      d = await child(parent, name, shown);
    } catch (err) {
      if (err instanceof EngineError && err.status === 404) return;
      if (!(err instanceof EngineError) || err.status !== 409) throw err;
      await still(parent, shown); // it became a link or a file: removed as that
      return unlinkQuiet(parent.at(name));
    }
    try {
      for (const n of await fs.readdir(d.self())) await removeTree(d, n, shown);
    } finally {
      await d.close();
    }
    await still(parent, shown);
    await fs.rmdir(parent.at(name)).catch((err) => {
      if (code(err) === 'ENOENT') return;
      if (code(err) === 'ENOTEMPTY' || code(err) === 'EEXIST') throw conflict(`"${shown}" gained new entries while it was being deleted; delete it again`);
      throw err;
    });
  }

  async function unlinkQuiet(p: string): Promise<void> {
    await fs.unlink(p).catch((err) => {
      if (code(err) !== 'ENOENT') throw err;
    });
  }

  /**
   * Copies `name` in a pinned folder to `to` in another: links verbatim (never followed), files by
   * their open descriptor, folders opened without following before they are read. Pipes, sockets and
   * devices are not copied: their content is not a file's.
   */
  async function copyTree(src: PinnedDir, name: string, dst: PinnedDir, to: string, shown: string): Promise<void> {
    const st = await fs.lstat(src.at(name));
    if (st.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(src.at(name)), dst.at(to));
      return;
    }
    if (st.isFile()) {
      const handle = await fs.open(src.at(name), READ_FLAGS).catch((err) => openFailed(err, shown, src.at(name)));
      try {
        if (!(await handle.stat()).isFile()) return;
        if (pinning.proc) await fs.copyFile(`/proc/self/fd/${handle.fd}`, dst.at(to), COPYFILE_EXCL);
        else {
          await prove(handle, path.join(src.path, name), shown);
          const out = await fs.open(dst.at(to), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, st.mode & 0o777);
          try {
            await out.writeFile(await handle.readFile());
          } finally {
            await out.close();
          }
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
      return;
    }
    if (!st.isDirectory()) return;
    const from = await child(src, name, shown);
    try {
      await fs.mkdir(dst.at(to), st.mode & 0o777);
      const into = await child(dst, to, shown);
      try {
        for (const n of await fs.readdir(from.self())) await copyTree(from, n, into, n, shown);
      } finally {
        await into.close();
      }
    } finally {
      await from.close();
    }
  }

  return { dir, quickDir, child, ensureDir, still, writeAtomic, removeTree, copyTree };
}

export type Pins = ReturnType<typeof createPins>;
