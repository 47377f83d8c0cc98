/**
 * The index of one vault: every note's parsed record, the resolver, the search index, and the
 * derived backlinks. It persists in the engine home (`vaults/<name>/index.json` the records,
 * `search.bin` the search index, both stamped alike), so a start walks the folder and stats each
 * note, re-reading only notes whose mtime or size changed. No note's text stays in memory: it is
 * read, parsed and tokenised, then dropped; a search hit's snippet reads its note again. A change to
 * one file re-indexes that file only; backlinks are derived again lazily on the next read. Every
 * listing, stat and read goes through the fenced reader, for a person (the vault tool leaves out what
 * agentForbidden hides on top): a note is a file, never a link, and nothing outside the vault's
 * folder is read. The persisted index itself is engine state in the home.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { EngineError, notFound } from '../../kernel/errors.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { headingKey, noteBody, parseNote } from './parse.js';
import { nameKeys, Resolver, targetKeys } from './resolver.js';
import { fieldProblems, typeOf } from './schema.js';
import { SearchIndex } from './search.js';
import { ShownBodies } from './shown.js';
import { snippet } from './words.js';
import type { NoteMeta, NoteRecord, RawLink, Resolution, SearchHit, VaultSchema } from './types.js';

/** Bump when parse.ts changes what it extracts: an older cache is then rebuilt. */
const CACHE_VERSION = 2;
const IO_SLICE = 200;
const SKIP_DIRS = new Set(['node_modules']);

export interface LoadStats {
  /** Notes read and parsed from disk. */
  parsed: number;
  /** Notes taken from the persisted index (mtime and size unchanged). */
  reused: number;
  ms: number;
}

type ResolvedLink = RawLink & { resolution: Resolution };

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export const noteName = (rel: string) => path.posix.basename(rel).replace(/\.md$/i, '');
const isNote = (rel: string) => /\.md$/i.test(rel);
/** How a vault reads its folder: for a person (the vault tool judges agentForbidden on top), a file and never a link, a note's size at most. */
const NOTE = { for: 'person', links: false, maxBytes: LIMITS.fileTextBytes } as const;

export class VaultIndex {
  private records = new Map<string, NoteRecord>();
  private readonly attachments = new Set<string>();
  private readonly resolver = new Resolver();
  private readonly files = new Resolver();
  private search = new SearchIndex();
  /** Bodies of the notes searches showed lately, for the next snippets (shown.ts). */
  private readonly shown = new ShownBodies(LIMITS.vaultShownChars);
  /** Bumped when the set of names changes (a note or file added or removed, aliases changed). */
  private namesGen = 0;
  private derivedGen = -1;
  /** Notes whose own links resolve again: their text changed, or they are new or gone. */
  private readonly dirty = new Set<string>();
  /** The names (targetKeys) that came or went since the last derive: the links looked up under them resolve again. */
  private readonly changedKeys = new Set<string>();
  private resolved = new Map<string, ResolvedLink[]>();
  private backlinks = new Map<string, Set<string>>();
  /** The notes with a link looked up under each key (targetKeys): who to resolve again when a name comes or goes. */
  private linkers = new Map<string, Set<string>>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  stats: LoadStats = { parsed: 0, reused: 0, ms: 0 };
  /** Notes whose links the last derive resolved (every note the first time; tests read it). */
  relinked = 0;

  constructor(
    private readonly root: string,
    private readonly home: Home,
    private readonly cacheFile: string,
    public schema: VaultSchema,
    private readonly reader: FencedReader,
  ) {}

  get size(): number {
    return this.records.size;
  }

  /** Walks the folder, re-reading only notes whose mtime or size differ from the persisted index. */
  async load(): Promise<LoadStats> {
    const t0 = performance.now();
    const cached = await this.readCache();
    const found: Array<{ rel: string; abs: string }> = [];
    await this.walk('', (rel, abs) => {
      if (isNote(rel)) found.push({ rel, abs });
      else this.addAttachment(rel);
    });
    let parsed = 0;
    let reused = 0;
    // Synchronous stat and read in slices, yielding between them: for thousands of small files the
    // promise API's four round trips per file cost several times the work itself, and a slice of
    // IO_SLICE files keeps the event loop free within a few milliseconds.
    for (let i = 0; i < found.length; i += IO_SLICE) {
      for (const { rel, abs } of found.slice(i, i + IO_SLICE)) {
        const st = this.reader.statSync(abs, NOTE);
        if (!st.ok) continue;
        const old = cached.get(rel);
        if (old && old.mtimeMs === st.mtimeMs && old.size === st.size && this.search.has(rel)) {
          this.put(old);
          reused++;
          continue;
        }
        const file = this.reader.readSync(st, NOTE);
        if (!file.ok) continue;
        this.putText(rel, file);
        parsed++;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Notes the stored search index holds that the folder no longer does.
    for (const rel of [...this.search.indexed()]) if (!this.records.has(rel)) this.search.remove(rel);
    if (parsed) this.search.trim();
    this.stats = { parsed, reused, ms: Math.round(performance.now() - t0) };
    if (parsed || cached.size !== reused) this.scheduleSave();
    return this.stats;
  }

  /**
   * Re-indexes one vault-relative path after a change: a note is re-read only when its mtime or
   * size moved; a folder is walked; a path that is gone drops every note at or under it.
   */
  async refresh(rel: string): Promise<void> {
    const abs = path.join(this.root, rel);
    // Only the folder's own files: a path through a symlink (to a file or a folder) is no note, as in the walk.
    const folder = await this.reader.folder(abs, NOTE);
    if (folder.ok) {
      if (rel.split('/').some((s) => s.startsWith('.') || SKIP_DIRS.has(s))) return;
      const seen: string[] = [];
      await this.walk(rel, (r) => void seen.push(r));
      for (const r of seen) await this.refresh(r);
      return;
    }
    const st = await this.reader.stat(abs, NOTE);
    if (!st.ok) {
      // Gone, a link, or no regular file: nothing at or under it is a note any more.
      this.drop(rel);
      for (const r of [...this.records.keys(), ...this.attachments]) if (r.startsWith(rel + '/')) this.drop(r);
      return;
    }
    if (rel.split('/').some((s) => s.startsWith('.'))) return;
    if (!isNote(rel)) {
      if (!this.attachments.has(rel)) {
        this.addAttachment(rel);
        this.changed();
      }
      return;
    }
    const old = this.records.get(rel);
    if (old && old.mtimeMs === st.mtimeMs && old.size === st.size) return;
    const file = await this.reader.read(st, NOTE);
    if (!file.ok) return this.drop(rel);
    this.putText(rel, file);
    this.changed();
  }

  /** A note's text, refused when its path now leads through a symlink (it was swapped after indexing). */
  async readText(rel: string): Promise<string> {
    const file = await this.reader.read(path.join(this.root, rel), NOTE);
    // 404 is the reader's answer for a missing note and for a link (NOTE.links); a note grown past the limit says so.
    if (!file.ok) throw file.status === 404 ? notFound(`note "${rel}" is gone or is now a link; it is not read`) : new EngineError(file.status, file.reason);
    return file.bytes.toString('utf8');
  }

  has(rel: string): boolean {
    return this.records.has(rel);
  }

  record(rel: string): NoteRecord | undefined {
    return this.records.get(rel);
  }

  rels(): string[] {
    return [...this.records.keys()].sort();
  }

  /** The resolver's answer for a link target (as a person or a tool names a note). */
  resolve(target: string): Resolution {
    return this.resolver.resolve(target);
  }

  /** Notes named or aliased `name`. */
  named(name: string): string[] {
    return this.resolver.named(name);
  }

  isInbox(rel: string): boolean {
    return rel.startsWith(this.schema.inbox + '/');
  }

  meta(rel: string): NoteMeta | undefined {
    const r = this.records.get(rel);
    if (!r) return undefined;
    this.derive();
    const links = (this.resolved.get(rel) ?? []).map((l) => {
      if (l.resolution.status !== 'resolved' || !l.heading || !isNote(l.resolution.path)) return l;
      // Checked when asked, so a heading renamed in the target shows at once.
      const want = headingKey(l.heading.replace(/^\^.*/, ''));
      return { ...l, headingFound: !want || !!this.records.get(l.resolution.path)?.headings.some((h) => headingKey(h) === want) };
    });
    const type = typeOf(this.schema, rel, r.frontmatter);
    const problems = [...(r.frontmatterError ? [r.frontmatterError] : []), ...fieldProblems(this.schema, type, r.frontmatter)];
    const unresolved = [...new Set(links.filter((l) => l.resolution.status === 'unresolved').map((l) => l.target))];
    const ambiguous = links.flatMap((l) => (l.resolution.status === 'ambiguous' ? [{ target: l.target, candidates: l.resolution.candidates }] : []));
    for (const a of ambiguous) problems.push(`link [[${a.target}]] is ambiguous: it could be ${a.candidates.join(' or ')}; write more of the path`);
    return {
      path: rel,
      name: noteName(rel),
      type,
      folder: path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel),
      inbox: this.isInbox(rel),
      frontmatter: r.frontmatter,
      aliases: r.aliases,
      links,
      backlinks: [...(this.backlinks.get(rel) ?? [])].sort(),
      unresolved,
      ambiguous,
      problems,
      size: r.size,
      mtimeMs: r.mtimeMs,
    };
  }

  all(): NoteMeta[] {
    return this.rels().map((r) => this.meta(r)!);
  }

  counts(): { notes: number; inbox: number } {
    let inbox = 0;
    for (const rel of this.records.keys()) if (this.isInbox(rel)) inbox++;
    return { notes: this.records.size, inbox };
  }

  /** The best `limit` notes for `q`; each hit's snippet is cut from its note, read again (no text is kept). */
  query(q: string, limit: number, allow?: (rel: string) => boolean): SearchHit[] {
    return this.search.search(q, limit, allow).map((h) => {
      const r = this.records.get(h.rel)!;
      return { path: h.rel, name: noteName(h.rel), type: typeOf(this.schema, h.rel, r.frontmatter), score: Math.round(h.score * 1000) / 1000, snippet: snippet(this.bodyOf(h.rel), q), matched: h.matched };
    });
  }

  /**
   * A note's text after its frontmatter: kept from a recent search, or read now through the fenced
   * reader ('' when it is gone or a link). Synchronous, as the load's reads are: a search reads at
   * most `limit` small notes, and the promise API's round trips cost several times each read.
   */
  private bodyOf(rel: string): string {
    const record = this.records.get(rel)!;
    const kept = this.shown.get(rel, record);
    if (kept !== undefined) return kept;
    const st = this.reader.statSync(path.join(this.root, rel), NOTE);
    const file = st.ok ? this.reader.readSync(st, NOTE) : undefined;
    if (!file?.ok) return '';
    const body = noteBody(file.bytes.toString('utf8'));
    // Kept only when it is the version the index holds (an edit not yet indexed is read again next time).
    if (file.mtimeMs === record.mtimeMs && file.size === record.size) this.shown.set(rel, record, body);
    return body;
  }

  /** Writes the persisted index now (on close, and in tests). */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      this.saving = this.saving.then(() => this.save());
    }
    await this.saving;
  }

  /** A note read from disk: parsed, its body tokenised into the search index and dropped. */
  private putText(rel: string, file: { bytes: Buffer; mtimeMs: number; size: number }): void {
    const { body, ...parsed } = parseNote(file.bytes.toString('utf8'));
    this.put({ rel, mtimeMs: file.mtimeMs, size: file.size, ...parsed }, body);
  }

  /** A record into the maps; `body` (a note just read) goes into the search index, else it is there already. */
  private put(record: NoteRecord, body?: string): void {
    const old = this.records.get(record.rel);
    this.dirty.add(record.rel);
    if (!old || !sameList(old.aliases, record.aliases)) this.namesChanged(nameKeys(record.rel, [...(old?.aliases ?? []), ...record.aliases]));
    this.records.set(record.rel, record);
    this.resolver.add(record.rel, record.aliases);
    if (body === undefined) return;
    const title = typeof record.frontmatter.title === 'string' ? ` ${record.frontmatter.title}` : '';
    this.search.put({ rel: record.rel, name: noteName(record.rel) + title, aliases: record.aliases, body });
  }

  private drop(rel: string): void {
    const note = this.records.get(rel);
    if (note || this.attachments.has(rel)) this.namesChanged(nameKeys(rel, note?.aliases));
    if (note) this.dirty.add(rel);
    if (this.records.delete(rel)) {
      this.resolver.remove(rel);
      this.search.remove(rel);
      this.shown.delete(rel);
      this.changed();
    } else if (this.attachments.delete(rel)) {
      this.files.remove(rel);
      this.changed();
    }
  }

  private addAttachment(rel: string): void {
    this.namesChanged(nameKeys(rel));
    this.attachments.add(rel);
    this.files.add(rel);
  }

  private changed(): void {
    this.scheduleSave();
  }

  private namesChanged(keys: string[]): void {
    this.namesGen++;
    for (const k of keys) this.changedKeys.add(k);
  }

  /**
   * Resolves links and inverts them into backlinks. The first time (and after a change to many
   * names, a folder moved) every link; after that only the links a change can touch: those of the
   * notes whose text changed, and those looked up under a name that came or went (a note added
   * makes the links to its name resolve again, not every link of the vault).
   */
  private derive(): void {
    if (this.derivedGen === -1 || this.changedKeys.size > Math.max(64, this.records.size / 10)) {
      this.resolved = new Map();
      this.backlinks = new Map();
      this.linkers = new Map();
      for (const rel of this.records.keys()) this.link(rel);
      this.relinked = this.records.size;
    } else {
      const again = new Set(this.dirty);
      if (this.derivedGen !== this.namesGen) {
        for (const k of [...this.changedKeys, '*']) for (const rel of this.linkers.get(k) ?? []) again.add(rel);
      }
      for (const rel of again) {
        this.unlink(rel);
        if (this.records.has(rel)) this.link(rel);
        else this.backlinks.delete(rel);
      }
      this.relinked = again.size;
    }
    this.derivedGen = this.namesGen;
    this.changedKeys.clear();
    this.dirty.clear();
  }

  private link(rel: string): void {
    const out: ResolvedLink[] = [];
    for (const link of this.records.get(rel)!.links) {
      let resolution = this.resolver.resolve(link.target, { rel, relativeFirst: link.kind === 'markdown' });
      if (resolution.status === 'unresolved' && /\.[A-Za-z0-9]{1,8}$/.test(link.target)) {
        const file = this.files.resolve(link.target, { rel, relativeFirst: link.kind === 'markdown' });
        if (file.status !== 'unresolved') resolution = file;
      }
      out.push({ ...link, resolution });
      if (resolution.status === 'resolved' && resolution.path !== rel && this.records.has(resolution.path)) {
        let set = this.backlinks.get(resolution.path);
        if (!set) this.backlinks.set(resolution.path, (set = new Set()));
        set.add(rel);
      }
      for (const k of targetKeys(link.target)) {
        let set = this.linkers.get(k);
        if (!set) this.linkers.set(k, (set = new Set()));
        set.add(rel);
      }
    }
    this.resolved.set(rel, out);
  }

  /** Takes back what link(rel) derived: its backlinks and its place under its targets' keys. */
  private unlink(rel: string): void {
    for (const l of this.resolved.get(rel) ?? []) {
      if (l.resolution.status === 'resolved') this.backlinks.get(l.resolution.path)?.delete(rel);
      for (const k of targetKeys(l.target)) {
        const set = this.linkers.get(k);
        set?.delete(rel);
        if (set && !set.size) this.linkers.delete(k);
      }
    }
    this.resolved.delete(rel);
  }

  private async walk(relDir: string, file: (rel: string, abs: string) => void): Promise<void> {
    const listed = await this.reader.entries(relDir ? path.join(this.root, relDir) : this.root, NOTE);
    if (!listed.ok) return;
    const dirs: string[] = [];
    for (const e of listed.entries) {
      // Hidden folders (.obsidian, .git, .trash) are tool state, not notes; symlinks are never followed.
      if (e.name.startsWith('.')) continue;
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      if (e.kind === 'dir') {
        if (!SKIP_DIRS.has(e.name)) dirs.push(rel);
      } else if (e.kind === 'file') file(rel, path.join(this.root, rel));
    }
    await Promise.all(dirs.map((d) => this.walk(d, file)));
  }

  /** The records and search index a last save left, when both are there and of the same save. */
  private async readCache(): Promise<Map<string, NoteRecord>> {
    try {
      const data = await this.home.readJson<{ version?: number; root?: string; stamp?: string; notes?: NoteRecord[] }>(this.cacheFile, {});
      if (data.version !== CACHE_VERSION || data.root !== this.root || !Array.isArray(data.notes) || typeof data.stamp !== 'string') return new Map();
      const bytes = await this.home.readBytes(this.searchFile);
      const search = bytes && SearchIndex.restore(bytes, data.stamp);
      if (!search) return new Map();
      this.search = search;
      return new Map(data.notes.map((n) => [n.rel, n]));
    } catch {
      return new Map(); // missing or unreadable: a full build, never an error
    }
  }

  private get searchFile(): string {
    return path.join(path.dirname(this.cacheFile), 'search.bin');
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saving = this.saving.then(() => this.save());
    }, LIMITS.vaultIndexSaveMs);
    this.saveTimer.unref();
  }

  // The search index first, then the records naming its stamp: a crash between the two leaves
  // stamps that differ, and the next start indexes every note again rather than trust a mix.
  private async save(): Promise<void> {
    const stamp = randomBytes(8).toString('hex');
    try {
      await this.home.writeAtomic(this.searchFile, this.search.serialize(stamp));
      await this.home.writeAtomic(this.cacheFile, JSON.stringify({ version: CACHE_VERSION, root: this.root, stamp, notes: [...this.records.values()] }));
    } catch {
      // A full disk or a stopped engine: the next start indexes again what it cannot trust.
    }
  }
}
