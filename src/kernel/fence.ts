/**
 * The multi-root fence: the one place a virtual path becomes a real path.
 *
 * A bare path is under the workspace (`<home>/workspace`); `<mount>/<path>` is under a mounted
 * folder. Nothing reaches outside the roots: `..` in any spelling, absolute paths, percent-encoded
 * and backslash forms and NUL bytes are refused on the text, and a symlink (or a symlinked parent
 * folder, or a dangling symlink, or a mount folder later replaced by a symlink) whose target lies
 * outside every root is refused on the disk, also for paths that do not exist yet. A root itself is
 * never a valid target unless the caller asks for it (listing, a shell's cwd).
 */
import { realpathSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EngineError, badRequest, notFound } from './errors.js';

export interface Root {
  name: string;
  /** Real absolute path (symlinks resolved when the root was registered). */
  path: string;
  kind: 'workspace' | 'mount';
}

export interface Resolved {
  /** The normalized virtual path (`notes/a.md`, `docs/x.md` for mount `docs`; '' for the workspace root). */
  virtual: string;
  root: Root;
  /**
   * The absolute path to operate on: the root's real path joined with `relative`. Not the symlink
   * target, so deleting or renaming a (fenced) symlink acts on the link itself.
   */
  real: string;
  /** Path inside the root, `/`-separated; '' for the root itself. */
  relative: string;
  /**
   * Where the path leads on disk when it was checked, every symlink followed (also a dangling one):
   * the canonical location a read or a write acts on. Free of symlinks, so an operation that opens it
   * without following links and finds it elsewhere knows the disk changed after the check.
   */
  target: string;
  /**
   * The entry itself when it was checked: the parent folder's canonical location plus the last name,
   * the last symlink not followed. What a delete, a rename or a copy acts on.
   */
  entry: string;
}

const forbidden = (message: string) => new EngineError(403, message);
const MAX_SYMLINK_HOPS = 40;

export class Fence {
  private readonly workspace: Root;
  private readonly protect: string[];

  /**
   * `protect`: folders (the engine home) never reachable through a mount, even when a mounted
   * folder contains them, except through the workspace itself. Engine state (permission rules,
   * tokens) must not be editable by a model that was only given file tools.
   */
  constructor(
    workspace: string,
    private readonly mounts: () => Root[],
    opts: { protect?: string[] } = {},
  ) {
    this.workspace = { name: 'workspace', path: realOrResolved(workspace), kind: 'workspace' };
    this.protect = (opts.protect ?? []).map(realOrResolved);
  }

  /** True for a real path inside a protected folder (the engine home) and not inside the workspace. */
  isProtected(real: string): boolean {
    return this.insideProtected(real) && !isInside(real, this.workspace.path);
  }

  /** True for a real path anywhere inside a protected folder: walks of a mount skip these (the workspace is its own root). */
  insideProtected(real: string): boolean {
    return this.protect.some((p) => isInside(real, p));
  }

  /** Workspace first, then the mounts in their saved order. */
  roots(): Root[] {
    return [this.workspace, ...this.mounts()];
  }

  root(name: string): Root {
    if (name === 'workspace') return this.workspace;
    const found = this.mounts().find((m) => m.name === name);
    if (!found) throw notFound(`no mounted folder is named "${name}"; GET /api/mounts lists them`);
    return found;
  }

  /**
   * The text half of `resolve`, no disk access: the root a virtual path names and where it lies
   * under that root's real path. Throws the same 400s as `resolve`. What is on the disk (symlinks,
   * protected folders) is not judged here: a caller that acts on `real` must still prove it.
   */
  locate(virtualPath: string, opts: { allowRoot?: boolean } = {}, mounts = this.mounts()): { root: Root; rest: string[]; relative: string; virtual: string; real: string } {
    const segments = parseVirtual(virtualPath);
    let root = this.workspace;
    let rest = segments;
    if (segments.length > 0) {
      const mount = mounts.find((m) => m.name === segments[0]);
      if (mount) {
        root = mount;
        rest = segments.slice(1);
      }
    }
    const relative = rest.join('/');
    const virtual = root.kind === 'workspace' ? relative : [root.name, ...rest].join('/');
    if (rest.length === 0 && !opts.allowRoot) {
      const what = root.kind === 'workspace' ? 'the workspace root' : `the root of mount "${root.name}"`;
      throw badRequest(`"${virtualPath}" is ${what}; a root is never a valid target of a file operation, name a file or folder inside it`);
    }
    const real = rest.length ? path.join(root.path, ...rest) : root.path;
    return { root, rest, relative, virtual, real };
  }

  /** Resolves a virtual path; throws a 400/403/404 EngineError with a sentence saying what to fix. */
  async resolve(virtualPath: string, opts: { allowRoot?: boolean } = {}): Promise<Resolved> {
    const mounts = this.mounts();
    const { root, rest, relative, virtual, real } = this.locate(virtualPath, opts, mounts);

    let target: string;
    let entry: string;
    try {
      target = await resolveOnDisk(real);
      // A path that is already canonical has no symlink on it (a link to its own path is a loop), so
      // its folder is canonical too: one resolution per request instead of two (bench/files-write).
      entry = !rest.length || target === real ? target : path.join(await resolveOnDisk(path.dirname(real)), path.basename(real));
    } catch (err) {
      if (err instanceof EngineError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw badRequest(`"${virtualPath}" goes through a symlink loop; fix or remove the link`);
      throw err;
    }
    const all = [this.workspace, ...mounts];
    if (!all.some((r) => isInside(target, r.path))) {
      if (rest.length === 0) {
        throw forbidden(`mount "${root.name}" no longer points inside its folder (it was replaced by a symlink to somewhere else); unmount and mount it again`);
      }
      throw forbidden(outsideSentence(virtualPath));
    }
    // The entry itself (a link, when the path ends in one) must be inside too: deleting or renaming
    // it acts there, whatever its target.
    if (!all.some((r) => isInside(entry, r.path))) throw forbidden(outsideSentence(virtualPath));
    if (this.isProtected(target) || this.isProtected(real) || this.isProtected(entry)) throw forbidden(homeSentence(virtualPath));
    if (root.kind === 'mount') {
      // A vanished mount folder is not silently re-created by a write beneath it.
      const st = await lstat(root.path).catch(() => undefined);
      if (!st) throw notFound(`the folder of mount "${root.name}" (${root.path}) no longer exists; unmount it or restore the folder`);
    }
    return { virtual, root, real, relative, target, entry };
  }

  /** True for a real, canonical path a file operation may act on: inside a root and not engine state. */
  allows(real: string): boolean {
    return this.roots().some((r) => isInside(real, r.path)) && !this.isProtected(real);
  }

  /**
   * Where a normalized absolute path lies, no disk access: its root (the deepest, when a mount lies
   * inside another root), the `/`-separated path inside it and its virtual path; undefined outside
   * every root. A workspace entry hidden by a mount of the same name has no virtual path of its own:
   * `shadowedBy` names that mount. The fenced reader places every absolute path it is given by this.
   */
  place(abs: string): { root: Root; relative: string; virtual: string; shadowedBy?: string } | undefined {
    const roots = this.roots();
    let root: Root | undefined;
    for (const r of roots) if (isInside(abs, r.path) && (!root || r.path.length > root.path.length)) root = r;
    if (!root) return undefined;
    // Sliced, not path.relative: the reader places every file of a walk (a board's 5 000 items).
    let relative = abs === root.path ? '' : abs.slice(root.path.length + (root.path.endsWith(path.sep) ? 0 : 1));
    if (path.sep !== '/') relative = relative.split(path.sep).join('/');
    if (root.kind === 'mount') return { root, relative, virtual: relative ? `${root.name}/${relative}` : root.name };
    const first = relative.includes('/') ? relative.slice(0, relative.indexOf('/')) : relative;
    const shadowedBy = first && roots.length > 1 && roots.some((r) => r.kind === 'mount' && r.name === first) ? first : undefined;
    return shadowedBy ? { root, relative, virtual: relative, shadowedBy } : { root, relative, virtual: relative };
  }

  /** The virtual path of a real path inside a root, or undefined when it lies outside every root (or is hidden by a mount). */
  toVirtual(realPath: string): string | undefined {
    const at = this.place(path.resolve(realPath));
    return at && !at.shadowedBy ? at.virtual : undefined;
  }
}

/** The refusal of a path whose real location leaves every root (the fence and the fenced reader say it alike). */
export const outsideSentence = (shown: string) => `"${shown}" leads outside the workspace and mounts through a symlink; refused, nothing was touched`;
/** The refusal of a path whose real location is engine state. */
export const homeSentence = (shown: string) => `"${shown}" is inside the engine home; engine state is not reachable through file paths`;

function realOrResolved(p: string): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    return abs; // created later (Home.ensure); a missing folder is caught on first use
  }
}

/** True when `p` is `root` or lies below it (both absolute, normalized). */
export function isInside(p: string, root: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(prefix);
}

/**
 * Checks the text of a virtual path and splits it into segments. Refuses every spelling that could
 * climb or escape, rather than normalizing it into something the caller did not write.
 */
export function parseVirtual(input: unknown): string[] {
  if (typeof input !== 'string') throw badRequest('a path must be a string (a workspace-relative path or <mount>/<path>)');
  const shown = JSON.stringify(input.length > 200 ? input.slice(0, 200) + '…' : input);
  if (input.includes('\0')) throw badRequest(`path ${shown} contains a NUL byte; send a plain relative path`);
  if (input.includes('\\')) throw badRequest(`path ${shown} contains a backslash; use forward slashes in a relative path`);
  if (hidesEncodedEscape(input)) {
    throw badRequest(`path ${shown} hides "..", "/", "\\", "~" or NUL behind percent-encoding; send the decoded relative path`);
  }
  // `~` and `~/x` mean the home folder in a shell; `~notes.md` or `~$doc.docx` are ordinary names.
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input) || input === '~' || input.startsWith('~/')) {
    throw badRequest(`path ${shown} is absolute; use a workspace-relative path or <mount>/<path>`);
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(input)) throw badRequest(`path ${shown} is a URL; use a workspace-relative path`);
  const segments: string[] = [];
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg.trim() === '..') {
      throw badRequest(`path ${shown} contains ".."; paths cannot climb out of the workspace or a mount`);
    }
    segments.push(seg);
  }
  return segments;
}

/**
 * Percent signs are ordinary file-name characters (`100%25.txt`, `50%.md`): the fence never decodes a
 * path. What it refuses is text that some decoding layer (a proxy, a client, a second decode) could
 * turn into a climb or a separator: decoded up to three times, no step may yield a `..` segment, a
 * slash, a backslash or a NUL that was not in the text before.
 */
function hidesEncodedEscape(input: string): boolean {
  let text = input;
  for (let i = 0; i < 3 && /%[0-9a-fA-F]{2}/.test(text); i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      // Not decodable as a whole (a lone "%" or a bad UTF-8 run): decode the valid escapes one by one.
      decoded = text.replace(/%[0-9a-fA-F]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
    }
    if (/[\\\0]/.test(decoded) || decoded.split('/').length !== text.split('/').length) return true;
    if (decoded.split('/').some((seg) => seg.trim() === '..') || decoded === '~' || decoded.startsWith('~/')) return true;
    text = decoded;
  }
  return false;
}

/**
 * The real location `p` would reach, resolving every symlink on the way, even when `p` (or its
 * parents) do not exist yet: the deepest existing ancestor is realpath'd, and a dangling symlink is
 * followed to where a write would land.
 */
async function resolveOnDisk(p: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw Object.assign(new Error('symlink loop'), { code: 'ELOOP' });
  try {
    return await realpath(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  let st;
  try {
    st = await lstat(p);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    // A dangling link: a write would create its target, so the target is what must be fenced.
    const target = await readlink(p);
    return resolveOnDisk(path.resolve(path.dirname(p), target), hops + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(await resolveOnDisk(parent, hops), path.basename(p));
}
