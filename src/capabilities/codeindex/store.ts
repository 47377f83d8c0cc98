/**
 * The index on disk: one SQLite file, `<home>/index/code.sqlite`, holding
 *   - files:   path, mtime, size (what was indexed, to find what changed);
 *   - chunks:  path, lines, name, text, hash;
 *   - cache:   hash -> vector, per embedding model: a chunk whose text is unchanged (also one moved
 *              to another file, or the same file after a rebuild) is never embedded twice;
 *   - vec:     a sqlite-vec `vec0` table of the chunks' vectors (cosine distance), rowid = chunk id;
 *   - fts:     an FTS5 table over names, paths and code, for the words and identifiers a vector
 *              search ranks poorly.
 * Queries fuse the rankings (vectors, words, exact definition names) by reciprocal rank (docs/search.md).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { lazyRequire } from '../../kernel/lazy-require.js';
import type { Chunk } from './chunks.js';

const loadSqlite = lazyRequire<typeof BetterSqlite3>('better-sqlite3');
const loadVec = lazyRequire<{ getLoadablePath(): string }>('sqlite-vec');

export interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  name: string;
  text: string;
  score: number;
}

/** Reciprocal rank fusion's constant: ranks past the first few count alike, as in the RRF paper. */
const RRF_K = 60;
const CANDIDATES = 50;

export class IndexStore {
  private readonly db: BetterSqlite3.Database;
  private dims = 0;
  /** Prepared statements by their SQL; cleared when a table they name is dropped. */
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  private q(sql: string): BetterSqlite3.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  constructor(file: string, readonly model: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    const Database = loadSqlite();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.loadExtension(loadVec().getLoadablePath());
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS chunks (id INTEGER PRIMARY KEY, path TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL, hash TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
      CREATE INDEX IF NOT EXISTS chunks_name ON chunks(name);
      CREATE TABLE IF NOT EXISTS cache (hash TEXT PRIMARY KEY, vector BLOB NOT NULL);
      CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(name, path, text, content='chunks', content_rowid='id', tokenize="unicode61 tokenchars '_$'");
    `);
    // Vectors of another model (or another dimension) never mix with these: start over.
    if (this.meta('model') !== model) {
      this.db.exec('DELETE FROM cache; DELETE FROM files; DELETE FROM chunks; INSERT INTO fts(fts) VALUES (\'delete-all\'); DROP TABLE IF EXISTS vec;');
      this.setMeta('model', model);
      this.setMeta('dims', '0');
    }
    this.dims = Number(this.meta('dims') ?? 0);
  }

  close(): void {
    this.db.close();
  }

  private meta(key: string): string | undefined {
    return (this.q('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  private setMeta(key: string, value: string): void {
    this.q('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Drops every file and chunk (a rebuild from nothing); the embedding cache stays unless asked. */
  clear(opts: { cache?: boolean } = {}): void {
    this.statements.clear();
    this.db.exec(`DELETE FROM files; DELETE FROM chunks; INSERT INTO fts(fts) VALUES ('delete-all'); DROP TABLE IF EXISTS vec;${opts.cache ? ' DELETE FROM cache;' : ''}`);
    this.dims = 0;
    this.setMeta('dims', '0');
  }

  /** Indexed files under a folder (a range of the primary key: '0' sorts right after '/'). */
  filesUnder(folder: string): string[] {
    return (this.q('SELECT path FROM files WHERE path > ? AND path < ?').all(`${folder}/`, `${folder}0`) as Array<{ path: string }>).map((r) => r.path);
  }

  indexedFiles(): Map<string, { mtime: number; size: number }> {
    const out = new Map<string, { mtime: number; size: number }>();
    for (const r of this.q('SELECT path, mtime, size FROM files').all() as Array<{ path: string; mtime: number; size: number }>) out.set(r.path, { mtime: r.mtime, size: r.size });
    return out;
  }

  counts(): { files: number; chunks: number } {
    const files = (this.q('SELECT count(*) n FROM files').get() as { n: number }).n;
    const chunks = (this.q('SELECT count(*) n FROM chunks').get() as { n: number }).n;
    return { files, chunks };
  }

  /** Of these hashes, those with no cached vector (what must be embedded). */
  missing(hashes: string[]): string[] {
    const has = this.q('SELECT 1 FROM cache WHERE hash = ?');
    return [...new Set(hashes)].filter((h) => !has.get(h));
  }

  cacheVectors(entries: Array<[string, Float32Array]>): void {
    const put = this.q('INSERT OR REPLACE INTO cache(hash, vector) VALUES (?, ?)');
    this.db.transaction(() => {
      for (const [hash, v] of entries) put.run(hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    })();
  }

  /** Replaces a file's chunks (every hash must be cached). */
  putFile(file: string, stat: { mtime: number; size: number }, chunks: Chunk[]): void {
    this.putFiles([{ virtual: file, stat, chunks }]);
  }

  /** Replaces several files' chunks in one transaction (one commit for a batch of an index build). */
  putFiles(files: Array<{ virtual: string; stat: { mtime: number; size: number }; chunks: Chunk[] }>): void {
    this.db.transaction(() => {
      for (const f of files) this.putOne(f.virtual, f.stat, f.chunks);
    })();
  }

  private putOne(file: string, stat: { mtime: number; size: number }, chunks: Chunk[]): void {
    const vectorOf = this.q('SELECT vector FROM cache WHERE hash = ?');
    {
      this.removeChunks(file);
      const insert = this.q('INSERT INTO chunks(path, start, end, name, text, hash) VALUES (?, ?, ?, ?, ?, ?)');
      const fts = this.q('INSERT INTO fts(rowid, name, path, text) VALUES (?, ?, ?, ?)');
      for (const c of chunks) {
        const id = Number(insert.run(file, c.startLine, c.endLine, c.name, c.text, c.hash).lastInsertRowid);
        fts.run(id, c.name, c.path, c.text);
        const row = vectorOf.get(c.hash) as { vector: Buffer } | undefined;
        if (!row) throw new Error(`no vector cached for a chunk of ${file}`);
        this.ensureVec(row.vector.byteLength / 4);
        this.q('INSERT INTO vec(rowid, embedding) VALUES (?, ?)').run(BigInt(id), row.vector);
      }
      this.q('INSERT OR REPLACE INTO files(path, mtime, size) VALUES (?, ?, ?)').run(file, stat.mtime, stat.size);
    }
  }

  removeFile(file: string): void {
    this.db.transaction(() => {
      this.removeChunks(file);
      this.q('DELETE FROM files WHERE path = ?').run(file);
    })();
  }

  private removeChunks(file: string): void {
    const old = this.q('SELECT id, name, path, text FROM chunks WHERE path = ?').all(file) as Array<{ id: number; name: string; path: string; text: string }>;
    if (!old.length) return;
    const ftsDelete = this.q("INSERT INTO fts(fts, rowid, name, path, text) VALUES ('delete', ?, ?, ?, ?)");
    const vecDelete = this.dims ? this.q('DELETE FROM vec WHERE rowid = ?') : undefined;
    for (const r of old) {
      ftsDelete.run(r.id, r.name, r.path, r.text);
      vecDelete?.run(BigInt(r.id));
    }
    this.q('DELETE FROM chunks WHERE path = ?').run(file);
  }

  private ensureVec(dims: number): void {
    if (this.dims === dims) return;
    if (this.dims) throw new Error(`the embeddings endpoint changed dimensions (${this.dims} -> ${dims}); rebuild the index with POST /api/reindex`);
    this.statements.clear();
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS vec USING vec0(embedding float[${dims}] distance_metric=cosine)`);
    this.dims = dims;
    this.setMeta('dims', String(dims));
  }

  /** Vector neighbours and word matches, fused by reciprocal rank; best first. */
  search(query: string, vector: Float32Array | undefined, limit: number): Hit[] {
    const scores = new Map<number, number>();
    const add = (ids: number[]) => ids.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
    if (vector && this.dims === vector.length) {
      const rows = this.q('SELECT rowid FROM vec WHERE embedding MATCH ? AND k = ? ORDER BY distance').all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), CANDIDATES) as Array<{ rowid: number }>;
      add(rows.map((r) => Number(r.rowid)));
    }
    const words = ftsQuery(query);
    if (words) {
      // Names weigh most: an identifier's definition outranks the places that only use it.
      const rows = this.q('SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, 10.0, 2.0, 1.0) LIMIT ?').all(words, CANDIDATES) as Array<{ rowid: number }>;
      add(rows.map((r) => Number(r.rowid)));
    }
    // A word of the query that names a definition exactly (an identifier) ranks that definition
    // as a third list: the symbol search of Sourcegraph and the editors' "go to symbol".
    const names = [...new Set(query.match(/[A-Za-z_$][\w$]{2,}/g) ?? [])].slice(0, 16);
    if (names.length) {
      const rows = this.q(`SELECT id FROM chunks WHERE name IN (${names.map(() => '?').join(',')}) LIMIT ?`).all(...names, CANDIDATES) as Array<{ id: number }>;
      add(rows.map((r) => r.id));
    }
    const best = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
    const get = this.q('SELECT path, start, end, name, text FROM chunks WHERE id = ?');
    return best.flatMap(([id, score]) => {
      const r = get.get(id) as { path: string; start: number; end: number; name: string; text: string } | undefined;
      return r ? [{ path: r.path, startLine: r.start, endLine: r.end, name: r.name, text: r.text, score }] : [];
    });
  }
}

/** The query's words as an FTS5 OR-query of quoted terms (no FTS syntax from a model reaches SQLite). */
function ftsQuery(query: string): string {
  const words = query.match(/[\p{L}\p{N}_$]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32).map((w) => `"${w}"`).join(' OR ');
}
