/** PageRank over a weighted directed graph (Aider's repo map ranks files the same way). */
export function pageRank(nodes: string[], edges: Array<{ from: string; to: string; weight: number }>, damping = 0.85, iterations = 40): Map<string, number> {
  const n = nodes.length;
  const rank = new Map(nodes.map((id) => [id, 1 / Math.max(1, n)]));
  if (!n) return rank;
  const out = new Map<string, number>();
  for (const e of edges) out.set(e.from, (out.get(e.from) ?? 0) + e.weight);
  for (let i = 0; i < iterations; i++) {
    const next = new Map(nodes.map((id) => [id, (1 - damping) / n]));
    // Units that import nothing spread their rank evenly (the usual dangling-node rule).
    let dangling = 0;
    for (const id of nodes) if (!out.get(id)) dangling += rank.get(id)!;
    for (const id of nodes) next.set(id, next.get(id)! + (damping * dangling) / n);
    for (const e of edges) next.set(e.to, next.get(e.to)! + (damping * rank.get(e.from)! * e.weight) / out.get(e.from)!);
    for (const [id, v] of next) rank.set(id, v);
  }
  return rank;
}
