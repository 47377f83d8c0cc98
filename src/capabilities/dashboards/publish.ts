/**
 * publish_dashboard's check: each widget against its type's renderer, answered widget by widget
 * (`widget "sales": data.encoding.x.field "month" is not a column of the data (columns: m, v)`),
 * and the merge of the accepted ones into the page by id.
 */
import { checkChart } from './chart.js';
import type { DashboardDefinition, Widget, WidgetType } from './types.js';
import { checkData, kindOf } from './widget-data.js';

const WIDGET_FIELDS = ['id', 'type', 'title', 'span', 'summary', 'data', 'sources', 'status', 'error'];
const STATUSES = ['ok', 'warn', 'error'];
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface PublishCheck {
  types: Map<string, WidgetType>;
  definition: Pick<DashboardDefinition, 'layout' | 'slots' | 'widgets'>;
  /** The refs the publishing run archived; undefined when it archives none (a workflow node). */
  refs?: ReadonlySet<string>;
}

export interface Rejection {
  id: string;
  problems: string[];
}

export interface PublishResult {
  accepted: Widget[];
  rejected: Rejection[];
}

/** Checks every widget of one publish call; a widget is accepted whole or rejected with every problem. */
export function checkWidgets(widgets: unknown, check: PublishCheck): PublishResult {
  const result: PublishResult = { accepted: [], rejected: [] };
  if (!Array.isArray(widgets)) {
    result.rejected.push({ id: '(all)', problems: [`widgets must be an array of {id, type, data} (got ${kindOf(widgets)})`] });
    return result;
  }
  const seen = new Set<string>();
  widgets.forEach((raw, i) => {
    const id = raw && typeof raw === 'object' && typeof (raw as Widget).id === 'string' ? (raw as Widget).id : `#${i + 1}`;
    const problems = checkWidget(raw, i, check, seen);
    if (problems.length) result.rejected.push({ id, problems });
    else result.accepted.push(normalise(raw as Widget));
  });
  return result;
}

function checkWidget(raw: unknown, index: number, check: PublishCheck, seen: Set<string>): string[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [`widgets[${index}] must be an object {id, type, data} (got ${kindOf(raw)})`];
  const w = raw as Record<string, unknown>;
  if (typeof w.id !== 'string' || !w.id) return [`widgets[${index}] has no id; give each widget an id (letters, digits, - or _), the id of the slot it fills`];
  if (!ID.test(w.id)) return [`widgets[${index}].id "${w.id}" must be letters, digits, - or _ (at most 64)`];
  if (seen.has(w.id)) return ['appears twice in this call; send each id once'];
  seen.add(w.id);
  const out: string[] = [];
  for (const k of Object.keys(w)) if (!WIDGET_FIELDS.includes(k)) out.push(`unknown field "${k}" (fields: ${WIDGET_FIELDS.join(', ')})`);
  const { types, definition } = check;
  const allowed = definition.widgets ? [...types.keys()].filter((t) => definition.widgets!.includes(t)) : [...types.keys()];
  const slot = definition.slots.find((s) => s.id === w.id);
  const type = typeof w.type === 'string' ? types.get(w.type) : undefined;
  if (typeof w.type !== 'string' || !type) out.push(`type ${JSON.stringify(w.type ?? null)} is not a widget type (types: ${allowed.join(', ')})`);
  else if (!allowed.includes(w.type)) out.push(`type "${w.type}" is not used on this dashboard (types: ${allowed.join(', ')})`);
  else if (slot?.type && slot.type !== w.type) out.push(`type must be "${slot.type}" to fill the slot "${slot.id}" (got "${w.type}")`);
  for (const k of ['title', 'summary', 'error'] as const) {
    if (w[k] !== undefined && typeof w[k] !== 'string') out.push(`${k} must be a string (got ${kindOf(w[k])})`);
  }
  if (w.span !== undefined && !(Number.isInteger(w.span) && (w.span as number) >= 1 && (w.span as number) <= definition.layout))
    out.push(`span must be an integer from 1 to ${definition.layout} (the layout's columns) (got ${JSON.stringify(w.span)})`);
  if (w.status !== undefined && !STATUSES.includes(w.status as string)) out.push(`status must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(w.status)})`);
  if (w.sources !== undefined) {
    if (!Array.isArray(w.sources)) out.push(`sources must be an array of refs such as "t1" (got ${kindOf(w.sources)})`);
    else
      w.sources.forEach((ref, i) => {
        if (typeof ref !== 'string' || !/^t\d+$/.test(ref)) return out.push(`sources[${i}] must be a ref such as "t1", as the tool results of this run are labelled (got ${JSON.stringify(ref)})`);
        if (!check.refs) return out.push(`sources[${i}] "${ref}" cannot be cited: this run archives no tool results (only a dashboard build or a chat turn with a dashboard does)`);
        if (!check.refs.has(ref)) out.push(`sources[${i}] "${ref}" is not a source of this run (sources: ${[...check.refs].join(', ') || 'none yet'})`);
      });
  }
  if (w.data === undefined) out.push(`data is required: ${type ? type.shape : 'the shape of its type'}`);
  else if (type) out.push(...(type.renderer === 'chart' ? checkChart(w.data) : checkData(type.renderer, w.data)));
  return out;
}

/** The widget as stored: only its own fields, sources always an array. */
function normalise(w: Widget): Widget {
  const out: Widget = { id: w.id, type: w.type, data: w.data, sources: w.sources ?? [] };
  for (const k of ['title', 'span', 'summary', 'status', 'error'] as const) if (w[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = w[k];
  return out;
}

/** The widgets after a publish: by id, the new ones replacing; `replace` drops the ones not sent. Slot order first. */
export function mergeWidgets(current: Widget[], accepted: Widget[], replace: boolean, slots: { id: string }[]): Widget[] {
  const byId = new Map<string, Widget>(replace ? [] : current.map((w) => [w.id, w]));
  for (const w of accepted) byId.set(w.id, w);
  const order = slots.map((s) => s.id);
  const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  return [...byId.values()].sort((a, b) => rank(a.id) - rank(b.id));
}

/** The tool's answer: which widgets were accepted, and every problem of each rejected one. */
export function describePublish(result: PublishResult, missing: string[]): string {
  const lines: string[] = [];
  lines.push(result.accepted.length ? `accepted: ${result.accepted.map((w) => w.id).join(', ')}` : 'accepted: none');
  if (result.rejected.length) {
    lines.push(`rejected ${result.rejected.length} (fix and publish them again; accepted widgets are kept):`);
    for (const r of result.rejected) for (const p of r.problems) lines.push(`widget "${r.id}": ${p}`);
  }
  if (missing.length) lines.push(`slots still empty: ${missing.join(', ')}`);
  return lines.join('\n');
}
