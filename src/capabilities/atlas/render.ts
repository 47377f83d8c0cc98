/**
 * The atlas as a page a person can read (GET /api/atlas/<id>/doc with Accept: text/html): each
 * graph view laid out on the server with dagre and drawn as SVG (node size by rank, edge width by
 * weight, dashed for evidence edges), every node linked to its card below; flow views as numbered
 * steps; cards with their facts. Self-contained: no script, no remote resource.
 */
import type * as Dagre from '@dagrejs/dagre';
import { lazyRequire } from '../../kernel/lazy-require.js';
import type { AtlasDocument, Card, View } from './types.js';

// Loaded on the first page drawn, never at start (bench/memory, test/foundation/lazy-load).
const loadDagre = lazyRequire<typeof Dagre>('@dagrejs/dagre');

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const anchor = (unit: string) => `card-${unit.replace(/[^\w-]/g, '_')}`;

function graphSvg(view: View, rank: Map<string, number>): string {
  const dagre = loadDagre();
  const g = new dagre.graphlib.Graph();
  // Top to bottom: a map of many units stays as wide as a page and grows downwards.
  g.setGraph({ rankdir: 'TB', nodesep: 14, ranksep: 48, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  const top = Math.max(1e-9, ...[...rank.values()]);
  for (const n of view.nodes ?? []) {
    const r = n.unit ? (rank.get(n.unit) ?? 0) / top : 0.3;
    g.setNode(n.id, { width: Math.max(90, n.label.length * 7 + 24), height: 28 + Math.round(r * 22), label: n.label, unit: n.unit });
  }
  for (const e of view.edges ?? []) if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to, { weight: e.weight ?? 1, kind: e.kind });
  dagre.layout(g);
  const { width = 100, height = 100 } = g.graph();
  const edges = g.edges().map((ed: { v: string; w: string }) => {
    const e = g.edge(ed) as { points: Array<{ x: number; y: number }>; weight: number; kind: string };
    const d = e.points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    return `<path d="${d}" class="edge${e.kind === 'evidence' ? ' evidence' : ''}" style="stroke-width:${Math.min(4, 0.8 + Math.log2(e.weight) / 2).toFixed(1)}" marker-end="url(#arrow)"/>`;
  });
  const nodes = g.nodes().map((id: string) => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number; label: string; unit?: string };
    const box = `<rect x="${(n.x - n.width / 2).toFixed(1)}" y="${(n.y - n.height / 2).toFixed(1)}" width="${n.width}" height="${n.height}" rx="6"/><text x="${n.x.toFixed(1)}" y="${(n.y + 4).toFixed(1)}">${esc(n.label)}</text>`;
    return n.unit ? `<a href="#${anchor(n.unit)}" class="node">${box}</a>` : `<g class="node">${box}</g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${Math.ceil(width)} ${Math.ceil(height)}" width="${Math.ceil(width)}" height="${Math.ceil(height)}" role="img" aria-label="${esc(view.title)}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8a94a6"/></marker></defs>${edges.join('')}${nodes.join('')}</svg>`;
}

function cardHtml(c: Card): string {
  const list = (title: string, items: string[]) => (items.length ? `<dt>${esc(title)}</dt><dd>${items.map(esc).join(', ')}</dd>` : '');
  return `<section class="card" id="${anchor(c.unit)}"><h3>${esc(c.unit)} <small>${esc(c.kind)} · ${c.lines} lines · ${c.source === 'survey' ? 'surveyed' : 'from the code'}</small></h3><p>${esc(c.role)}</p><dl>${list('Public surface', c.publicSurface.slice(0, 40))}${list('Imports', c.dependencies.imports)}${list('External', c.dependencies.external)}${list('Stores', c.dependencies.stores)}${list('Emits', c.dependencies.emits)}${list('Consumes', c.dependencies.consumes)}${list('Entry points', c.entryPoints)}${list('Uncertain', c.uncertain)}${list('Files', c.files)}</dl></section>`;
}

export function renderAtlasPage(doc: AtlasDocument, stale: string[] = []): string {
  const rank = new Map(doc.units.map((u) => [u.id, u.rank]));
  const views = doc.views
    .map((v) => {
      const body = v.kind === 'graph' ? graphSvg(v, rank) : `<ol class="steps">${(v.steps ?? []).map((s) => `<li><a href="#${anchor(s.node)}">${esc(s.node)}</a>: ${esc(s.text)}</li>`).join('')}</ol>`;
      return `<section class="view"><h2>${esc(v.title)}</h2>${v.guide ? `<p class="guide">${esc(v.guide)}</p>` : ''}<div class="canvas">${body}</div></section>`;
    })
    .join('');
  const staleNote = stale.length ? `<p class="stale">Changed since their card: ${stale.map(esc).join(', ')}</p>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(doc.title)}</title><style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{padding:18px 28px;background:#fff;border-bottom:1px solid #e3e6eb}h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#5b6475}
main{padding:20px 28px;max-width:1200px}.view,.card{background:#fff;border:1px solid #e3e6eb;border-radius:8px;padding:14px 18px;margin:0 0 16px}
h2{font-size:16px;margin:0 0 6px}.guide{color:#5b6475;margin:0 0 10px}.canvas{overflow:auto}
svg .edge{fill:none;stroke:#8a94a6;stroke-opacity:.55}svg .edge.evidence{stroke-dasharray:5 4}svg rect{fill:#eef3ff;stroke:#5b7bd5}svg a:hover rect{fill:#dbe6ff}
svg text{font:12px system-ui,sans-serif;text-anchor:middle;fill:#1d2330}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:14px}
.card h3{margin:0 0 4px;font-size:14px}.card small{color:#5b6475;font-weight:normal}.card dl{margin:6px 0 0}.card dt{font-weight:600;margin-top:4px}.card dd{margin:0;color:#39414f;word-break:break-word}
.stale{color:#9a5b00}.steps li{margin:4px 0}</style></head><body><header><h1>${esc(doc.title)}</h1><p>${esc(doc.scope.join(', ') || 'workspace')} · ${doc.units.length} units · ${doc.kind === 'standard' ? 'standard brief (from the code, no model)' : 'surveyed'} · built ${esc(new Date(doc.builtAt).toISOString())}</p>${staleNote}</header><main>${views}<h2>Cards</h2><div class="cards">${doc.cards.map(cardHtml).join('')}</div></main></body></html>`;
}
