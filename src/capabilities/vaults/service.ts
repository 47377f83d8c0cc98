/**
 * The vaults service: which vaults exist (`<home>/vaults.json`, each one a mount of the files
 * capability named like the vault), their schemas and indexes, and keeping each index in step with
 * the folder — through the engine's own file events and the files watcher's `fs.changed` for edits
 * made outside. Note operations live in notes.ts, the agent surface in agent-ops.ts.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EngineEvent, Emit } from '../../kernel/bus.js';
import { changedPaths } from '../files/changed-paths.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { type Home, writeFileAtomic } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { ensureRepo, commit, type VaultGit } from './git.js';
import { VaultIndex } from './index.js';
import { normalizeSchema, SCHEMA_FILE } from './schema.js';
import type { NoteMeta, VaultSchema, VaultSummary } from './types.js';

const REGISTRY = 'vaults.json';

/** What the vaults capability needs of the files capability (passed by engine.ts). */
export interface VaultFiles {
  mounts(): Array<{ name: string; path: string }>;
  addMount(body: { path: string; name: string }): Promise<{ name: string; path: string }>;
  writeText(virtual: string, content: string, emit?: Emit): Promise<unknown>;
  deleteEntry(virtual: string, opts: { recursive: boolean }, emit?: Emit): Promise<unknown>;
  rename(from: string, to: string, emit?: Emit): Promise<unknown>;
}

export interface VaultsDeps {
  home: Home;
  files: VaultFiles;
  /** How an index lists, stats and reads its vault's folder (for a person: the vault tool judges agentForbidden on top). */
  reader: FencedReader;
  emit: Emit;
  /** Every bus event (the service re-indexes on file events and `fs.changed`). */
  subscribe(listener: (e: EngineEvent) => void): () => void;
  log: (line: string) => void;
  /** The git capability's runner, for vaults kept in git. */
  git: VaultGit;
}

interface Entry {
  name: string;
  git: boolean;
}

export interface OpenVault {
  name: string;
  root: string;
  git: boolean;
  schema: VaultSchema;
  index: VaultIndex;
}

export type VaultsCore = Awaited<ReturnType<typeof createVaultsCore>>;

export async function createVaultsCore(deps: VaultsDeps) {
  const { home } = deps;
  let entries: Entry[] = (await home.readJson<{ vaults?: Entry[] }>(REGISTRY, { vaults: [] })).vaults ?? [];
  const open = new Map<string, Promise<OpenVault>>();
  const queues = new Map<string, Promise<unknown>>();

  const mountOf = (name: string) => deps.files.mounts().find((m) => m.name === name);
  const cacheFile = (name: string) => home.path('vaults', name, 'index.json');

  async function readSchema(root: string, name: string): Promise<VaultSchema> {
    const text = await readFile(path.join(root, SCHEMA_FILE), 'utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw badRequest(`${name}/${SCHEMA_FILE} is not valid JSON; fix it by hand (docs/vaults.md shows the format)`);
    }
    return normalizeSchema(data, `${name}/${SCHEMA_FILE}`);
  }

  /** The vault by name, its index loaded (from the persisted index where notes did not change). */
  function get(name: string): Promise<OpenVault> {
    const entry = entries.find((e) => e.name === name);
    const mount = mountOf(name);
    if (!entry || !mount) {
      const names = listed().map((e) => e.name);
      return Promise.reject(notFound(`no vault is named "${name}"; ${names.length ? `the vaults are ${names.join(', ')}` : 'POST /api/vaults {name, path} makes one'}`));
    }
    let v = open.get(name);
    if (!v) {
      v = (async () => {
        const schema = await readSchema(mount.path, name);
        const index = new VaultIndex(mount.path, home, cacheFile(name), schema, deps.reader);
        await index.load();
        return { name, root: mount.path, git: entry.git, schema, index };
      })();
      open.set(name, v);
      v.catch(() => open.delete(name));
    }
    return v;
  }

  const listed = () => entries.filter((e) => mountOf(e.name));

  async function list(): Promise<VaultSummary[]> {
    const out: VaultSummary[] = [];
    for (const e of listed()) {
      try {
        const v = await get(e.name);
        out.push({ name: e.name, path: v.root, git: e.git, ...v.index.counts() });
      } catch (err) {
        out.push({ name: e.name, path: mountOf(e.name)!.path, git: e.git, notes: 0, inbox: 0, error: (err as Error).message });
      }
    }
    return out;
  }

  async function create(body: { name: string; path: string; schema?: unknown; git?: boolean }) {
    if (entries.some((e) => e.name === body.name && mountOf(e.name))) throw conflict(`a vault named "${body.name}" is already mounted; choose another name`);
    if (!path.isAbsolute(body.path)) throw badRequest(`vault path "${body.path}" must be absolute`);
    const given = body.schema === undefined ? undefined : normalizeSchema(body.schema);
    const real = await stat(body.path).catch(() => undefined);
    if (!real?.isDirectory()) throw notFound(`folder ${body.path} does not exist; create it first or check the spelling`);
    const existing = await readFile(path.join(body.path, SCHEMA_FILE), 'utf8').then(
      () => true,
      () => false,
    );
    // An existing vault.json is adopted as it is, but must be readable before anything is mounted.
    let schema: VaultSchema;
    if (existing) schema = await readSchema(body.path, body.name);
    else schema = given ?? normalizeSchema(undefined);
    const mount = await deps.files.addMount({ path: body.path, name: body.name });
    if (!existing) await writeFileAtomic(path.join(mount.path, SCHEMA_FILE), JSON.stringify(schema, null, 2) + '\n');
    const fresh = body.git ? await ensureRepo(deps.git, mount.path) : false;
    entries = [...entries.filter((e) => e.name !== body.name), { name: body.name, git: body.git === true }];
    await home.writeJson(REGISTRY, { vaults: entries });
    open.delete(body.name);
    const v = await get(body.name);
    // A new repository starts with everything the folder holds; an existing one gets vault.json.
    if (body.git && (fresh || !existing)) await commitPaths(v, fresh ? ['.'] : [SCHEMA_FILE], 'vault: create');
    deps.emit('vaults.changed', { vault: body.name, op: 'create' });
    return { ok: true, adopted: existing, vault: { name: body.name, path: mount.path, git: body.git === true, ...v.index.counts() }, schema };
  }

  /** Runs `work` after every earlier write to the same vault (read-modify-write never interleaves). */
  function serial<T>(name: string, work: () => Promise<T>): Promise<T> {
    const prev = queues.get(name) ?? Promise.resolve();
    const next = prev.then(work, work);
    queues.set(name, next.catch(() => undefined));
    return next;
  }

  async function commitPaths(v: OpenVault, rels: string[], message: string): Promise<void> {
    if (!v.git) return;
    const r = await commit(deps.git, v.root, rels, message);
    if (!r.ok) deps.log(`vault ${v.name}: git commit failed: ${r.error}`);
  }

  /** Maps a path from a request (`<vault>/<rel>` or `<rel>`) to the vault-relative path. */
  function relOf(v: OpenVault, p: string): string {
    const clean = p.replace(/\\/g, '/').replace(/^\/+/, '');
    if (clean.split('/').some((s) => s === '..')) throw badRequest(`path "${p}" must stay inside the vault (no ".." segments)`);
    const stripped = clean.startsWith(v.name + '/') ? clean.slice(v.name.length + 1) : undefined;
    if (stripped !== undefined && (v.index.has(stripped) || !v.index.has(clean))) return stripped;
    return clean;
  }

  const virtual = (v: OpenVault, rel: string) => `${v.name}/${rel}`;

  /** Note metadata with every path written as a virtual path (the vault name first). */
  function publicMeta(v: OpenVault, meta: NoteMeta): NoteMeta {
    const p = (rel: string) => virtual(v, rel);
    return {
      ...meta,
      path: p(meta.path),
      backlinks: meta.backlinks.map(p),
      links: meta.links.map((l) => ({
        ...l,
        resolution:
          l.resolution.status === 'resolved'
            ? { ...l.resolution, path: p(l.resolution.path) }
            : l.resolution.status === 'ambiguous'
              ? { ...l.resolution, candidates: l.resolution.candidates.map(p) }
              : l.resolution,
      })),
      ambiguous: meta.ambiguous.map((a) => ({ ...a, candidates: a.candidates.map(p) })),
    };
  }

  // Keep indexes in step: the engine's own file events carry virtual paths; fs.changed carries outside edits.
  const onEvent = (e: EngineEvent) => {
    for (const p of changedPaths(e)) {
      const slash = p.indexOf('/');
      if (slash === -1) continue;
      const name = p.slice(0, slash);
      if (!open.has(name)) continue;
      const rel = p.slice(slash + 1);
      void get(name)
        .then((v) => (rel === SCHEMA_FILE ? reloadSchema(v) : v.index.refresh(rel)))
        .catch((err) => deps.log(`vault ${name}: could not re-index ${rel}: ${(err as Error).message}`));
    }
  };
  const unsubscribe = deps.subscribe(onEvent);
  // Open every vault shortly after start, off the start path, so the first request finds it loaded.
  const warm = setTimeout(() => {
    for (const e of listed()) void get(e.name).catch((err) => deps.log(`vault ${e.name}: ${(err as Error).message}`));
  }, LIMITS.warmUpDelayMs);
  warm.unref();

  async function reloadSchema(v: OpenVault): Promise<void> {
    try {
      v.schema = await readSchema(v.root, v.name);
      v.index.schema = v.schema;
    } catch (err) {
      deps.log(`vault ${v.name}: ${(err as Error).message}; keeping the schema read before`);
    }
  }

  async function close(): Promise<void> {
    clearTimeout(warm);
    unsubscribe();
    for (const v of open.values()) await v.then((o) => o.index.flush()).catch(() => undefined);
  }

  /** The mounted vaults' names and folders, without opening them (the hidden-path fence asks on every tool call). */
  const mounted = () => listed().map((e) => ({ name: e.name, path: mountOf(e.name)!.path }));

  return { get, list, mounted, create, serial, commitPaths, relOf, virtual, publicMeta, close, files: deps.files, emit: deps.emit };
}
