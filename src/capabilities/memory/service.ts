/**
 * Agent memory: plain `.md` files under `<home>/memory/<scope>/`, where a scope is `shared` (read by
 * every memory-enabled agent) or one agent's name. The HTTP routes and the `memory` tool both land here.
 *
 * Consolidation (a model pass that merges and tidies one scope) first snapshots the scope into
 * `<home>/memory/.snapshots/<scope>/<id>/`; `POST /api/memory/restore {scope, snapshot}` puts a
 * snapshot back (snapshotting the current state first, so a restore is itself undoable).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { badRequest, conflict, EngineError, notFound, serverError } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';

export const SHARED_SCOPE = 'shared';
const SCOPE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FILE = /^[A-Za-z0-9][A-Za-z0-9 ._-]*\.md$/;
const SNAPSHOTS = '.snapshots';

/** A folder's names, or none when it does not exist yet (no memory, no snapshots). */
const namesIn = (dir: string): Promise<string[]> => fs.readdir(dir).catch(() => []);

export interface MemoryFile {
  name: string;
  size: number;
  modifiedAt: number;
}

export interface MemoryScope {
  scope: string;
  files: MemoryFile[];
}

/** One model pass: a system prompt and a user message in, the model's text out (throws with the provider's sentence). */
export type ModelPass = (req: { system: string; prompt: string; scope: string; signal?: AbortSignal }) => Promise<string>;

export interface MemoryDeps {
  home: Home;
  /** Agent names with `memory: true`, so their (maybe still empty) scopes are listed. */
  agentScopes?: () => Promise<string[]>;
  /** Announces changes made outside the memory tool (`memory.changed {scope, file?, op}`). */
  emit?: (kind: string, payload: Record<string, unknown>) => void;
  /** The model pass behind consolidation; wired to the agent loop by the composition root. */
  modelPass?: ModelPass;
}

export function checkScope(scope: string): string {
  if (typeof scope !== 'string' || !SCOPE.test(scope) || scope.includes('..') || scope.length > LIMITS.agentNameChars) {
    throw badRequest(`memory scope "${String(scope)}" is not valid; a scope is "shared" or an agent name (letters, digits, dot, dash, underscore)`);
  }
  return scope;
}

export function checkFileName(name: string): string {
  if (typeof name !== 'string' || name.includes('/') || name.includes('\\') || name.includes('\0') || name.includes('..')) {
    throw badRequest(`memory file "${String(name)}" must be a plain file name such as notes.md (no folders, no "..")`);
  }
  if (!name.endsWith('.md')) throw badRequest(`memory file "${name}" must end in .md; memory holds markdown notes only`);
  if (!FILE.test(name)) throw badRequest(`memory file "${name}" may hold only letters, digits, space, dot, dash and underscore, and must start with a letter or digit`);
  return name;
}

export type MemoryService = ReturnType<typeof createMemoryService>;

export function createMemoryService(deps: MemoryDeps) {
  const { home } = deps;
  const root = () => home.path(HOME_LAYOUT.memory);
  const scopeDir = (scope: string) => path.join(root(), checkScope(scope));
  const filePath = (scope: string, name: string) => path.join(scopeDir(scope), checkFileName(name));
  const consolidating = new Set<string>();

  async function files(scope: string): Promise<MemoryFile[]> {
    const dir = scopeDir(scope); // validates the scope (a 400) before "no files yet" is read
    const out: MemoryFile[] = [];
    for (const name of (await namesIn(dir)).sort()) {
      if (!name.endsWith('.md') || !FILE.test(name)) continue;
      const st = await fs.stat(path.join(dir, name)).catch(() => undefined);
      if (st?.isFile()) out.push({ name, size: st.size, modifiedAt: Math.round(st.mtimeMs) });
    }
    return out;
  }

  async function scopes(): Promise<MemoryScope[]> {
    const names = new Set<string>([SHARED_SCOPE]);
    try {
      for (const e of await fs.readdir(root(), { withFileTypes: true })) if (e.isDirectory() && SCOPE.test(e.name)) names.add(e.name);
    } catch {
      // no memory yet
    }
    for (const a of (await deps.agentScopes?.()) ?? []) names.add(a);
    const ordered = [SHARED_SCOPE, ...[...names].filter((n) => n !== SHARED_SCOPE).sort()];
    return Promise.all(ordered.map(async (scope) => ({ scope, files: await files(scope) })));
  }

  async function read(scope: string, name: string): Promise<string> {
    try {
      return await fs.readFile(filePath(scope, name), 'utf8');
    } catch (err) {
      if (err instanceof EngineError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR') throw notFound(`no memory file ${scope}/${name}; GET /api/memory lists every scope and its files`);
      throw err;
    }
  }

  async function exists(scope: string, name: string): Promise<boolean> {
    return fs.stat(filePath(scope, name)).then((s) => s.isFile(), () => false);
  }

  async function write(scope: string, name: string, content: unknown): Promise<void> {
    if (typeof content !== 'string') throw badRequest('content must be a string (the markdown of the note)');
    if (Buffer.byteLength(content) > LIMITS.memoryFileBytes) throw badRequest(`a memory file holds at most ${LIMITS.memoryFileBytes} bytes; split the note`);
    await home.writeAtomic(filePath(scope, name), content);
  }

  async function remove(scope: string, name: string): Promise<void> {
    const p = filePath(scope, name);
    if (!(await exists(scope, name))) throw notFound(`no memory file ${scope}/${name}; GET /api/memory lists every scope and its files`);
    await home.serialize(p, () => fs.rm(p, { force: true }));
  }

  async function rename(scope: string, from: string, toScope: string, to: string): Promise<void> {
    const src = filePath(scope, from);
    const dst = filePath(toScope, to);
    if (!(await exists(scope, from))) throw notFound(`no memory file ${scope}/${from} to rename`);
    if (await exists(toScope, to)) throw conflict(`${toScope}/${to} already exists; pick another name or delete it first`);
    await fs.mkdir(path.dirname(dst), { recursive: true });
    await fs.rename(src, dst);
  }

  // --- snapshots (what makes consolidation undoable) ---------------------------------------------

  const snapRoot = (scope: string) => path.join(root(), SNAPSHOTS, checkScope(scope));

  async function snapshot(scope: string, note: string): Promise<string> {
    const id = `${Date.now()}`;
    let dir = path.join(snapRoot(scope), id);
    for (let n = 1; await fs.stat(dir).then(() => true, () => false); n++) dir = path.join(snapRoot(scope), `${id}-${n}`);
    const names = (await files(scope)).map((f) => f.name);
    for (const name of names) await home.writeAtomic(path.join(dir, name), await read(scope, name));
    await home.writeJson(path.join(dir, 'snapshot.json'), { scope, note, at: Date.now(), files: names });
    // Keep the newest few; a snapshot is a safety net, not an archive.
    const all = await listSnapshots(scope);
    for (const old of all.slice(LIMITS.memorySnapshotsKept)) await fs.rm(path.join(snapRoot(scope), old.id), { recursive: true, force: true });
    return path.basename(dir);
  }

  async function listSnapshots(scope: string): Promise<Array<{ id: string; note: string; at: number; files: string[] }>> {
    const dir = snapRoot(scope); // validates the scope (a 400) before "none yet" is read
    const out = [];
    for (const id of await namesIn(dir)) {
      const meta = await home.readJson<{ note?: string; at?: number; files?: string[] } | null>(path.join(dir, id, 'snapshot.json'), null).catch(() => null);
      if (meta) out.push({ id, note: meta.note ?? '', at: meta.at ?? 0, files: meta.files ?? [] });
    }
    return out.sort((a, b) => b.at - a.at || b.id.localeCompare(a.id));
  }

  /** Replaces a scope's files with a snapshot's, after snapshotting the current state. */
  async function restore(scope: string, id: string): Promise<{ restored: string; snapshot: string }> {
    checkScope(scope);
    if (typeof id !== 'string' || !/^[0-9]+(-[0-9]+)?$/.test(id)) throw badRequest('snapshot must be an id from GET /api/memory-snapshots/<scope>');
    const snap = (await listSnapshots(scope)).find((s) => s.id === id);
    if (!snap) throw notFound(`no snapshot ${id} for scope ${scope}; GET /api/memory-snapshots/${scope} lists them`);
    const before = await snapshot(scope, `before restoring ${id}`);
    const contents = new Map<string, string>();
    for (const name of snap.files) contents.set(name, await fs.readFile(path.join(snapRoot(scope), id, name), 'utf8'));
    await replaceScope(scope, contents);
    deps.emit?.('memory.changed', { scope, op: 'restore', snapshot: id });
    return { restored: id, snapshot: before };
  }

  async function replaceScope(scope: string, contents: Map<string, string>): Promise<void> {
    for (const [name, text] of contents) await write(scope, name, text);
    for (const f of await files(scope)) if (!contents.has(f.name)) await remove(scope, f.name);
  }

  // --- consolidation ---------------------------------------------------------------------------

  async function consolidate(scope: string, signal?: AbortSignal): Promise<{ ok: true; scope: string; snapshot: string; files: string[]; before: string[] }> {
    checkScope(scope);
    if (!deps.modelPass) throw serverError('no model provider is configured; add one with PUT /api/config before consolidating memory');
    if (consolidating.has(scope)) throw conflict(`memory scope ${scope} is already being consolidated`);
    consolidating.add(scope);
    try {
      const current = await files(scope);
      if (!current.length) throw badRequest(`memory scope ${scope} has no files to consolidate`);
      const parts: string[] = [];
      for (const f of current) parts.push(`${FILE_OPEN}${f.name}>>>\n${await read(scope, f.name)}\n${FILE_CLOSE}`);
      let answer: string;
      try {
        answer = await deps.modelPass({ system: CONSOLIDATE_SYSTEM, prompt: parts.join('\n\n'), scope, signal });
      } catch (err) {
        if (err instanceof EngineError) throw err;
        throw serverError(`the model provider failed: ${(err as Error).message || String(err)}`);
      }
      const next = parseFiles(answer);
      if (!next.size) throw serverError('the model answered without any <<<FILE name.md>>> blocks; nothing was changed');
      const snap = await snapshot(scope, 'before consolidation');
      await replaceScope(scope, next);
      deps.emit?.('memory.changed', { scope, op: 'consolidate', snapshot: snap });
      return { ok: true, scope, snapshot: snap, files: [...next.keys()], before: current.map((f) => f.name) };
    } finally {
      consolidating.delete(scope);
    }
  }

  const changed = (scope: string, file: string | undefined, op: string) => deps.emit?.('memory.changed', { scope, file, op });

  return { scopes, files, read, exists, write, remove, rename, consolidate, snapshot, listSnapshots, restore, changed };
}

const FILE_OPEN = '<<<FILE ';
const FILE_CLOSE = '<<<END>>>';

const CONSOLIDATE_SYSTEM = [
  'You maintain an agent\'s memory: a set of small markdown notes.',
  'Merge duplicates, drop what is stale or contradicted by newer notes, keep every fact that is still useful, and tidy the wording.',
  'Answer with the complete new set of files and nothing else, each as:',
  '<<<FILE name.md>>>',
  '...markdown...',
  '<<<END>>>',
  'File names: letters, digits, dash or underscore, ending in .md. Files you leave out are deleted.',
].join('\n');

/** Reads `<<<FILE name.md>>> ... <<<END>>>` blocks; names that are not valid memory files are skipped. */
export function parseFiles(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<<<FILE ([^>\n]+)>>>\r?\n([\s\S]*?)\r?\n?<<<END>>>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const name = m[1].trim();
    try {
      checkFileName(name);
    } catch {
      continue;
    }
    out.set(name, m[2].endsWith('\n') ? m[2] : m[2] + '\n');
  }
  return out;
}
