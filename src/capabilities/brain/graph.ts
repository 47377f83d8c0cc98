/**
 * The brain's graph: typed nodes (`run:<id>`, `file:<path>` ...), timed edges, and the query that
 * walks them from the index on disk (store.ts). Queries never read a run log.
 */
export type NodeType = 'run' | 'session' | 'workflow' | 'agent' | 'model' | 'file' | 'commit' | 'checkpoint' | 'note' | 'work' | 'dashboard' | 'atlas';
export const NODE_TYPES: readonly NodeType[] = ['run', 'session', 'workflow', 'agent', 'model', 'file', 'commit', 'checkpoint', 'note', 'work', 'dashboard', 'atlas'];

export interface BrainNode {
  id: string;
  type: NodeType;
  label: string;
  /** When it was first seen. */
  at: number;
  /** What is known of it (for a run: source, status, model, agent, title, startedAt, endedAt). */
  data?: Record<string, unknown>;
}

export interface BrainEdge {
  from: string;
  to: string;
  type: string;
  at: number;
  runId?: string;
}

export interface BrainQuery {
  focus?: string;
  depth?: number;
  types?: NodeType[];
  since?: number;
  limit: number;
}

export interface BrainAnswer {
  focus?: string;
  nodes: BrainNode[];
  edges: BrainEdge[];
  truncated: boolean;
}

/** What the query reads: the index on disk (store.ts), through these four. */
export interface GraphSource {
  has(id: string): boolean;
  /** The nodes of `ids` that exist, in that order. */
  nodes(ids: readonly string[]): BrainNode[];
  /** A node's edges either way, newest first, from `since` on, read as they are walked. */
  adjacent(id: string, since: number): Iterable<BrainEdge>;
  /** The same for the ids with few edges, all at once; the ids left out are walked with `adjacent`. */
  adjacentOfFew(ids: readonly string[], since: number): Map<string, BrainEdge[]>;
  edgesByTime(since: number): Iterable<BrainEdge>;
  nodeIds(types?: readonly string[]): Iterable<string>;
}

/** Frontier nodes whose edges are read together (the walk may stop at the cap within a batch). */
const FRONTIER_BATCH = 32;

/** A node's type, from its id (`run:<runId>`, `file:<path>` ...: every id starts with its type). */
const typeOf = (id: string): string => id.slice(0, id.indexOf(':'));

/**
 * Answers a query by walking the index: from the focus breadth first, newest edges first, reading
 * each node's edges only as far as the cap lets the answer grow; without a focus, the newest edges
 * of the whole graph until the cap. What it reads is bounded by the answer, not by the graph.
 */
export function queryGraph(g: GraphSource, q: BrainQuery): BrainAnswer {
  const since = q.since ?? 0;
  const typeOk = (id: string) => !q.types || q.types.includes(typeOf(id) as NodeType);
  const picked = new Set<string>();
  const edges: BrainEdge[] = [];
  let truncated = false;
  const take = (id: string): boolean => {
    if (picked.has(id)) return true;
    if (picked.size >= q.limit) return (truncated = true), false;
    picked.add(id);
    return true;
  };
  if (q.focus) {
    take(q.focus);
    let frontier = [q.focus];
    for (let d = 0; d < (q.depth ?? 1) && frontier.length && !truncated; d++) {
      const next: string[] = [];
      let few = new Map<string, BrainEdge[]>();
      for (let i = 0; i < frontier.length; i++) {
        const id = frontier[i];
        // The edges of the next few frontier nodes in one read, a hub's as it is walked.
        if (i % FRONTIER_BATCH === 0) few = g.adjacentOfFew(frontier.slice(i, i + FRONTIER_BATCH), since);
        for (const e of few.get(id) ?? g.adjacent(id, since)) {
          const other = e.from === id ? e.to : e.from;
          if (!typeOk(other) && other !== q.focus) continue;
          const fresh = !picked.has(other);
          if (!take(other)) break;
          edges.push(e);
          if (fresh) next.push(other);
        }
        if (truncated) break;
      }
      frontier = next;
    }
  } else {
    for (const e of g.edgesByTime(since)) {
      if (!typeOk(e.from) || !typeOk(e.to)) continue;
      if (!take(e.from) || !take(e.to)) break;
      edges.push(e);
    }
    if (!truncated && !q.since) for (const id of g.nodeIds(q.types)) if (!picked.has(id) && !take(id)) break;
  }
  const unique = [...new Map(edges.map((e) => [`${e.from}\u0000${e.to}\u0000${e.type}`, e])).values()];
  return { ...(q.focus ? { focus: q.focus } : {}), nodes: g.nodes([...picked]), edges: unique.filter((e) => picked.has(e.from) && picked.has(e.to)), truncated };
}
