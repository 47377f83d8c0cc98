/**
 * The brain's index on disk: `<home>/brain/graph.sqlite`, the graph of `graph.jsonl` as tables a
 * query reads by key (a node by id, a node's edges newest first, every edge newest first), so
 * nothing of old runs is held in memory. Derived: `meta` records how far into the log it reaches
 * (`offset`) and the log's bytes just before that point (`mark`), so a log that was cut, replaced
 * or written past the index is noticed at open and replayed; a missing or unreadable file is
 * rebuilt from the log (service.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { lazyRequire } from '../../kernel/lazy-require.js';
import type { BrainEdge, BrainNode, NodeType } from './graph.js';

const loadSqlite = lazyRequire<typeof BetterSqlite3>('better-sqlite3');

/** A node with more edges than this is a hub: its edges are walked as needed, never read in one go. */
const FEW_EDGES = 64;

/** Bumped when the tables change shape: an index of another version is rebuilt from the log. */
const VERSION = '2';

/** One line of graph.jsonl: a node (its whole state as last changed) or an edge. */
export interface GraphLine {
  n?: BrainNode;
  e?: BrainEdge;
}

interface NodeRow {
  id: string;
  type: string;
  label: string;
  at: number;
  data: string | null;
}

interface EdgeRow {
  src: string;
  dst: string;
  type: string;
  at: number;
  run: string | null;
}

const toNode = (r: NodeRow): BrainNode => ({ id: r.id, type: r.type as NodeType, label: r.label, at: r.at, ...(r.data ? { data: JSON.parse(r.data) as Record<string, unknown> } : {}) });
const toEdge = (r: EdgeRow): BrainEdge => ({ from: r.src, to: r.dst, type: r.type, at: r.at, ...(r.run ? { runId: r.run } : {}) });

/** A node with `n` merged in: its data keys added or replaced, its label replaced unless empty. */
export function mergeNode(old: BrainNode | undefined, n: BrainNode): BrainNode {
  if (!old) return { ...n };
  const data = n.data ? { ...old.data, ...n.data } : old.data;
  return { ...old, label: n.label || old.label, ...(data ? { data } : {}) };
}

/** An edge moved forward to `e`'s time (and run), or undefined when `e` is not later. */
export function laterEdge(old: BrainEdge | undefined, e: BrainEdge): BrainEdge | undefined {
  if (!old) return { ...e };
  if (old.at >= e.at) return undefined;
  return { ...old, at: e.at, ...(e.runId ? { runId: e.runId } : {}) };
}

export class BrainStore {
  private readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  /** Opens (or makes) the index; throws when the file is not a usable SQLite database. */
  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    const Database = loadSqlite();
    this.db = new Database(file);
    try {
      this.db.pragma('journal_mode = WAL');
      // The log is the truth: a commit lost to a power cut is replayed from it at the next open.
      this.db.pragma('synchronous = NORMAL');
      this.db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      // Tables of another shape are dropped; the log fills the new ones.
      if (this.meta('version') !== VERSION) this.db.exec("DROP TABLE IF EXISTS nodes; DROP TABLE IF EXISTS edges; DELETE FROM meta;");
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, type TEXT NOT NULL, label TEXT NOT NULL, at INTEGER NOT NULL, data TEXT, degree INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS nodes_type ON nodes(type);
        CREATE TABLE IF NOT EXISTS edges (src TEXT NOT NULL, dst TEXT NOT NULL, type TEXT NOT NULL, at INTEGER NOT NULL, run TEXT, PRIMARY KEY (src, dst, type)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS edges_src_at ON edges(src, at);
        CREATE INDEX IF NOT EXISTS edges_dst_at ON edges(dst, at);
        CREATE INDEX IF NOT EXISTS edges_at ON edges(at);
      `);
      this.setMeta('version', VERSION);
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** Removes an index file that cannot be opened, with its WAL, so it is made again. */
  static remove(file: string): void {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  }

  private q(sql: string): BetterSqlite3.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private meta(key: string): string | undefined {
    return (this.q('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  private setMeta(key: string, value: string): void {
    this.q('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** How far into the log the index reaches: its byte offset and the log's bytes just before it (hex). */
  position(): { offset: number; mark: string } {
    return { offset: Number(this.meta('offset') ?? 0), mark: this.meta('mark') ?? '' };
  }

  setPosition(at: { offset: number; mark: string }): void {
    this.setMeta('offset', String(at.offset));
    this.setMeta('mark', at.mark);
  }

  /** Empties the index (a rebuild from the log follows). */
  clear(): void {
    this.db.exec("DELETE FROM nodes; DELETE FROM edges; DELETE FROM meta WHERE key IN ('offset', 'mark');");
  }

  node(id: string): BrainNode | undefined {
    const r = this.q('SELECT id, type, label, at, data FROM nodes WHERE id = ?').get(id) as NodeRow | undefined;
    return r && toNode(r);
  }

  /** The nodes of `ids` that exist, in that order: one statement for the lot. */
  nodes(ids: readonly string[]): BrainNode[] {
    const rows = this.q('SELECT id, type, label, at, data FROM nodes WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as NodeRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      return r ? [toNode(r)] : [];
    });
  }

  has(id: string): boolean {
    return this.q('SELECT 1 FROM nodes WHERE id = ?').get(id) !== undefined;
  }

  edge(from: string, to: string, type: string): BrainEdge | undefined {
    const r = this.q('SELECT src, dst, type, at, run FROM edges WHERE src = ? AND dst = ? AND type = ?').get(from, to, type) as EdgeRow | undefined;
    return r && toEdge(r);
  }

  /**
   * Applies log lines (merging each into what is there, so a line applied twice changes nothing)
   * and, with `at`, records that the index now reaches that point of the log, in one transaction.
   */
  apply(lines: GraphLine[], at?: { offset: number; mark: string }): void {
    // A node's degree (its edges, either way) is kept as edges are added, so a walk knows a hub before reading it.
    const putNode = this.q('INSERT INTO nodes(id, type, label, at, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, data = excluded.data');
    const putEdge = this.q('INSERT OR REPLACE INTO edges(src, dst, type, at, run) VALUES (?, ?, ?, ?, ?)');
    const addDegree = this.q('UPDATE nodes SET degree = degree + 1 WHERE id = ?');
    this.db.transaction(() => {
      for (const line of lines) {
        if (line.n && typeof line.n.id === 'string') {
          const n = mergeNode(this.node(line.n.id), line.n);
          putNode.run(n.id, String(n.type), String(n.label ?? ''), Number(n.at) || 0, n.data ? JSON.stringify(n.data) : null);
        } else if (line.e && typeof line.e.from === 'string' && typeof line.e.to === 'string') {
          const old = this.edge(line.e.from, line.e.to, String(line.e.type));
          const e = laterEdge(old, line.e);
          if (!e) continue;
          putEdge.run(e.from, e.to, String(e.type), Number(e.at) || 0, e.runId ?? null);
          if (!old) for (const end of [e.from, e.to]) addDegree.run(end);
        }
      }
      if (at) this.setPosition(at);
    })();
  }

  /** A node's edges either way, newest first, from `since` on: read as the caller walks them (a hub's thousands are never all read). */
  *adjacent(id: string, since: number): Generator<BrainEdge> {
    const sql = 'SELECT src, dst, type, at, run FROM edges WHERE src = @id AND at >= @since UNION ALL SELECT src, dst, type, at, run FROM edges WHERE dst = @id AND at >= @since ORDER BY at DESC';
    for (const r of this.q(sql).iterate({ id, since }) as Iterable<EdgeRow>) yield toEdge(r);
  }

  /**
   * The edges of each of `ids` with at most FEW_EDGES of them, newest first, in two statements for
   * the lot (a statement each costs more than the rows of a small node); the ids left out are hubs,
   * for `adjacent` to walk.
   */
  adjacentOfFew(ids: readonly string[], since: number): Map<string, BrainEdge[]> {
    const list = JSON.stringify(ids);
    const hubs = new Set((this.q('SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?)) AND degree > ?').all(list, FEW_EDGES) as Array<{ id: string }>).map((r) => r.id));
    const out = new Map<string, BrainEdge[]>();
    for (const id of ids) if (!hubs.has(id)) out.set(id, []);
    const few = JSON.stringify([...out.keys()]);
    const sql = 'SELECT src, dst, type, at, run FROM edges WHERE src IN (SELECT value FROM json_each(@few)) AND at >= @since UNION ALL SELECT src, dst, type, at, run FROM edges WHERE dst IN (SELECT value FROM json_each(@few)) AND at >= @since';
    for (const r of this.q(sql).all({ few, since }) as EdgeRow[]) {
      const e = toEdge(r);
      out.get(e.from)?.push(e);
      if (e.to !== e.from) out.get(e.to)?.push(e);
    }
    for (const edges of out.values()) edges.sort((a, b) => b.at - a.at);
    return out;
  }

  /** Every edge, newest first, from `since` on. */
  *edgesByTime(since: number): Generator<BrainEdge> {
    for (const r of this.q('SELECT src, dst, type, at, run FROM edges WHERE at >= ? ORDER BY at DESC').iterate(since) as Iterable<EdgeRow>) yield toEdge(r);
  }

  /** Every node id, of the given types when named. */
  *nodeIds(types?: readonly string[]): Generator<string> {
    const rows = types ? this.q(`SELECT id FROM nodes WHERE type IN (${types.map(() => '?').join(', ')})`).iterate(...types) : this.q('SELECT id FROM nodes').iterate();
    for (const r of rows as Iterable<{ id: string }>) yield r.id;
  }

  size(): { nodes: number; edges: number } {
    const count = (table: string) => (this.q(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { nodes: count('nodes'), edges: count('edges') };
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}
