/**
 * Version history for agents, skills, workflows, dashboards, widgets and atlases (seed 000 §4.18).
 * <home>/history/<kind>/<name>/ holds `versions.json` (the list) and one readable file per version
 * (`<n>.md` or `<n>.json`). A restore snapshots the current state first, so it can be undone.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Bus } from '../../kernel/bus.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { fileAdapter, VERSION_EXT } from './adapters.js';
import { HISTORY_KINDS, type HistoryAdapter, type HistoryKind, type HistoryRecorder, type HistoryShelf, type VersionContent, type VersionInfo } from './types.js';

export interface HistoryService extends HistoryRecorder {
  list(kind: string, name: string): Promise<{ kind: HistoryKind; name: string; versions: VersionInfo[] }>;
  get(kind: string, name: string, version: string | number): Promise<VersionContent>;
  restore(kind: string, name: string, version: string | number): Promise<{ ok: true; kind: HistoryKind; name: string; restored: number; version: number; snapshot?: number }>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function validKind(kind: unknown): HistoryKind {
  if (typeof kind !== 'string' || !HISTORY_KINDS.includes(kind as HistoryKind)) {
    throw badRequest(`history kind must be one of ${HISTORY_KINDS.join(', ')}`);
  }
  return kind as HistoryKind;
}

export function validName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name) || name.includes('..') || name.length > LIMITS.historyNameChars) {
    throw badRequest(`name must be 1-${LIMITS.historyNameChars} letters, digits, dots, dashes or underscores, starting with a letter or digit`);
  }
  return name;
}

function validVersion(version: unknown): number {
  const n = typeof version === 'number' ? version : /^\d+$/.test(String(version)) ? Number(version) : NaN;
  if (!Number.isInteger(n) || n < 1) throw badRequest('version must be a positive whole number; GET /api/history/<kind>/<name> lists them');
  return n;
}

/** <home>/history/<kind>/<name>/: versions.json and one readable file per version. */
export function fileShelf(home: Home): HistoryShelf {
  const dir = (kind: HistoryKind, name: string) => home.path(HOME_LAYOUT.history, kind, name);
  const listFile = (kind: HistoryKind, name: string) => path.join(dir(kind, name), 'versions.json');
  const versionFile = (kind: HistoryKind, name: string, v: number) => path.join(dir(kind, name), `${v}.${VERSION_EXT[kind]}`);
  return {
    async versions(kind, name) {
      const stored = await home.readJson<{ versions?: VersionInfo[] }>(listFile(kind, name), {});
      return Array.isArray(stored.versions) ? stored.versions : [];
    },
    content: (kind, name, v) => fs.readFile(versionFile(kind, name, v), 'utf8').catch(() => undefined),
    async add(kind, name, info, content, kept, pruned) {
      await home.writeAtomic(versionFile(kind, name, info.version), content);
      await home.writeJson(listFile(kind, name), { kind, name, versions: kept });
      for (const old of pruned) await fs.rm(versionFile(kind, name, old.version), { force: true });
    },
  };
}

/** `shelves` keeps some kinds elsewhere (a pool: workflows in its database); every other kind stays in the home. */
export function createHistoryService(deps: { home: Home; bus: Bus; shelves?: Partial<Record<HistoryKind, HistoryShelf>> }): HistoryService {
  const { home, bus } = deps;
  const adapters = new Map<HistoryKind, HistoryAdapter>(HISTORY_KINDS.map((k) => [k, fileAdapter(home, k)]));
  const dir = (kind: HistoryKind, name: string) => home.path(HOME_LAYOUT.history, kind, name);
  const files = fileShelf(home);
  const shelf = (kind: HistoryKind): HistoryShelf => deps.shelves?.[kind] ?? files;

  const readList = (kind: HistoryKind, name: string): Promise<VersionInfo[]> => shelf(kind).versions(kind, name);

  /** Appends a version unless it equals the latest; call inside the item's queue. */
  const recordLocked = async (kind: HistoryKind, name: string, content: string, note?: string): Promise<{ info: VersionInfo; added: boolean }> => {
    const bytes = Buffer.byteLength(content);
    if (bytes > LIMITS.historyContentBytes) throw badRequest(`a ${kind} larger than ${LIMITS.historyContentBytes / 1024 / 1024} MB is not versioned`);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const versions = await readList(kind, name);
    const latest = versions[versions.length - 1];
    if (latest && latest.sha256 === sha256) return { info: latest, added: false };
    const info: VersionInfo = { version: (latest?.version ?? 0) + 1, ts: Date.now(), bytes, sha256 };
    if (note) info.note = note;
    versions.push(info);
    const pruned = versions.length > LIMITS.historyVersionsKept ? versions.splice(0, versions.length - LIMITS.historyVersionsKept) : [];
    await shelf(kind).add(kind, name, info, content, versions, pruned);
    bus.emit('history.recorded', { kind, name, version: info.version, note });
    return { info, added: true };
  };

  const locked = <T>(kind: HistoryKind, name: string, work: () => Promise<T>) => home.serialize(dir(kind, name), work);

  const get = async (kindIn: string, nameIn: string, versionIn: string | number): Promise<VersionContent> => {
    const kind = validKind(kindIn);
    const name = validName(nameIn);
    const version = validVersion(versionIn);
    const info = (await readList(kind, name)).find((v) => v.version === version);
    if (!info) throw notFound(`${kind} "${name}" has no version ${version}; GET /api/history/${kind}/${name} lists them`);
    const content = await shelf(kind).content(kind, name, version);
    if (content === undefined) throw notFound(`version ${version} of ${kind} "${name}" is listed but its file is gone`);
    return { kind, name, ...info, content };
  };

  return {
    registerAdapter(kind, adapter) {
      adapters.set(validKind(kind), adapter);
    },
    record(kindIn, nameIn, content, note) {
      const kind = validKind(kindIn);
      const name = validName(nameIn);
      if (typeof content !== 'string') throw badRequest('history content must be text');
      return locked(kind, name, async () => (await recordLocked(kind, name, content, note)).info);
    },
    async list(kindIn, nameIn) {
      const kind = validKind(kindIn);
      const name = validName(nameIn);
      const versions = await readList(kind, name);
      if (!versions.length && (await adapters.get(kind)!.read(name)) === undefined) {
        throw notFound(`there is no ${kind} named "${name}" and no history for it`);
      }
      return { kind, name, versions: versions.slice().reverse() };
    },
    get,
    async restore(kindIn, nameIn, versionIn) {
      const target = await get(kindIn, nameIn, versionIn);
      const { kind, name } = target;
      const adapter = adapters.get(kind)!;
      return locked(kind, name, async () => {
        // Snapshot what is there now, so this restore can itself be undone.
        const current = await adapter.read(name);
        let snapshot: number | undefined;
        if (current !== undefined) {
          const r = await recordLocked(kind, name, current, `before restoring version ${target.version}`);
          if (r.added) snapshot = r.info.version;
        }
        await adapter.write(name, target.content);
        const after = await recordLocked(kind, name, target.content, `restored version ${target.version}`);
        bus.emit('history.restored', { kind, name, restored: target.version, version: after.info.version });
        const out = { ok: true as const, kind, name, restored: target.version, version: after.info.version } as Awaited<ReturnType<HistoryService['restore']>>;
        if (snapshot !== undefined) out.snapshot = snapshot;
        return out;
      });
    },
  };
}
