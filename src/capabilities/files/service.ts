/**
 * The files service: every file operation a client (routes) or a model (tools) can ask for, each
 * resolved through the fence, each write atomic, each change emitted once. The watcher reads
 * `isOwnWrite` so the engine's own writes are not echoed back as `fs.changed`.
 */
import { spawn } from 'node:child_process';
import { lstatSync, type Dirent } from 'node:fs';
import { lstat, open, readdir, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { Emit } from '../../kernel/bus.js';
import { EngineError, badRequest, conflict, notFound, tooLarge } from '../../kernel/errors.js';
import { isInside, type Fence, type Resolved, type Root } from '../../kernel/fence.js';
import { orThrow, pinning, READ_FLAGS, readProvenSync, type FencedReader } from '../../kernel/fenced-read.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { Mount, MountStore } from './mounts.js';
import { createPins } from './pinned.js';
import { protectedWrite } from './protected.js';
import { findOnPath, findRipgrep, searchText, virtualOf, type LineMatch, type SearchTarget } from './search.js';
import { SKIPPED_DIRS, byName, comparePaths, linkInside, walkSorted } from './walk.js';

export interface FilesDeps {
  home: Home;
  fence: Fence;
  /** Every read of a file's bytes (routes, tools, search rows) goes through it. */
  reader: FencedReader;
  mounts: MountStore;
  /** Default emitter for route-initiated changes (tools pass their run-scoped one). */
  emit: Emit;
  /** Path to rg; undefined looks it up on PATH, null forces the walk. */
  rg?: string | null;
  /** Command that opens a folder in the OS file manager; undefined picks the platform's, null means none. */
  revealCommand?: string | null;
  /** Called after a mount is added or removed (re-arms the watcher). */
  onMountsChanged?: () => void | Promise<void>;
}

export interface TreeEntry {
  path: string;
  size: number;
}

export interface DirEntry {
  name: string;
  dir: boolean;
}

export type FileOp = 'delete' | 'rename' | 'copy' | 'mkdir' | 'reveal';

export type FilesService = ReturnType<typeof createFilesService>;

export function createFilesService(deps: FilesDeps) {
  const { fence, home } = deps;
  const rg = deps.rg === undefined ? findRipgrep() : deps.rg;
  // Paths the engine changes, with the window and, once the change is done, what the path looked like
  // after it: an event is the engine's own echo only while the path still looks that way, so an
  // outside edit right after the engine's write is never swallowed (issue 26).
  const own = new Map<string, { until: number; after?: string }>();
  const pins = createPins(fence);

  /** Remembers real paths the engine is about to change (or has changed: `done`), so the watcher does not echo them. */
  const markOwn = (reals: string[], done = false) => {
    const until = Date.now() + LIMITS.ownWriteEchoMs;
    for (const r of reals) own.set(r, { until, after: done ? signature(r) : undefined });
  };
  /** Runs a change with its paths marked as the engine's own, the echo window counted from when it ends (a slow disk or a busy machine cannot outlast it). */
  const asOwn = async <T>(reals: string[], change: () => Promise<T>): Promise<T> => {
    markOwn(reals);
    try {
      return await change();
    } finally {
      markOwn(reals, true);
    }
  };
  /** The topmost folder a write to `real` would create (or `real` itself): marking it covers every new parent. */
  const firstMissing = async (real: string): Promise<string> => {
    let top = real;
    for (let up = path.dirname(top); up !== top && !(await exists(up)) && inside(up); up = path.dirname(up)) top = up;
    return top;
  };
  const isOwnWrite = (real: string): boolean => {
    const now = Date.now();
    if (/\.\d+\.[0-9a-f]{8}\.tmp$/.test(real)) return true; // writeFileAtomic's temp files
    for (const [p, mark] of own) {
      if (mark.until < now) {
        own.delete(p);
        continue;
      }
      // The path itself: an echo while the change is in progress or the path still looks as the
      // change left it (someone else changed it since otherwise; another mark may still cover it).
      if (real === p) {
        if (mark.after === undefined || signature(real) === mark.after) return true;
        continue;
      }
      // Inside a folder the engine created, copied, moved or deleted: the window decides.
      if (isInside(real, p)) return true;
    }
    return false;
  };

  const inside = (real: string) => fence.roots().some((r) => isInside(real, r.path));
  /**
   * What a walk of `root` must not enter: engine state, the whole home when reached through a mount,
   * and a workspace top-level entry hidden by a mount of the same name (its virtual path is the mount's).
   */
  const skipThrough = (real: string, root: Root) =>
    root.kind === 'mount' ? fence.insideProtected(real) : fence.isProtected(real) || shadowedByMount(real, root);
  const shadowedByMount = (real: string, root: Root) => {
    const first = path.relative(root.path, real).split(path.sep)[0];
    return first !== '' && first !== '..' && deps.mounts.has(first);
  };

  /** Creating `virtual` failed because a folder on its way is a file: a 409 sentence, not an internal error. */
  const creating = async <T>(virtual: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      // mkdir -p answers EEXIST when the parent itself is a file, ENOTDIR when a folder above it is.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTDIR' && code !== 'EEXIST') throw err;
      throw conflict(`"${virtual}" cannot be created: a folder on its path is a file; choose another path or rename that file`);
    }
  };

  const exists = async (p: string) => {
    try {
      return await lstat(p);
    } catch {
      return undefined;
    }
  };

  /** A file's text for a person's route or a model's tool (which judged what vaults hide first), through the fenced reader. */
  async function readText(virtual: string, emit: Emit = deps.emit): Promise<{ path: string; content: string }> {
    const file = orThrow(await deps.reader.readText(virtual, { for: 'person' }));
    emit('file.read', { path: file.virtual });
    return { path: file.virtual, content: file.text };
  }

  async function readBytes(virtual: string): Promise<{ path: string; bytes: Buffer }> {
    const file = orThrow(await deps.reader.read(virtual, { for: 'person' }));
    return { path: file.virtual, bytes: file.bytes };
  }

  /**
   * Atomic write through the symlink (if any) so a fenced link stays a link: the temp file is made
   * inside the checked folder, opened and proven first, and renamed over the name there.
   */
  async function writeAt(r: Resolved, data: string | Uint8Array | ((current: string) => string)): Promise<boolean> {
    const { target } = r;
    // One queue per real file: an edit's read-modify-write cannot interleave with another writer.
    return home.serialize(target, async () => {
      const marks = [target, r.real, await firstMissing(target)];
      return asOwn(marks, () =>
        creating(r.virtual, async () => {
          const folder = await pins.ensureDir(path.dirname(target), r.virtual);
          try {
            const name = path.basename(target);
            if (typeof data !== 'function') {
              // A whole-file write needs only what is there now (its type and mode), not its bytes:
              // one lstat inside the pinned folder instead of open, fstat and close.
              const st = await lstatCurrent(folder.at(name), r);
              if (st?.isSymbolicLink()) throw conflict(`"${r.virtual}" changed on disk while it was being opened (a symlink was swapped in); nothing was written, try again`);
              if (st?.isDirectory()) throw conflict(`"${r.virtual}" is a folder; write to a file path inside it`);
              if (st && !st.isFile()) throw badRequest(`"${r.virtual}" is not a regular file (a pipe, socket or device); it cannot be written`);
              await pins.writeAtomic(folder, name, data, st ? st.mode & 0o777 : undefined, r.virtual);
              return !st;
            }
            const current = await openCurrent(folder.at(name), r);
            let mode: number | undefined;
            let old: Buffer | undefined;
            if (current) {
              try {
                const st = await current.stat();
                if (st.isDirectory()) throw conflict(`"${r.virtual}" is a folder; write to a file path inside it`);
                if (!st.isFile()) throw badRequest(`"${r.virtual}" is not a regular file (a pipe, socket or device); it cannot be written`);
                mode = st.mode & 0o777;
                if (typeof data === 'function') {
                  if (st.size > LIMITS.fileTextBytes) throw tooLarge(`"${r.virtual}" is ${st.size} bytes, over the ${LIMITS.fileTextBytes / 1024 / 1024} MB text limit; it cannot be edited`);
                  old = await current.readFile();
                }
              } finally {
                await current.close().catch(() => undefined);
              }
            }
            if (typeof data === 'function' && !old) throw notFound(`file "${r.virtual}" does not exist`);
            const bytes = typeof data === 'function' ? data(decodeText(r, old!)) : data;
            await pins.writeAtomic(folder, name, bytes, mode, r.virtual);
            return !current;
          } finally {
            await folder.close();
          }
        }),
      );
    });
  }

  /**
   * A whole-file write to a path with no symlink on it into an existing folder (an editor saving):
   * the folder opened and located by the kernel (pins.quickDir) stands in for the fence's realpath,
   * which would have answered this same path. Anything else (a link on the way or at the name, a
   * missing folder, a folder or a pipe at the name, another platform) answers undefined before
   * anything is written, and the caller takes the general path with its sentences.
   */
  async function quickWrite(virtual: string, data: string | Uint8Array): Promise<{ virtual: string; created: boolean } | undefined> {
    if (!pinning.proc) return undefined;
    const loc = fence.locate(virtual); // the fence's own 400s, on the text
    const { real } = loc;
    if (!fence.allows(real)) return undefined; // engine state through a mount: the general path's 403
    return home.serialize(real, () =>
      asOwn([real], () =>
        creating(loc.virtual, async () => {
          const folder = await pins.quickDir(path.dirname(real));
          if (!folder) return undefined;
          try {
            const name = path.basename(real);
            let created = false;
            // What is there now (its mode, and whether it is created) is read while the temp file opens.
            const mode = lstatCurrent(folder.at(name), loc).then((st) => {
              created = !st;
              return st && !st.isFile() ? false : st && st.mode & 0o777;
            });
            if (!(await pins.writeAtomic(folder, name, data, mode, loc.virtual))) return undefined;
            return { virtual: loc.virtual, created };
          } finally {
            await folder.close();
          }
        }),
      ),
    );
  }

  /** A whole-file write: the quick path when it applies, else the fence's full resolution. */
  async function writeWhole(virtual: string, data: string | Uint8Array): Promise<{ virtual: string; created: boolean }> {
    const quick = await quickWrite(virtual, data);
    if (quick) return quick;
    const r = await fence.resolve(virtual);
    return { virtual: r.virtual, created: await writeAt(r, data) };
  }

  /** What is now at `at` (a pinned path), not following a link; undefined when there is nothing. */
  async function lstatCurrent(at: string, r: { virtual: string }) {
    try {
      return await lstat(at);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ENOTDIR') throw conflict(`"${r.virtual}" changed on disk while it was being opened (a folder on its path was replaced); nothing was written, try again`);
      throw err;
    }
  }

  /** The file now at `at` (a pinned path), opened without following a link; undefined when there is none. */
  async function openCurrent(at: string, r: Resolved) {
    try {
      return await open(at, READ_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw conflict(`"${r.virtual}" changed on disk while it was being opened (a symlink was swapped in); nothing was written, try again`);
      if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw badRequest(`"${r.virtual}" is not a regular file (a socket or device); it cannot be written`);
      throw err;
    }
  }

  async function writeText(virtual: string, content: string, emit: Emit = deps.emit) {
    if (typeof content !== 'string') throw badRequest('send {"content": "<text>"}; content must be a string');
    const r = await writeWhole(virtual, content);
    const { created } = r;
    const bytes = Buffer.byteLength(content);
    emit('file.written', { path: r.virtual, bytes, created });
    return { ok: true, path: r.virtual, bytes };
  }

  async function writeBytes(virtual: string, data: Buffer, emit: Emit = deps.emit) {
    const r = await writeWhole(virtual, data);
    const { created } = r;
    emit('file.written', { path: r.virtual, bytes: data.length, created });
    return { ok: true, path: r.virtual, bytes: data.length };
  }

  /** Replaces exactly one occurrence per edit, in order, against the evolving buffer; all or nothing. */
  async function edit(virtual: string, edits: Array<{ old_string: string; new_string: string }>, emit: Emit = deps.emit) {
    const r = await fence.resolve(virtual);
    orThrow(await deps.reader.readText(r.virtual, { for: 'person' })); // missing, folder, binary or too large: refused before queueing
    await writeAt(r, (current) => {
      let text = current;
      edits.forEach((e, i) => {
        const which = edits.length > 1 ? `edit ${i + 1} of ${edits.length}: ` : '';
        if (e.old_string === '') throw badRequest(`${which}old_string is empty; give the exact text to replace`);
        const count = countOccurrences(text, e.old_string);
        if (count !== 1) {
          const hint = count === 0 ? 'copy the exact text (whitespace included) from read_file' : 'include more surrounding text so it matches once';
          throw badRequest(`${which}old_string occurs ${count} times in ${r.virtual}; it must occur exactly once (${hint}). Nothing was written`);
        }
        const at = text.indexOf(e.old_string);
        text = text.slice(0, at) + e.new_string + text.slice(at + e.old_string.length); // literal: no $& / $1 expansion
      });
      return text;
    });
    emit('file.edited', { path: r.virtual, edits: edits.length });
    return { path: r.virtual, edits: edits.length };
  }

  /** Deletes the entry itself (a link as a link) inside its pinned parent folder. */
  async function deleteEntry(virtual: string, opts: { recursive: boolean }, emit: Emit = deps.emit) {
    const r = await fence.resolve(virtual);
    const parent = await pins.dir(path.dirname(r.entry), r.virtual);
    let folder = false;
    try {
      const name = path.basename(r.entry);
      const st = await exists(parent.at(name));
      if (!st) throw notFound(`"${r.virtual}" does not exist`);
      folder = st.isDirectory();
      await asOwn([r.real, r.entry], async () => {
        await pins.still(parent, r.virtual);
        if (!folder) return unlink(parent.at(name));
        if (opts.recursive) return pins.removeTree(parent, name, r.virtual);
        try {
          await rmdir(parent.at(name));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOTEMPTY' || code === 'EEXIST') {
            throw badRequest(`folder "${r.virtual}" is not empty; only a file or an empty folder can be deleted this way`);
          }
          throw err;
        }
      });
    } finally {
      await parent.close();
    }
    emit('file.deleted', { path: r.virtual, folder });
    return { path: r.virtual, folder };
  }

  /**
   * Renames or copies the entry `from` (a link as a link) to `to`, both ends inside folders opened
   * and proven to be the checked ones; a copy opens every file and folder without following links.
   */
  async function moveOrCopy(kind: 'rename' | 'copy', from: Resolved, to: Resolved): Promise<void> {
    const src = await pins.dir(path.dirname(from.entry), from.virtual);
    try {
      const a = path.basename(from.entry);
      const b = path.basename(to.entry);
      if (!(await exists(src.at(a)))) throw notFound(`"${from.virtual}" does not exist`);
      const taken = () => conflict(`"${to.virtual}" already exists; choose another name or delete it first`);
      if (await exists(to.entry)) throw taken();
      if (isInside(to.entry, from.entry) || isInside(to.target, from.entry)) throw badRequest(`cannot ${kind} "${from.virtual}" into itself`);
      await asOwn([from.real, from.entry, to.real, await firstMissing(to.entry)], async () => {
        const dst = await creating(to.virtual, () => pins.ensureDir(path.dirname(to.entry), to.virtual));
        try {
          if (await exists(dst.at(b))) throw taken();
          if (kind === 'copy') return await pins.copyTree(src, a, dst, b, from.virtual);
          await pins.still(src, from.virtual);
          await pins.still(dst, to.virtual);
          try {
            await rename(src.at(a), dst.at(b));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
            await pins.copyTree(src, a, dst, b, from.virtual);
            await pins.removeTree(src, a, from.virtual);
          }
        } finally {
          await dst.close();
        }
      });
    } finally {
      await src.close();
    }
  }

  /** POST /api/files-op: only clients call it, so its events go out on the default emitter. */
  async function op(body: { op?: unknown; path?: unknown; to?: unknown }) {
    const emit = deps.emit;
    const kinds: FileOp[] = ['delete', 'rename', 'copy', 'mkdir', 'reveal'];
    if (typeof body?.op !== 'string' || !kinds.includes(body.op as FileOp)) {
      throw badRequest(`send {"op", "path", "to"?} with op one of ${kinds.join(', ')}`);
    }
    if (typeof body.path !== 'string') throw badRequest('"path" must be a virtual path string');
    const kind = body.op as FileOp;
    switch (kind) {
      case 'delete': {
        const d = await deleteEntry(body.path, { recursive: true }, emit);
        return { ok: true, op: kind, path: d.path };
      }
      case 'mkdir': {
        const r = await fence.resolve(body.path);
        const st = await stat(r.target).catch(() => undefined);
        if (st && !st.isDirectory()) throw conflict(`"${r.virtual}" already exists as a file`);
        if (!st) {
          await asOwn([r.real, await firstMissing(r.target)], () => creating(r.virtual, async () => (await pins.ensureDir(r.target, r.virtual)).close()));
          emit('folder.created', { path: r.virtual });
        }
        return { ok: true, op: kind, path: r.virtual };
      }
      case 'rename':
      case 'copy': {
        if (typeof body.to !== 'string' || !body.to) throw badRequest(`"${kind}" needs "to", the new virtual path`);
        const from = await fence.resolve(body.path);
        const to = await fence.resolve(body.to);
        await moveOrCopy(kind, from, to);
        emit(kind === 'copy' ? 'file.copied' : 'file.renamed', { path: from.virtual, to: to.virtual });
        return { ok: true, op: kind, path: from.virtual, to: to.virtual };
      }
      case 'reveal': {
        const r = await fence.resolve(body.path, { allowRoot: true });
        const st = await exists(r.real);
        if (!st) throw notFound(`"${r.virtual || '.'}" does not exist`);
        const folder = st.isDirectory() ? r.real : path.dirname(r.real);
        const command = deps.revealCommand === undefined ? platformOpener() : deps.revealCommand;
        if (!command) {
          return { ok: false, op: kind, path: r.virtual, error: 'no file manager is available on this machine (nothing like xdg-open is on PATH)' };
        }
        const child = spawn(command, [folder], { detached: true, stdio: 'ignore' });
        // Like a failed provider test, a machine that cannot show a folder is ok: false, not an error status.
        const started = await new Promise<string | undefined>((resolve) => {
          child.once('spawn', () => resolve(undefined));
          child.once('error', (err) => resolve(err.message));
        });
        child.unref();
        if (started !== undefined) return { ok: false, op: kind, path: r.virtual, error: `the file manager (${command}) could not be started: ${started}` };
        return { ok: true, op: kind, path: r.virtual };
      }
    }
  }

  /** The file tree of every root, breadth-first, at most `filesPerRoot` files each. */
  async function tree(): Promise<{ mounts: Mount[]; files: TreeEntry[]; warnings?: string[] }> {
    const files: TreeEntry[] = [];
    const warnings: string[] = [];
    for (const root of fence.roots()) {
      try {
        const r = await fence.resolve(root.kind === 'workspace' ? '' : root.name, { allowRoot: true });
        const got = await listRoot(root, r.real);
        files.push(...got.files);
        if (root.kind === 'mount' && (await exists(path.join(fence.roots()[0].path, root.name)))) {
          warnings.push(`the workspace's top-level "${root.name}" is hidden by mount "${root.name}"; rename it or unmount to reach it`);
        }
        if (got.cut) warnings.push(`${label(root)} has more than ${LIMITS.filesPerRoot} files; the listing shows the first ${LIMITS.filesPerRoot}`);
      } catch (err) {
        const why = err instanceof EngineError ? err.message : ((err as NodeJS.ErrnoException).code ?? String(err));
        warnings.push(`${label(root)} could not be walked: ${why}`);
      }
    }
    return warnings.length ? { mounts: deps.mounts.list(), files, warnings } : { mounts: deps.mounts.list(), files };
  }

  async function listRoot(root: Root, start: string): Promise<{ files: TreeEntry[]; cut: boolean }> {
    await readdir(start); // an unreadable root is a warning, not an empty listing
    const files: TreeEntry[] = [];
    let queue: string[] = [''];
    while (queue.length) {
      const next: string[] = [];
      for (const relDir of queue) {
        let list: Dirent[];
        try {
          list = (await readdir(relDir ? path.join(start, relDir) : start, { withFileTypes: true })).sort(byName);
        } catch {
          continue;
        }
        const fileEntries: Dirent[] = [];
        for (const e of list) {
          const rel = relDir ? `${relDir}/${e.name}` : e.name;
          if (e.isDirectory()) {
            if (e.name !== '.git' && e.name !== 'node_modules' && !skipThrough(path.join(start, rel), root)) next.push(rel);
          } else if ((e.isFile() || e.isSymbolicLink()) && !(relDir === '' && skipThrough(path.join(start, rel), root))) fileEntries.push(e);
        }
        const sized = await Promise.all(
          fileEntries.map(async (e) => {
            const rel = relDir ? `${relDir}/${e.name}` : e.name;
            const abs = path.join(start, rel);
            if (e.isSymbolicLink()) {
              const link = await linkInside(abs, inside);
              if (!link.ok || link.isDir) return undefined;
            }
            const st = await stat(abs).catch(() => undefined);
            return st ? { path: virtualOf(root, rel), size: st.size } : undefined;
          }),
        );
        for (const s of sized) {
          if (!s) continue;
          if (files.length >= LIMITS.filesPerRoot) return { files, cut: true };
          files.push(s);
        }
      }
      queue = next;
    }
    return { files, cut: false };
  }

  /** Entries of one folder (a root allowed), sorted, folders flagged; mounts show up at the workspace root. */
  async function listDir(virtual: string): Promise<{ path: string; entries: DirEntry[] }> {
    const r = await fence.resolve(virtual, { allowRoot: true });
    const st = await stat(r.target).catch(() => undefined);
    if (!st) throw notFound(`folder "${virtual}" does not exist`);
    if (!st.isDirectory()) throw badRequest(`"${r.virtual}" is a file; read it with read_file`);
    // The names come from the folder opened and proven to be the checked one, not from a path a swap could redirect.
    const folder = await pins.dir(r.target, r.virtual || '.');
    let list: Dirent[];
    try {
      list = (await readdir(folder.self(), { withFileTypes: true })).sort(byName);
    } finally {
      await folder.close();
    }
    const entries: DirEntry[] = [];
    for (const e of list) {
      if (skipThrough(path.join(r.real, e.name), r.root)) continue; // the engine home inside a mount
      if (e.isSymbolicLink()) {
        const link = await linkInside(path.join(r.real, e.name), inside);
        if (!link.ok) continue; // a link leading outside is not shown: it could not be used anyway
        entries.push({ name: e.name, dir: link.isDir });
      } else entries.push({ name: e.name, dir: e.isDirectory() });
    }
    if (r.root.kind === 'workspace' && r.relative === '') {
      for (const m of deps.mounts.list()) if (!entries.some((e) => e.name === m.name)) entries.push({ name: m.name, dir: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    return { path: r.virtual, entries };
  }

  /** Where a search starts: one path (file or folder), or every root. */
  async function targets(virtual?: string): Promise<SearchTarget[]> {
    if (virtual === undefined || virtual === '' || virtual === '.') {
      const out: SearchTarget[] = [];
      for (const root of fence.roots()) {
        try {
          await fence.resolve(root.kind === 'workspace' ? '' : root.name, { allowRoot: true });
          out.push({ root, rel: '', isFile: false });
        } catch {
          // a mount that can no longer be reached is skipped, as the listing warns about it
        }
      }
      return out;
    }
    const r = await fence.resolve(virtual, { allowRoot: true });
    const st = await stat(r.real).catch(() => undefined);
    if (!st) throw notFound(`"${virtual}" does not exist`);
    if (!st.isFile() && !st.isDirectory()) throw badRequest(`"${r.virtual}" is not a regular file (a pipe, socket or device); it cannot be searched`);
    return [{ root: r.root, rel: r.relative, isFile: !st.isDirectory(), real: r.target }];
  }

  async function grep(args: {
    pattern: string;
    path?: string;
    include?: string;
    exclude?: string;
    ignoreCase?: boolean;
    literal?: boolean;
    maxRows: number;
    signal?: AbortSignal;
  }) {
    return proven(
      await searchText({
        pattern: args.pattern,
        literal: args.literal === true,
        ignoreCase: args.ignoreCase === true,
        include: splitGlobs(args.include),
        exclude: splitGlobs(args.exclude),
        targets: await targets(args.path),
        maxRows: args.maxRows,
        exact: true,
        rg,
        signal: args.signal,
        skip: skipThrough,
      }),
    );
  }

  /** Sorted virtual paths matching `pattern`, stopping after `maxRows`. */
  async function glob(args: { pattern: string; path?: string; maxRows: number; signal?: AbortSignal }) {
    const isMatch = picomatch(args.pattern, { dot: true });
    const named = args.pattern.split('/');
    const mayEnter = (name: string) =>
      !(SKIPPED_DIRS.has(name) || name.startsWith('.')) || named.some((seg) => seg === name || (seg.includes('.') && picomatch.isMatch(name, seg, { dot: true })));
    // The pattern's literal leading folders ("src/lib" of "src/lib/**/*.ts") prune the walk.
    const staticBase = picomatch.scan(args.pattern).base;
    const compatible = (dir: string) => !staticBase || dir === staticBase || staticBase.startsWith(dir + '/') || dir.startsWith(staticBase + '/');
    const rows: string[] = [];
    let complete = true;
    for (const t of await targets(args.path)) {
      if (t.isFile) throw badRequest(`glob needs a folder as "path"; "${args.path}" is a file`);
      const base = t.rel ? path.join(t.root.path, t.rel) : t.root.path;
      const prefix = virtualOf(t.root, t.rel);
      await walkSorted(base, {
        inside,
        signal: args.signal,
        enter: (rel, name, abs) => mayEnter(name) && (compatible(rel) || compatible(prefix ? `${prefix}/${rel}` : rel)) && !skipThrough(abs, t.root),
        file: (rel, abs) => {
          if (!t.rel && !rel.includes('/') && skipThrough(abs, t.root)) return;
          const virtual = prefix ? `${prefix}/${rel}` : rel;
          if (!isMatch(rel) && !isMatch(virtual)) return;
          rows.push(virtual);
          if (rows.length >= args.maxRows) {
            complete = false;
            return false;
          }
        },
      });
      if (!complete) break;
    }
    return { rows: rows.sort(comparePaths), complete };
  }

  /** GET /api/search: every root, literal unless regex, case-insensitive unless `caseSensitive`. */
  async function search(q: unknown, opts: { caseSensitive: boolean; regex: boolean }) {
    if (typeof q !== 'string' || q.length < LIMITS.searchQueryMinChars) {
      throw badRequest(`?q= must be at least ${LIMITS.searchQueryMinChars} characters`);
    }
    const out = await proven(
      await searchText({
        pattern: q,
        literal: !opts.regex,
        ignoreCase: !opts.caseSensitive,
        targets: await targets(),
        maxRows: LIMITS.searchResultsCap + 1,
        exact: false,
        rg,
        skip: skipThrough,
      }),
    );
    return groupResults(out.rows, !out.complete);
  }

  /**
   * Keeps only the rows whose text is at that line of a file the engine itself opened and proved
   * inside the fence. ripgrep (and the fallback walk) open files by path, and a folder swapped for a
   * symlink mid-search could lead a read outside; a row is only answered when the proven file holds it.
   */
  async function proven<T extends { rows: LineMatch[] }>(out: T): Promise<T> {
    const byPath = new Map<string, LineMatch[]>();
    for (const row of out.rows) {
      const list = byPath.get(row.path);
      if (list) list.push(row);
      else byPath.set(row.path, [row]);
    }
    const kept = new Set<LineMatch>();
    const files = [...byPath];
    const worker = async () => {
      for (let next = files.shift(); next; next = files.shift()) {
        const [virtual, rows] = next;
        const lines = await provenLines(virtual);
        if (!lines) continue;
        for (const row of rows) if (lines[row.line - 1]?.replace(/\r$/, '') === row.text) kept.add(row);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIMITS.searchVerifyParallel, files.length) }, worker));
    if (kept.size !== out.rows.length) out.rows = out.rows.filter((r) => kept.has(r));
    return out;
  }

  /**
   * The lines of the regular file at `virtual`, read through a proven descriptor; undefined when it
   * cannot be. A walk never follows links, so the row's plain path is tried first in one synchronous
   * burst (no link anywhere on it, proven by the kernel); anything else is read by the fenced reader.
   */
  async function provenLines(virtual: string): Promise<string[] | undefined> {
    const plain = (() => {
      try {
        return fence.locate(virtual).real;
      } catch {
        return undefined; // the reader answers with the fence's sentence
      }
    })();
    const fast = plain && readProvenSync(plain, LIMITS.searchVerifySyncBytes);
    if (fast) return fast.toString('utf8').split('\n');
    const file = await deps.reader.read(virtual, { for: 'person' });
    return file.ok ? file.bytes.toString('utf8').split('\n') : undefined; // a folder or pipe is refused
  }

  /** Re-arms the watcher and tells clients, after a mount was added or removed. */
  async function mountsChanged<T>(mount: T): Promise<T> {
    await deps.onMountsChanged?.();
    deps.emit('mounts.changed', { mounts: deps.mounts.list() });
    return mount;
  }

  const addMount = async (body: { path?: unknown; name?: unknown }) => mountsChanged(await deps.mounts.add(body ?? {}));
  const removeMount = async (name: string) => mountsChanged(await deps.mounts.remove(name));

  return {
    isOwnWrite,
    readText,
    readBytes,
    writeText,
    writeBytes,
    edit,
    deleteEntry,
    op,
    tree,
    listDir,
    grep,
    glob,
    search,
    protectedWrite: (virtual: string) => protectedWrite(fence, virtual),
    /** A virtual path resolved as the file operations do (links followed, fenced), for checks ahead of a tool call. */
    resolve: (virtual: string) => fence.resolve(virtual, { allowRoot: true }),
    /** A virtual path's real path by name only (no disk access), for filtering search rows. */
    realOf: (virtual: string) => fence.locate(virtual, { allowRoot: true }).real,
    mounts: () => deps.mounts.list(),
    addMount,
    removeMount,
  };
}

function label(root: Root): string {
  return root.kind === 'workspace' ? 'the workspace' : `mount "${root.name}"`;
}

/** "*.ts,*.md" is two globs; commas inside braces ("*.{ts,md}") belong to the glob. */
export function splitGlobs(value: string | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '{') depth++;
    if (ch === '}') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function platformOpener(): string | null {
  if (process.platform === 'win32') return 'explorer';
  return findOnPath(process.platform === 'darwin' ? 'open' : 'xdg-open');
}

/** Rows -> `{results: [{path, matches: [{line, col, len, text}]}], truncated}` (col 1-based). */
function groupResults(rows: LineMatch[], cut: boolean) {
  const results: Array<{ path: string; matches: Array<{ line: number; col: number; len: number; text: string }> }> = [];
  let count = 0;
  let truncated = cut;
  for (const row of rows) {
    let group = results[results.length - 1];
    if (!group || group.path !== row.path) {
      group = { path: row.path, matches: [] };
      results.push(group);
    }
    const text = row.text.length > LIMITS.searchLineChars ? row.text.slice(0, LIMITS.searchLineChars) + '…' : row.text;
    for (const [start, end] of row.subs) {
      if (count >= LIMITS.searchResultsCap) {
        truncated = true;
        break;
      }
      group.matches.push({ line: row.line, col: start + 1, len: end - start, text });
      count++;
    }
    if (count >= LIMITS.searchResultsCap && truncated) break;
  }
  return { results: results.filter((r) => r.matches.length), truncated };
}

/** Text of a file's bytes; a NUL byte marks it binary. */
function decodeText(r: Resolved, buf: Buffer): string {
  if (buf.includes(0)) throw badRequest(`"${r.virtual}" is a binary file (${buf.length} bytes); it cannot be read as text`);
  return buf.toString('utf8');
}

/** What a path looks like now (inode, size, modification time), or `absent`: compared to tell the engine's echo from a later edit. */
function signature(real: string): string {
  try {
    const s = lstatSync(real);
    // A folder's size and time move with its entries (the engine's own, while it copies): its inode says enough.
    return s.isDirectory() ? `dir:${s.ino}` : `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'absent';
  }
}
