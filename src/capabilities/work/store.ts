/**
 * Boards on disk, under `<root>/.work/<project>/` (the workspace, or a mount a board was placed in:
 * a board lives with the code it tracks and is committed with it): `board.json`, `counter.json` and
 * `items/<KEY>.md`. A project name is one board across every root (the workspace's first). Items are cached by file name with their mtime and size; every read re-stats the
 * folder, so a hand edit, a new file or a deleted one is seen at the next call while an unchanged
 * file is never parsed twice (work_list over 5 000 items stays in milliseconds). Every stat and read
 * of a board's files goes through the fenced reader: an item planted as a link to `<home>/secrets.key`
 * is not read; the names of a folder are listed with readdir (names only, never a link followed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { EngineError } from '../../kernel/errors.js';
import { isInside } from '../../kernel/fence.js';
import type { FencedEntry, FencedReader, SyncOptions } from '../../kernel/fenced-read.js';
import { writeFileAtomic } from '../../kernel/home.js';
import { parseConfig } from './config.js';
import { parseItem } from './item-file.js';
import type { BoardConfig, WorkItem } from './types.js';

export const BOARDS_DIR = '.work';
const INDEX_VERSION = 1;
const INDEX_FLUSH_MS = 2_000;

interface Cached {
  mtimeMs: number;
  size: number;
  item: WorkItem;
}

export interface Board {
  project: string;
  dir: string;
  config: BoardConfig;
  /** The items by key, fresh as of the last `refresh`. */
  items: Map<string, WorkItem>;
}

/** A folder boards may live in: the workspace (first) or a mount. */
export interface BoardRoot {
  name: string;
  path: string;
}

interface CacheEntry {
  configStamp: string;
  config: BoardConfig;
  files: Map<string, Cached>;
  /** The items as the last full read found them, kept fresh by keyed reads (absent until a full read). */
  items?: Map<string, WorkItem>;
  /** The highest rank and key number among them (never lowered by a keyed read): where a new item goes. */
  top?: Top;
}

/** A board's highest item rank (undefined for no items) and highest key number (0 for none). */
export interface Top {
  rank?: number;
  key: number;
}

export class BoardStore {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly dirty = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** The root a board being created goes to (PUT ?root=), until its board.json says where it is. */
  private readonly placed = new Map<string, string>();

  constructor(
    /** The workspace first, then the mounts. */
    private readonly roots: () => BoardRoot[],
    /** The home's per-path queue (Home.serialize): one writer at a time per board folder. */
    private readonly serialize: <T>(key: string, work: () => Promise<T>) => Promise<T>,
    /** Every stat and read of a board file (shown to models through the work tools). */
    private readonly reader: FencedReader,
    /**
     * Where the parsed items are kept between starts (`<home>/work-index/`): a restart over a large
     * board re-parses only the files whose mtime or size changed, not every file.
     */
    private readonly indexDir?: string,
  ) {}

  /** The entry at `p` (a file of a board), through the fenced reader: undefined when it is missing or refused. */
  private statOf(p: string): FencedEntry | undefined {
    const st = this.reader.statSync(p, BOARD_FILE);
    return st.ok ? st : undefined;
  }

  private textOf(p: string | FencedEntry): string | undefined {
    const file = this.reader.readSync(p, BOARD_FILE);
    return file.ok ? file.bytes.toString('utf8') : undefined;
  }

  private isFile(p: string): boolean {
    return !!this.statOf(p);
  }

  private indexFile(project: string): string {
    return path.join(this.indexDir!, `${createHash('sha1').update(this.dir(project)).digest('hex').slice(0, 16)}.json`);
  }

  /** The files of a board as the last run left them (empty when there is no usable index). */
  private readIndex(project: string): Map<string, Cached> {
    if (!this.indexDir) return new Map();
    try {
      const saved = JSON.parse(readFileSync(this.indexFile(project), 'utf8')) as { version: number; dir: string; files: Record<string, Cached> };
      if (saved.version !== INDEX_VERSION || saved.dir !== this.dir(project)) return new Map();
      return new Map(Object.entries(saved.files));
    } catch {
      return new Map(); // none yet, or unreadable: the files are the truth and get parsed
    }
  }

  /** Saves changed board indexes soon after the change (coalesced), off the request path. */
  private markDirty(project: string): void {
    if (!this.indexDir) return;
    this.dirty.add(project);
    this.flushTimer ??= setTimeout(() => void this.flush(), INDEX_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Writes the index of every board changed since the last flush (also called at engine close). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const projects = [...this.dirty];
    this.dirty.clear();
    for (const project of projects) {
      const entry = this.cache.get(project);
      if (!entry) continue;
      const data = { version: INDEX_VERSION, dir: this.dir(project), files: Object.fromEntries(entry.files) };
      await writeFileAtomic(this.indexFile(project), JSON.stringify(data)).catch(() => undefined);
    }
  }

  /** The root holding the board (the first with its board.json), else where it was placed, else the workspace. */
  rootOf(project: string): BoardRoot {
    const roots = this.roots();
    const holding = roots.find((r) => this.isFile(path.join(r.path, BOARDS_DIR, project, 'board.json')));
    return holding ?? roots.find((r) => r.name === this.placed.get(project)) ?? roots[0];
  }

  /** Places a new board in the root named `name` (a mount); a board that exists stays where it is. */
  place(project: string, name: string): void {
    const roots = this.roots();
    if (!roots.some((r) => r.name === name)) throw new EngineError(404, `no root "${name}": use "workspace" or a mount name (GET /api/mounts lists them)`);
    const current = this.exists(project) ? this.rootOf(project).name : undefined;
    if (current !== undefined && current !== name) throw new EngineError(409, `board "${project}" already lives in ${current}; a board does not move between roots (move its .work/${project} folder by hand)`);
    this.placed.set(project, name);
  }

  dir(project: string): string {
    return path.join(this.rootOf(project).path, BOARDS_DIR, project);
  }

  itemFile(project: string, key: string): string {
    return path.join(this.dir(project), 'items', `${key}.md`);
  }

  /** The projects that have a board.json in any root, sorted. */
  projects(): string[] {
    const names = new Set<string>();
    for (const r of this.roots()) {
      const dir = path.join(r.path, BOARDS_DIR);
      let found: string[];
      try {
        found = readdirSync(dir);
      } catch {
        continue;
      }
      for (const n of found) if (!n.startsWith('.') && this.isFile(path.join(dir, n, 'board.json'))) names.add(n);
    }
    return [...names].sort();
  }

  exists(project: string): boolean {
    return this.isFile(path.join(this.dir(project), 'board.json'));
  }

  /** The cache entry of a board with its config fresh (re-read when board.json changed); null when there is no board.json. */
  private entry(project: string): CacheEntry | null {
    const configFile = path.join(this.dir(project), 'board.json');
    const st = this.statOf(configFile);
    if (!st) {
      this.cache.delete(project);
      return null;
    }
    const stamp = `${st.mtimeMs}:${st.size}`;
    let entry = this.cache.get(project);
    if (!entry || entry.configStamp !== stamp) {
      let raw: unknown;
      try {
        raw = JSON.parse(this.textOf(configFile) ?? '');
      } catch {
        throw new EngineError(500, `${path.join(BOARDS_DIR, project, 'board.json')} is not valid JSON; fix it by hand or PUT /api/work/${project} with a config`);
      }
      let config: BoardConfig;
      try {
        config = parseConfig(project, raw);
      } catch (err) {
        throw new EngineError(500, `${path.join(BOARDS_DIR, project, 'board.json')} is invalid: ${(err as Error).message}`);
      }
      // A new config may bring a new prefix: the items are known again only after a full read.
      entry = { configStamp: stamp, config, files: entry?.files ?? this.readIndex(project) };
      this.cache.set(project, entry);
    }
    return entry;
  }

  /** A board's config alone (no item read); null when there is no board.json. */
  config(project: string): BoardConfig | null {
    return this.entry(project)?.config ?? null;
  }

  /** A board with its items re-read where their files changed; null when there is no board.json. */
  load(project: string): Board | null {
    const entry = this.entry(project);
    if (!entry) return null;
    const dir = this.dir(project);
    const items = new Map<string, WorkItem>();
    const itemsDir = path.join(dir, 'items');
    let names: string[] = [];
    try {
      names = readdirSync(itemsDir);
    } catch {
      /* no items yet */
    }
    const keyOf = itemFile(entry.config.prefix);
    const seen = new Set<string>();
    let changed = false;
    for (const name of names) {
      const m = keyOf.exec(name);
      if (!m) continue;
      // Plain concatenation and no exception for a vanished file: this loop runs 5 000 times a list.
      const file = itemsDir + path.sep + name;
      const fst = this.statOf(file);
      if (!fst) continue; // deleted between readdir and stat, or refused (a link leading out)
      seen.add(name);
      const cached = this.fresh(project, entry, name, m[1], fst);
      if (!cached) continue;
      if (cached.changed) changed = true;
      items.set(m[1], cached.item);
    }
    for (const name of entry.files.keys()) {
      if (seen.has(name)) continue;
      entry.files.delete(name);
      changed = true;
    }
    entry.items = items;
    entry.top = { key: 0 };
    for (const item of items.values()) raise(entry.top, item);
    if (changed) this.markDirty(project);
    return { project, dir, config: entry.config, items };
  }

  /**
   * A board with only the items `keys` re-read from disk (each stat'ed, parsed when it changed), the
   * rest as the last full read left them: what a keyed read or write of one item needs, at the
   * same cost on a board of 100 items or 10 000. The first read of a board is a full one.
   */
  loadKeys(project: string, keys: string[]): Board | null {
    const entry = this.entry(project);
    if (!entry) return null;
    if (!entry.items) return this.load(project);
    const dir = this.dir(project);
    let changed = false;
    for (const key of keys) {
      const name = `${key}.md`;
      const file = path.join(dir, 'items', name);
      const fst = itemKey(entry.config.prefix).test(key) ? this.statOf(file) : undefined;
      const cached = fst ? this.fresh(project, entry, name, key, fst) : undefined;
      if (!cached) {
        if (entry.files.delete(name)) changed = true;
        entry.items.delete(key);
        continue;
      }
      if (cached.changed) changed = true;
      entry.items.set(key, cached.item);
      raise(entry.top!, cached.item);
    }
    if (changed) this.markDirty(project);
    return { project, dir, config: entry.config, items: entry.items };
  }

  /**
   * The board's highest rank and key number as of its last full read and the keyed reads since
   * (call after `load` or `loadKeys`): a new item's rank and key without reading every item.
   */
  top(project: string): Top {
    return this.cache.get(project)?.top ?? { key: 0 };
  }

  /** One item file's parsed item, from the cache when its mtime and size are unchanged; undefined when unreadable. */
  private fresh(project: string, entry: CacheEntry, name: string, key: string, fst: FencedEntry): { item: WorkItem; changed: boolean } | undefined {
    const cached = entry.files.get(name);
    if (cached && cached.mtimeMs === fst.mtimeMs && cached.size === fst.size) return { item: cached.item, changed: false };
    const text = this.textOf(fst); // the entry the stat judged, opened and proven
    if (text === undefined) return undefined;
    const item = parseItem(project, key, text);
    entry.files.set(name, { mtimeMs: fst.mtimeMs, size: fst.size, item });
    return { item, changed: true };
  }

  /**
   * Refuses to write through a `.work` or board folder that is a symlink leading out of its root or
   * into the engine home (something a shell could have planted): each folder judged by the fenced
   * reader, as a read of it is, and kept inside the root it lies in. Board writes stay there.
   */
  async assertInside(project: string): Promise<void> {
    const dir = this.dir(project);
    for (const p of [path.dirname(dir), dir, path.join(dir, 'items')]) {
      const folder = await this.reader.folder(p, BOARD_FILE);
      if (!folder.ok && folder.status === 404) return; // not there yet: it will be created as a plain folder
      const shown = path.relative(this.rootOf(project).path, p);
      if (!folder.ok) throw new EngineError(folder.status, `${shown}: ${folder.reason}; boards are written only inside their root`);
      if (!isInside(folder.real, folder.root.path)) throw new EngineError(403, `${shown} leads outside ${folder.root.kind === 'workspace' ? 'the workspace' : `the mount ${folder.root.name}`} (a symlink?); boards are written only inside their root`);
    }
  }

  async writeConfig(project: string, config: BoardConfig): Promise<void> {
    await writeFileAtomic(path.join(this.dir(project), 'board.json'), JSON.stringify(config, null, 2) + '\n');
  }

  /** Replaces an item file atomically (temp file + rename: a crash never leaves half an item). */
  async writeItem(project: string, key: string, text: string): Promise<void> {
    await writeFileAtomic(this.itemFile(project, key), text);
  }

  async readItemText(project: string, key: string): Promise<string | undefined> {
    const file = await this.reader.read(this.itemFile(project, key), BOARD_FILE);
    if (file.ok) return file.bytes.toString('utf8');
    if (file.status === 404) return undefined;
    throw new EngineError(file.status, file.reason);
  }

  /** Runs `work` alone for one board: every write of a board (and its key counter) is serialized. */
  locked<T>(project: string, work: () => Promise<T>): Promise<T> {
    return this.serialize(this.dir(project), work);
  }
}

function raise(top: Top, item: WorkItem): void {
  if (Number.isFinite(item.rank) && (top.rank === undefined || item.rank > top.rank)) top.rank = item.rank;
  const n = Number(item.key.slice(item.key.lastIndexOf('-') + 1));
  if (n > top.key) top.key = n;
}

/** An item's key of a board with this prefix, and its file name (the key captured): what a list and a keyed read both accept. */
const itemKey = (prefix: string) => new RegExp(`^${prefix}-[1-9][0-9]*$`);
const itemFile = (prefix: string) => new RegExp(`^(${prefix}-[1-9][0-9]*)\\.md$`);

/**
 * How a board's files are read: judged by the roots and the engine home (a link leading out is not
 * read); not by a vault's agentForbidden (the store is synchronous and serves people and the work
 * tools alike; a board placed inside a vault is not hidden from the work tools by the vault's schema).
 */
const BOARD_FILE: SyncOptions = { for: 'person' };
