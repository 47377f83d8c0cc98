/**
 * The brain's graph in memory: typed nodes (`run:<id>`, `file:<path>` ...) and timed edges, with
 * an adjacency index so a focused query walks only what it returns. Queries never read a run log.
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

export class BrainGraph {
  readonly nodes = new Map<string, BrainNode>();
  private readonly edges: BrainEdge[] = [];
  private readonly adjacent = new Map<string, number[]>();
  /** One edge per (from, to, type): repeats only move its time forward. */
  private readonly edgeIndex = new Map<string, number>();

  /** Adds or updates a node; answers whether anything changed. */
  node(n: BrainNode): boolean {
    const old = this.nodes.get(n.id);
    if (!old) {
      this.nodes.set(n.id, { ...n });
      return true;
    }
    const data = n.data ? { ...old.data, ...n.data } : old.data;
    const changed = n.label !== old.label || JSON.stringify(data) !== JSON.stringify(old.data);
    if (changed) this.nodes.set(n.id, { ...old, label: n.label || old.label, data });
    return changed;
  }

  /** Adds an edge, or moves a repeated one's time forward; answers whether it is new or later. */
  edge(e: BrainEdge): boolean {
    const key = `${e.from}\u0000${e.to}\u0000${e.type}`;
    const at = this.edgeIndex.get(key);
    if (at !== undefined) {
      if (this.edges[at].at >= e.at) return false;
      this.edges[at] = { ...this.edges[at], at: e.at, ...(e.runId ? { runId: e.runId } : {}) };
      return true;
    }
    this.edgeIndex.set(key, this.edges.length);
    for (const end of [e.from, e.to]) {
      let list = this.adjacent.get(end);
      if (!list) this.adjacent.set(end, (list = []));
      list.push(this.edges.length);
    }
    this.edges.push({ ...e });
    return true;
  }

  get size(): { nodes: number; edges: number } {
    return { nodes: this.nodes.size, edges: this.edges.length };
  }

  query(q: BrainQuery): BrainAnswer {
    const since = q.since ?? 0;
    const typeOk = (id: string) => !q.types || q.types.includes(this.nodes.get(id)?.type as NodeType);
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
      // Breadth first from the focus, newest edges first, never past the cap.
      take(q.focus);
      let frontier = [q.focus];
      for (let d = 0; d < (q.depth ?? 1) && frontier.length && !truncated; d++) {
        const next: string[] = [];
        for (const id of frontier) {
          const list = (this.adjacent.get(id) ?? []).map((i) => this.edges[i]).filter((e) => e.at >= since).sort((a, b) => b.at - a.at);
          for (const e of list) {
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
      // The whole graph, newest activity first.
      for (const e of [...this.edges].filter((e) => e.at >= since).sort((a, b) => b.at - a.at)) {
        if (!typeOk(e.from) || !typeOk(e.to)) continue;
        if (!take(e.from) || !take(e.to)) break;
        edges.push(e);
      }
      if (!truncated && !q.since) for (const n of this.nodes.values()) if (typeOk(n.id) && !picked.has(n.id) && !take(n.id)) break;
    }
    const unique = [...new Map(edges.map((e) => [`${e.from}\u0000${e.to}\u0000${e.type}`, e])).values()];
    return { ...(q.focus ? { focus: q.focus } : {}), nodes: [...picked].flatMap((id) => this.nodes.get(id) ?? []), edges: unique.filter((e) => picked.has(e.from) && picked.has(e.to)), truncated };
  }
}
