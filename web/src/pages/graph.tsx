/**
 * The drawing of a workflow: nodes in layers left to right (a node's layer is its longest path from
 * a node nothing points at), edges as curves labelled with their branch. A node is a button when the
 * page gives `onSelect` (it opens the node); the selected one and those the engine's checks name are
 * marked.
 */
interface Node {
  id: string;
  type: string;
}
interface Edge {
  from: string;
  to: string;
  when?: string;
}

const W = 150;
const H = 44;
const GX = 70;
const GY = 22;

export function layout(nodes: Node[], edges: Edge[]): Map<string, { x: number; y: number }> {
  const layer = new Map<string, number>(nodes.map((n) => [n.id, 0]));
  // Longest path by relaxation, bounded by the node count (a cycle cannot loop forever).
  for (let i = 0; i < nodes.length; i++) {
    let moved = false;
    for (const e of edges) {
      const next = (layer.get(e.from) ?? 0) + 1;
      if (layer.has(e.to) && next > layer.get(e.to)! && next < nodes.length) {
        layer.set(e.to, next);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const rows = new Map<number, number>();
  const pos = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const l = layer.get(n.id)!;
    const r = rows.get(l) ?? 0;
    rows.set(l, r + 1);
    pos.set(n.id, { x: 10 + l * (W + GX), y: 10 + r * (H + GY) });
  }
  return pos;
}

export function Graph({ nodes, edges, selected, flagged, onSelect }: { nodes: Node[]; edges: Edge[]; selected?: string | null; flagged?: ReadonlySet<string>; onSelect?: (id: string) => void }) {
  const pos = layout(nodes, edges);
  let width = 0;
  let height = 0;
  for (const p of pos.values()) {
    width = Math.max(width, p.x + W + 10);
    height = Math.max(height, p.y + H + 10);
  }
  return (
    <svg class="graph" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label="workflow graph">
      {edges.map((e, i) => {
        const a = pos.get(e.from);
        const b = pos.get(e.to);
        if (!a || !b) return null;
        const x1 = a.x + W;
        const y1 = a.y + H / 2;
        const x2 = b.x;
        const y2 = b.y + H / 2;
        const mx = (x1 + x2) / 2;
        return (
          <g key={i} class="edge">
            <path d={`M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`} fill="none" />
            {e.when && (
              <text x={mx} y={(y1 + y2) / 2 - 4} text-anchor="middle">
                {e.when}
              </text>
            )}
          </g>
        );
      })}
      {nodes.map((n) => {
        const p = pos.get(n.id)!;
        return (
          <g
            key={n.id}
            class={`node ${n.type.split('.')[0]} ${n.id === selected ? 'selected' : ''} ${flagged?.has(n.id) ? 'flagged' : ''} ${onSelect ? 'clickable' : ''}`}
            transform={`translate(${p.x},${p.y})`}
            data-node={n.id}
            {...(onSelect ? { role: 'button', tabIndex: 0, 'aria-label': `open node ${n.id}`, onClick: () => onSelect(n.id), onKeyDown: (e: KeyboardEvent) => (e.key === 'Enter' || e.key === ' ') && onSelect(n.id) } : {})}
          >
            <title>{`${n.id} (${n.type})`}</title>
            <rect width={W} height={H} rx={8} />
            <text x={10} y={18} class="node-id">{n.id.length > 18 ? n.id.slice(0, 17) + '…' : n.id}</text>
            <text x={10} y={34} class="node-type">{n.type}</text>
          </g>
        );
      })}
    </svg>
  );
}
