/**
 * The fenced reader: the one way the engine's own code reads or stats a file under the workspace, a
 * mount or a vault for anything a model can see (the semantic index and its watcher path, the atlas
 * brief and its evidence, the editor's context, vault notes, board files, file search, the file
 * tools). What the engine reads or runs on behalf of a model goes through the fence: a link planted by
 * a sandboxed command or shipped in a cloned repository is data to judge, never a way out
 * (docs/security.md, "The fenced reader").
 *
 * A read resolves where the path really leads (every link followed), judges that location and the name
 * it was asked by, and only then opens the location without following a last link and proves (the
 * kernel's own answer on Linux, the inode elsewhere) that what it opened is what it judged. Refused:
 *   - a location outside every root (a link to `<home>/secrets.key`, to `/etc/...`, a folder link out);
 *   - a location in the engine home (a mount holding the home; the workspace inside it is a root);
 *   - for a model, a location or a name hidden by a vault's agentForbidden (so a link from a public
 *     folder to a private note is judged where it leads);
 *   - anything but a regular file (folders, pipes, sockets, devices), and a file over `maxBytes`.
 * A link is content only when its target passes the same test. Every refusal is logged once per path.
 *
 * Answers are values, not exceptions (a walk meets refusals as data): `{ok: true, ...}` or
 * `{ok: false, status, reason}`; `orThrow()` turns a refusal into the EngineError a route or tool throws.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, open, openSync, read, readFileSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { EngineError } from './errors.js';
import { homeSentence, isInside, outsideSentence, type Fence, type Root } from './fence.js';
import { hiddenReason, type HiddenArea } from './hidden.js';
import { LIMITS } from './limits.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** `proc`: the kernel says where an open descriptor is (Linux). Tests turn it off to exercise the portable proof. */
export const pinning = { proc: process.platform === 'linux' && existsSync('/proc/self/fd') };
/** Opening a file to read: never through a last symlink, never blocking on a pipe swapped in. */
export const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/** Who will see what is read: a model (the default) may not see what a vault hides from models; a person may. */
export type Audience = 'model' | 'person';

export interface FencedReadOptions {
  /** Whose eyes: `model` (default) also refuses what a vault's agentForbidden hides; `person` does not (a person's own routes). */
  for?: Audience;
  /** false: a path that is a link, or leads through one, is refused even when its target passes (a vault note is a file, not a link). */
  links?: boolean;
  /** A larger file is refused (413). */
  maxBytes?: number;
  /** The hidden areas to judge by, fetched once for a batch of reads (`areas()`); fetched per call otherwise. */
  areas?: readonly HiddenArea[];
}

/** A file that passed: its virtual path, its real location (links followed), its size and time. */
export interface FencedEntry {
  ok: true;
  virtual: string;
  real: string;
  size: number;
  mtimeMs: number;
}
export type FencedFile = FencedEntry & { bytes: Buffer };
export type FencedText = FencedEntry & { text: string };
export interface Refusal {
  ok: false;
  /** 403 outside, home or hidden; 404 missing; 400 not a regular file, binary, a loop; 413 too large; 409 changed while opened. */
  status: number;
  /** One sentence saying why, for a route, a tool result or an editor's `reason`. */
  reason: string;
  /** Refused because a vault hides it from models (a person may still open it). */
  hidden?: boolean;
}
export type Fenced<T> = T | Refusal;
/** A folder that passed, and the root it lies in. */
export interface FencedFolder {
  ok: true;
  virtual: string;
  real: string;
  root: Root;
}
/** One name in a folder; a link is listed as a link, never followed. */
export interface FencedName {
  name: string;
  kind: 'dir' | 'file' | 'link' | 'other';
}
/** A synchronous read is a person's, or a model's with the hidden areas fetched beforehand. */
export type SyncOptions = FencedReadOptions & ({ for: 'person' } | { areas: readonly HiddenArea[] });
interface Located {
  ok: true;
  virtual: string;
  lexical: string;
  root: Root;
  real: string;
  /** The entry's own lstat when its name is no link (a stat needs nothing more). */
  st?: Stats;
}

/** The refusal as the EngineError a route or tool throws, or the value. */
export function orThrow<T extends { ok: true }>(answer: T | Refusal): T {
  if (!answer.ok) throw new EngineError(answer.status, answer.reason);
  return answer;
}

const openFd = promisify(open);
const readAt = promisify(read);

/** The bytes of an open file whose size fstat just gave, as readFile reads a regular file, without its second fstat. */
async function readAll(fd: number, size: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  for (let n = -1; n !== 0 && got < size; got += n) n = (await readAt(fd, buf, got, size - got, null)).bytesRead;
  return got < size ? buf.subarray(0, got) : buf;
}

function readAllSync(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  for (let n = -1; n !== 0 && got < size; got += n) n = readSync(fd, buf, got, size - got, null);
  return got < size ? buf.subarray(0, got) : buf;
}

const refuse = (status: number, reason: string, hidden?: boolean): Refusal => (hidden ? { ok: false, status, reason, hidden } : { ok: false, status, reason });
const errno = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

export interface FencedReaderDeps {
  /** The areas vaults hide from models (`agentForbidden`); a failure refuses every model read (fails closed). */
  hidden?: () => Promise<readonly HiddenArea[]>;
  /** Where the one line per refused path goes. */
  log?: (line: string) => void;
}

export class FencedReader {
  /** Paths already logged as refused (with why), so a planted link costs one line, not one per walk or read. */
  private readonly logged = new Set<string>();
  /** Folders' real locations, for a moment (`remember`). */
  private readonly folders = new Map<string, { real: string; until: number }>();

  constructor(
    private readonly fence: Fence,
    private readonly deps: FencedReaderDeps = {},
  ) {}

  /** What vaults hide from models now; read once per batch of reads and handed back as `areas`. */
  async areas(): Promise<readonly HiddenArea[]> {
    return this.deps.hidden ? this.deps.hidden() : [];
  }

  /**
   * The file at a virtual path (or an absolute path inside a root), judged and read through a proven
   * descriptor. Given the entry a `stat` answered, it reads that judged location (proven again).
   */
  async read(p: string | FencedEntry, opts: FencedReadOptions = {}): Promise<Fenced<FencedFile>> {
    const at = typeof p === 'string' ? await this.where(p, opts) : p;
    if (!at.ok) return at;
    let fd: number;
    try {
      fd = await openFd(at.real, READ_FLAGS);
    } catch (err) {
      return this.openFailed(err, at.virtual);
    }
    // A raw descriptor: its fstat, the kernel's readlink and its close are answered from memory, no thread-pool round trip.
    try {
      const st = fstatSync(fd);
      const where = pinning.proc ? readlinkSync(`/proc/self/fd/${fd}`) : await provenElsewhere(st, at.real);
      if (where !== at.real) return this.moved(at.virtual, where);
      const entry = this.entryOf(at, st, opts);
      return entry.ok ? { ...entry, bytes: await readAll(fd, st.size) } : entry;
    } finally {
      closeSync(fd);
    }
  }

  /** `read` as UTF-8 text (16 MB at most unless `maxBytes` says otherwise); a file with a NUL byte is binary and refused (400). */
  async readText(p: string, opts: FencedReadOptions = {}): Promise<Fenced<FencedText>> {
    const file = await this.read(p, { maxBytes: LIMITS.fileTextBytes, ...opts });
    if (!file.ok) return file;
    const { bytes, ...entry } = file;
    if (bytes.includes(0)) return refuse(400, `"${file.virtual}" is a binary file (${bytes.length} bytes); it cannot be read as text`);
    return { ...entry, text: bytes.toString('utf8') };
  }

  /** Size and time of the file `read` would read, judged the same way; nothing is opened. */
  async stat(p: string, opts: FencedReadOptions = {}): Promise<Fenced<FencedEntry>> {
    const at = await this.where(p, opts);
    return at.ok ? this.entryOf(at, at.st ?? (await fs.lstat(at.real).catch(() => undefined)), opts) : at;
  }

  /** `read` for callers that work in synchronous slices (vault and board indexes); a model's read brings its `areas`. */
  readSync(p: string | FencedEntry, opts: SyncOptions): Fenced<FencedFile> {
    const at = typeof p === 'string' ? this.whereSync(p, opts) : p;
    if (!at.ok) return at;
    let fd: number;
    try {
      fd = openSync(at.real, READ_FLAGS);
    } catch (err) {
      return this.openFailed(err, at.virtual);
    }
    try {
      const st = fstatSync(fd);
      const where = pinning.proc ? readlinkSync(`/proc/self/fd/${fd}`) : sameFile(st, at.real) ? at.real : undefined;
      if (where !== at.real) return this.moved(at.virtual, where);
      const entry = this.entryOf(at, st, opts);
      return entry.ok ? { ...entry, bytes: readAllSync(fd, st.size) } : entry;
    } finally {
      closeSync(fd);
    }
  }

  /** `stat` for synchronous callers. */
  statSync(p: string, opts: SyncOptions): Fenced<FencedEntry> {
    const at = this.whereSync(p, opts);
    return at.ok ? this.entryOf(at, at.st ?? lstatSync(at.real, { throwIfNoEntry: false }), opts) : at;
  }

  /**
   * A folder to walk or list (an atlas scope, a vault's folder): where it really is, judged like a
   * file (a root is a folder too), and the root it lies in, for `walkSkip`. A walk from there lists
   * names; each is read through `read`.
   */
  async folder(p: string, opts: FencedReadOptions = {}): Promise<Fenced<FencedFolder>> {
    const at = await this.where(p, opts, true);
    if (!at.ok) return at.status === 404 ? refuse(404, `folder "${p}" does not exist`) : at;
    const st = await fs.stat(at.real).catch(() => undefined);
    if (!st) return refuse(404, `folder "${at.virtual}" does not exist`);
    if (!st.isDirectory()) return refuse(400, `"${at.virtual}" is a file, not a folder`);
    return { ok: true, virtual: at.virtual, real: at.real, root: at.root };
  }

  /**
   * The names in a folder (judged by `folder`), sorted, without what a walk leaves out (engine state,
   * names a vault hides from a model). A link is listed as a link, never followed: reading it is `read`'s to judge.
   */
  async entries(p: string, opts: FencedReadOptions = {}): Promise<Fenced<FencedFolder & { entries: FencedName[] }>> {
    const areas = opts.for === 'person' ? [] : (opts.areas ?? (await this.areas()));
    const dir = await this.folder(p, { ...opts, areas });
    if (!dir.ok) return dir;
    const skip = this.walkSkip(areas, dir.root);
    const list = await fs.readdir(dir.real, { withFileTypes: true }).catch(() => []);
    const entries = list
      .filter((e) => !skip(path.join(dir.real, e.name)))
      .map((e) => ({ name: e.name, kind: e.isDirectory() ? ('dir' as const) : e.isFile() ? ('file' as const) : e.isSymbolicLink() ? ('link' as const) : ('other' as const) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { ...dir, entries };
  }

  /**
   * Whether a path that may not exist yet may be shown to a model (or a person): the fence's own
   * resolution (a dangling link is judged where a write would land) plus the hidden areas, on every
   * name it resolves to. For a request that carries the text itself (an editor's buffer) and names the
   * file only to say where it comes from, and for a tool's permission before it runs.
   */
  async allowed(p: string, opts: Pick<FencedReadOptions, 'for' | 'areas'> = {}): Promise<Fenced<{ ok: true; virtual: string; real: string }>> {
    let r;
    try {
      r = await this.fence.resolve(p, { allowRoot: true });
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      if (err.status === 403) {
        const loc = this.locate(p, true);
        this.logOnce(loc.ok ? loc.virtual : p, loc.ok ? await fs.realpath(loc.lexical).catch(() => loc.lexical) : p, err.message);
      }
      return refuse(err.status, err.message);
    }
    if (opts.for !== 'person') {
      const areas = opts.areas ?? (await this.safeAreas());
      for (const at of new Set([r.real, r.target, r.entry])) {
        const why = areas === FAILED ? FAILED_REASON : hiddenReason(areas, at, r.virtual);
        if (why) {
          this.logOnce(r.virtual, r.target, why);
          return refuse(403, why, true);
        }
      }
    }
    return { ok: true, virtual: r.virtual, real: r.target };
  }

  /**
   * For a walk (names only, no link followed): whether to leave out the entry at real path `abs`
   * without a word, because a model may never see it (engine state, or a name a vault hides). What the
   * walk keeps is still read through `read`, which judges where each name leads.
   */
  walkSkip(areas: readonly HiddenArea[], root: Pick<Root, 'kind'>): (abs: string) => boolean {
    return (abs) => (root.kind === 'mount' ? this.fence.insideProtected(abs) : this.fence.isProtected(abs)) || !!hiddenReason(areas, abs, '');
  }

  /** Where `p` really leads, judged: the one resolution every read, stat and listing starts from. */
  private async where(p: string, opts: FencedReadOptions, allowRoot = false): Promise<Fenced<Located>> {
    const loc = this.locate(p, allowRoot);
    if (!loc.ok) return loc;
    let real: string;
    let st: Stats | undefined;
    try {
      const dir = path.dirname(loc.lexical);
      const parent = this.recalled(dir) ?? this.remember(dir, await fs.realpath(dir));
      real = parent === dir ? loc.lexical : path.join(parent, path.basename(loc.lexical));
      st = await fs.lstat(real);
      if (st.isSymbolicLink()) [real, st] = [await fs.realpath(real), undefined]; // followed to the end, then judged
    } catch (err) {
      return this.unresolved(err, loc.virtual);
    }
    const areas = opts.for === 'person' ? [] : (opts.areas ?? (await this.safeAreas()));
    return this.judge(loc, real, opts, areas) ?? { ok: true, virtual: loc.virtual, lexical: loc.lexical, root: loc.root, real, st };
  }

  private whereSync(p: string, opts: SyncOptions): Fenced<Located> {
    const loc = this.locate(p, false);
    if (!loc.ok) return loc;
    let real: string;
    let st: Stats | undefined;
    try {
      const dir = path.dirname(loc.lexical);
      const parent = this.recalled(dir) ?? this.remember(dir, realpathSync.native(dir));
      real = parent === dir ? loc.lexical : path.join(parent, path.basename(loc.lexical));
      st = lstatSync(real);
      if (st.isSymbolicLink()) [real, st] = [realpathSync.native(real), undefined];
    } catch (err) {
      return this.unresolved(err, loc.virtual);
    }
    return this.judge(loc, real, opts, opts.for === 'person' ? [] : opts.areas) ?? { ok: true, virtual: loc.virtual, lexical: loc.lexical, root: loc.root, real, st };
  }

  /**
   * A folder's real location, remembered a moment (LIMITS.fencedFolderMs): the files of one folder
   * are read together, and resolving the folder once instead of per file keeps a read at the price
   * of a plain one. Safe: a read opens what was judged without following and proves it is there, so
   * a folder swapped since is refused, never followed; only a `stat` could answer another file's size
   * and time in that moment, never its bytes.
   */
  private recalled(dir: string): string | undefined {
    const kept = this.folders.get(dir);
    return kept && kept.until > Date.now() ? kept.real : undefined;
  }

  private remember(dir: string, real: string): string {
    if (this.folders.size >= LIMITS.fencedFoldersRemembered) this.folders.clear();
    this.folders.set(dir, { real, until: Date.now() + LIMITS.fencedFolderMs });
    return real;
  }

  /** The virtual path, the lexical location (the root's real path plus the path inside it) and the root. */
  private locate(p: string, allowRoot: boolean): Fenced<{ ok: true; virtual: string; lexical: string; root: Root }> {
    if (path.isAbsolute(p)) {
      // An absolute path comes from the engine itself (a walk, an index): no text to check, only where it lies.
      // Normalized only when it needs to be: these are hot loops (a board's 5 000 items, a vault's notes).
      const lexical = p.includes('/.') || p.includes('//') || path.sep !== '/' ? path.normalize(p) : p;
      const at = this.fence.place(lexical);
      if (!at) return refuse(403, `${lexical} is not inside the workspace or a mount; refused, nothing was read`);
      if (at.shadowedBy) return refuse(403, `${lexical} is hidden by the mount "${at.shadowedBy}"; refused, nothing was read`);
      if (!at.relative && !allowRoot) return refuse(400, `"${at.root.name}" is a root; name a file inside it`);
      return { ok: true, virtual: at.virtual, lexical, root: at.root };
    }
    try {
      const loc = this.fence.locate(p, { allowRoot });
      return { ok: true, virtual: loc.virtual, lexical: loc.real, root: loc.root };
    } catch (err) {
      if (err instanceof EngineError) return refuse(err.status, err.message);
      throw err;
    }
  }

  /** The refusal for real location `real` of `loc`, or undefined when it passes. */
  private judge(loc: { virtual: string; lexical: string; root: Root }, real: string, opts: FencedReadOptions, areas: readonly HiddenArea[] | typeof FAILED): Refusal | undefined {
    const { virtual, lexical } = loc;
    let why: string | undefined;
    let status = 403;
    let hidden = false;
    // Most paths lead where they are named: inside their own root, no need to ask the others.
    if (!isInside(real, loc.root.path) && !this.fence.roots().some((r) => isInside(real, r.path))) why = outsideSentence(virtual);
    else if (this.fence.isProtected(real) || this.fence.isProtected(lexical)) why = homeSentence(virtual);
    else if (opts.links === false && real !== lexical) {
      why = `"${virtual}" is a link or leads through one; it is not read here (only the file itself is)`;
      status = 404;
    } else {
      why = areas === FAILED ? FAILED_REASON : (hiddenReason(areas, real, virtual) ?? hiddenReason(areas, lexical, virtual));
      hidden = !!why;
    }
    if (!why) return undefined;
    this.logOnce(virtual, real, why);
    return refuse(status, why, hidden);
  }

  private entryOf(at: { virtual: string; real: string }, st: { isFile(): boolean; isDirectory(): boolean; size: number; mtimeMs: number } | undefined, opts: FencedReadOptions): Fenced<FencedEntry> {
    const { virtual, real } = at;
    if (!st) return refuse(404, `file "${virtual}" does not exist`);
    if (st.isDirectory()) return refuse(400, `"${virtual}" is a folder, not a file; list it instead`);
    // A pipe, socket or device would block the read (or never end): only regular files are read.
    if (!st.isFile()) return refuse(400, `"${virtual}" is not a regular file (a pipe, socket or device); it cannot be read`);
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes) {
      return refuse(413, `"${virtual}" is ${st.size} bytes, over the ${formatBytes(opts.maxBytes)} limit; fetch it raw or search it with grep`);
    }
    return { ok: true, virtual, real, size: st.size, mtimeMs: st.mtimeMs };
  }

  private unresolved(err: unknown, virtual: string): Refusal {
    const c = errno(err);
    if (c === 'ENOENT' || c === 'ENOTDIR') return refuse(404, `file "${virtual}" does not exist`);
    if (c === 'ELOOP') return refuse(400, `"${virtual}" goes through a symlink loop; fix or remove the link`);
    if (c === 'EACCES' || c === 'EPERM') return refuse(403, `"${virtual}" cannot be read (permission denied)`);
    throw err;
  }

  private openFailed(err: unknown, virtual: string): Refusal {
    const c = errno(err);
    if (c === 'ELOOP' || c === 'EMLINK') return this.moved(virtual, undefined);
    if (c === 'ENXIO' || c === 'EOPNOTSUPP') return refuse(400, `"${virtual}" is not a regular file (a socket or device); it cannot be read`);
    return this.unresolved(err, virtual);
  }

  /** What was opened is not what was judged: the disk changed in between (a link swapped in). */
  private moved(virtual: string, where: string | undefined): Refusal {
    if (where !== undefined && !this.fence.allows(where)) {
      this.logOnce(virtual, where, 'swapped for a link leading out while it was opened');
      return refuse(403, `"${virtual}" changed on disk while it was being opened and now leads outside the workspace and mounts (a symlink on its path was swapped); refused, nothing was read`);
    }
    return refuse(409, `"${virtual}" changed on disk while it was being opened (a folder or symlink on its path was replaced); nothing was read, try again`);
  }

  private async safeAreas(): Promise<readonly HiddenArea[] | typeof FAILED> {
    try {
      return await this.areas();
    } catch {
      return FAILED;
    }
  }

  private logOnce(virtual: string, real: string, why: string): void {
    const key = `${virtual}\u0000${why}`;
    if (this.logged.has(key)) return;
    if (this.logged.size >= LIMITS.fencedRefusalsRemembered) this.logged.clear();
    this.logged.add(key);
    this.deps.log?.(`fenced read: refused "${virtual}" (leads to ${real}): ${why}`);
  }
}

/** The hidden areas could not be read: every model read is refused until they can (fails closed). */
const FAILED = Symbol('hidden areas unavailable');
const FAILED_REASON = 'what vaults hide from models could not be read just now, so nothing is shown to a model; try again';

/** Off Linux: the open descriptor is the judged file when a fresh resolution still names the same inode there. */
async function provenElsewhere(opened: { dev: number; ino: number }, real: string): Promise<string | undefined> {
  try {
    const [now, again] = await Promise.all([fs.stat(real), fs.realpath(real)]);
    return now.dev === opened.dev && now.ino === opened.ino ? again : undefined;
  } catch {
    return undefined;
  }
}

function sameFile(opened: { dev: number; ino: number }, real: string): boolean {
  try {
    const now = statSync(real);
    return now.dev === opened.dev && now.ino === opened.ino && realpathSync.native(real) === real;
  } catch {
    return false;
  }
}

const formatBytes = (n: number) => (n >= 1024 * 1024 ? `${n / 1024 / 1024} MB` : `${Math.round(n / 1024)} KB`);

/**
 * The bytes of the file at canonical `real`, opened without following a last link and proven by the
 * kernel to be that file, in one synchronous burst: for checking many small files at once (search
 * rows) without a thread-pool round trip per call. Undefined when it cannot be proven this way (off
 * Linux, missing, moved, not a regular file, over `maxBytes`): the caller then takes `read`.
 */
export function readProvenSync(real: string, maxBytes: number): Buffer | undefined {
  if (!pinning.proc) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(real, READ_FLAGS);
    if (readlinkSync(`/proc/self/fd/${fd}`) !== real) return undefined;
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined; // a big file is read without blocking
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The bytes of the regular file at `p` itself, never through a last link; undefined when it is missing,
 * a link or not a regular file. For walks that list only real files (never entering a link) and read
 * what they list: ignore files, the text-search walk, whose rows are proven again by `read`.
 */
export async function readOwnFile(p: string): Promise<Buffer | undefined> {
  const handle = await fs.open(p, READ_FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
