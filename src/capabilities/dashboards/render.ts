/**
 * The page a person looks at (GET /api/dashboards/<id>/doc with Accept: text/html): one
 * self-contained HTML file, no script at all (its Content-Security-Policy forbids any), charts drawn
 * as SVG in the chart worker (chart-draw.ts) after the chart grammar checked them again, markdown
 * made safe (markdown.ts), and under each widget the sources it cites, linked to their text.
 */
import { SELF_CONTAINED_PAGE } from '../../http/framing.js';
import { LIMITS } from '../../kernel/limits.js';
import { checkChart } from './chart.js';
import { ChartLimitError, drawChart } from './chart-draw.js';
import { escapeHtml as esc, renderMarkdown } from './markdown.js';
import type { BuildOutcome, DashboardDefinition, DashboardDocument, Renderer, Widget, WidgetType } from './types.js';
import { columnKeys } from './widget-data.js';

/**
 * Drawn charts by content (spec and width): a page is read far more often than it is built, and a
 * chart is the costly part of it (~20 ms each), so reading the same page again draws nothing. A
 * chart stopped at a limit is remembered too, for a while: every view would only spend the limit
 * again, but a machine busy at that moment may have been the cause.
 */
const drawn = new Map<string, Promise<string>>();
const DRAWN_KEPT = 64;

/** A chart's SVG, drawn in the worker; a chart outside the grammar (stored before it) is not drawn. */
export function chartSvg(spec: Record<string, unknown>, width: number): Promise<string> {
  const key = `${width}\u0000${JSON.stringify(spec)}`;
  const known = drawn.get(key);
  if (known) return known;
  const problems = checkChart(spec, { compile: false });
  const svg = problems.length ? Promise.reject(new Error(`this chart is outside the chart grammar and is not drawn: ${problems.slice(0, 3).join('; ')}`)) : drawChart(spec, width);
  const forget = () => drawn.get(key) === svg && drawn.delete(key);
  svg.catch((err) => (err instanceof ChartLimitError ? setTimeout(forget, LIMITS.chartStoppedKeptMs).unref() : forget()));
  if (drawn.size >= DRAWN_KEPT) drawn.delete(drawn.keys().next().value!);
  drawn.set(key, svg);
  return svg;
}

const num = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : esc(String(v ?? '')));
const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? num(v) : esc(String(v)));

function sparkline(points: number[]): string {
  if (points.length < 2) return '';
  const min = Math.min(...points);
  const span = Math.max(...points) - min || 1;
  const xy = points.map((p, i) => `${((i / (points.length - 1)) * 100).toFixed(1)},${(28 - ((p - min) / span) * 26).toFixed(1)}`).join(' ');
  return `<svg class="spark" viewBox="0 0 100 30" preserveAspectRatio="none"><polyline points="${xy}" fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke"/></svg>`;
}

/** The body of one widget by its renderer (the data was checked when it was published). */
async function body(renderer: Renderer, data: Record<string, any>, width: number): Promise<string> {
  switch (renderer) {
    case 'stat': {
      const delta = typeof data.delta === 'number' ? `<span class="delta ${data.delta > 0 ? 'up' : data.delta < 0 ? 'down' : ''}">${data.delta > 0 ? '▲' : data.delta < 0 ? '▼' : '■'} ${num(Math.abs(data.delta))}</span>` : '';
      return `<div class="stat"><span class="value">${num(data.value)}</span>${data.unit ? `<span class="unit">${esc(data.unit)}</span>` : ''}${delta}</div>${data.label ? `<div class="label">${esc(data.label)}</div>` : ''}${Array.isArray(data.trend) ? sparkline(data.trend) : ''}`;
    }
    case 'table': {
      const keys = columnKeys(data.columns);
      const head = data.columns.map((c: any) => `<th>${esc(typeof c === 'string' ? c : (c.label ?? c.key))}</th>`).join('');
      const rows = data.rows.map((r: any) => `<tr>${keys.map((k, i) => `<td>${cell(Array.isArray(r) ? r[i] : r[k])}</td>`).join('')}</tr>`).join('');
      return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
    }
    case 'list':
      return `<ul class="list">${data.items.map((i: any) => (typeof i === 'string' ? `<li>${esc(i)}</li>` : `<li>${esc(i.text)}${i.detail ? `<small>${esc(i.detail)}</small>` : ''}</li>`)).join('')}</ul>`;
    case 'markdown':
      return `<div class="md">${renderMarkdown(data.text)}</div>`;
    case 'progress': {
      const max = data.max ?? 100;
      const pct = Math.max(0, Math.min(100, (data.value / max) * 100));
      return `<div class="progress"><div style="width:${pct.toFixed(1)}%"></div></div><div class="label">${data.label ? esc(data.label) + ' · ' : ''}${num(data.value)} / ${num(max)}</div>`;
    }
    case 'kv':
      return `<dl class="kv">${data.pairs.map((p: any) => `<dt>${esc(p.key)}</dt><dd>${cell(p.value)}</dd>`).join('')}</dl>`;
    case 'chart':
      return `<div class="chart">${await chartSvg(data, width)}</div>`;
  }
}

async function widgetHtml(id: string, w: Widget, type: WidgetType | undefined, columns: number, span: number): Promise<string> {
  let inner: string;
  try {
    inner = type ? await body(type.renderer, w.data as Record<string, any>, Math.max(160, Math.round((span / columns) * 1100) - 40)) : `<p class="error">unknown widget type "${esc(w.type)}"</p>`;
  } catch (err) {
    inner = `<p class="error">could not draw this widget: ${esc((err as Error).message)}</p>`;
  }
  const run = w.runId ? `?run=${encodeURIComponent(w.runId)}` : '';
  const sources = w.sources.length ? `<footer>sources: ${w.sources.map((s) => `<a href="/api/dashboards/${encodeURIComponent(id)}/source/${encodeURIComponent(s)}${run}">${esc(s)}</a>`).join(' ')}</footer>` : '';
  const status = w.status && w.status !== 'ok' ? ` ${w.status}` : w.error ? ' error' : '';
  return `<section class="widget${status}" style="grid-column: span ${span}" id="w-${esc(w.id)}">
<h2>${esc(w.title ?? w.id)}</h2>${w.error ? `<p class="error">${esc(w.error)}</p>` : ''}${inner}${w.summary ? `<p class="summary">${esc(w.summary)}</p>` : ''}${sources}</section>`;
}

export interface PageInput {
  id: string;
  definition: DashboardDefinition;
  document: DashboardDocument;
  lastBuild?: BuildOutcome;
  types: Map<string, WidgetType>;
}

/** A time a person reads: the engine's own zone (it runs on their computer), the exact instant on hover. */
function when(iso: string): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return esc(iso);
  const shown = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(t);
  return `<time datetime="${esc(t.toISOString())}" title="${esc(t.toISOString())}">${esc(shown)}</time>`;
}

export async function renderPage({ id, definition, document, lastBuild, types }: PageInput): Promise<string> {
  const columns = definition.layout;
  const slotSpan = new Map(definition.slots.map((s) => [s.id, s.span]));
  const widgets = await Promise.all(
    document.widgets.map((w) => {
      const type = types.get(w.type);
      const span = Math.min(columns, w.span ?? slotSpan.get(w.id) ?? type?.span ?? 1);
      return widgetHtml(id, w, type, columns, span);
    }),
  );
  const failed = lastBuild && lastBuild.status === 'failed' && lastBuild.runId !== document.runId ? `<p class="banner">The last build failed (${when(lastBuild.at)}): ${esc(lastBuild.error ?? 'no reason given')}.</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${SELF_CONTAINED_PAGE}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(document.title)}</title>
<style>${CSS}
main { grid-template-columns: repeat(${columns}, minmax(0, 1fr)); }</style></head>
<body><header><h1>${definition.icon ? `${esc(definition.icon)} ` : ''}${esc(document.title)}</h1>${document.subtitle ? `<p>${esc(document.subtitle)}</p>` : ''}<p class="meta" title="run ${esc(document.runId)}">built ${when(document.builtAt)}</p></header>
${failed}<main>
${widgets.join('\n')}
</main></body></html>
`;
}

const CSS = `
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2330; }
header h1 { margin: 0 0 4px; font-size: 22px; } header p { margin: 0; color: #5b6475; } header .meta { font-size: 12px; margin-bottom: 16px; }
main { display: grid; gap: 16px; }
.widget { background: #fff; border: 1px solid #e1e4ea; border-radius: 10px; padding: 14px 16px; min-width: 0; overflow: hidden; }
.widget h2 { margin: 0 0 8px; font-size: 13px; font-weight: 600; color: #5b6475; text-transform: uppercase; letter-spacing: .03em; }
.widget.error { border-color: #e5a1a1; } .widget.warn { border-color: #e8c872; }
.stat { display: flex; align-items: baseline; gap: 8px; flex-wrap: wrap; }
.stat .value { font-size: 34px; font-weight: 700; } .stat .unit { color: #5b6475; font-size: 16px; }
.delta { font-size: 13px; font-weight: 600; color: #5b6475; } .delta.up { color: #1a7f37; } .delta.down { color: #c62828; }
.spark { width: 100%; height: 30px; color: #3b6fd8; margin-top: 6px; }
.label { color: #5b6475; font-size: 12px; }
.scroll { overflow-x: auto; } table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #eef0f3; } th { color: #5b6475; font-weight: 600; }
.list { margin: 0; padding-left: 18px; } .list small { display: block; color: #5b6475; }
.progress { height: 10px; background: #eef0f3; border-radius: 5px; overflow: hidden; margin: 8px 0 4px; } .progress div { height: 100%; background: #3b6fd8; }
.kv { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 0; } .kv dt { color: #5b6475; } .kv dd { margin: 0; font-weight: 600; }
.chart svg { width: 100%; height: auto; }
.md p { margin: 0 0 8px; } .md h3, .md h4 { margin: 4px 0; } .md pre { background: #f4f5f7; padding: 8px; overflow-x: auto; } .md .removed { color: #8a93a5; }
.summary { color: #5b6475; font-size: 12px; margin: 8px 0 0; }
p.error { color: #c62828; margin: 0 0 6px; }
footer { margin-top: 10px; font-size: 11px; color: #8a93a5; } footer a { color: #3b6fd8; margin-right: 6px; }
.banner { background: #fdecea; border: 1px solid #e5a1a1; color: #8e1c1c; padding: 10px 14px; border-radius: 8px; }
`;
