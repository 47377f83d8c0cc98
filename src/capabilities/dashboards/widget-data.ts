/**
 * The data shape of each renderer but `chart` (chart.ts), checked by hand so that every problem is
 * one sentence naming the JSON path and what is allowed: a model reads these and fixes its call.
 */
import type { Renderer } from './types.js';

/** One problem: the path under the widget (`data.rows[2]`) and what is wrong there. */
export type Problem = string;

export const LIMITS = { rows: 5000, items: 500, trend: 500, markdownChars: 20_000, pairs: 200, text: 2000 };

/** The words a model reads about each renderer's data (GET /api/widgets, the build prompt). */
export const SHAPES: Record<Renderer, string> = {
  stat: '{value: number|string, unit?: string, delta?: number (change since last time), trend?: number[] (oldest first), label?: string}',
  table: '{columns: (string | {key, label?})[], rows: (cell[] | {column: cell})[]} where a cell is a string, number, boolean or null',
  list: '{items: (string | {text, detail?})[]}',
  markdown: '{text: string} (markdown; no HTML, no remote images)',
  progress: '{value: number, max?: number (default 100), label?: string}',
  kv: '{pairs: {key: string, value: string|number|boolean|null}[]}',
  chart: 'a Vega-Lite spec with the rows inline: {mark, encoding, data: {values: [{...}]}, title?, width?, height?, transform?, layer?}; no expressions anywhere (a filter or a condition test is a field predicate such as {field, equal} or {field, range})',
};

const FIELDS: Record<Exclude<Renderer, 'chart'>, string[]> = {
  stat: ['value', 'unit', 'delta', 'trend', 'label'],
  table: ['columns', 'rows'],
  list: ['items'],
  markdown: ['text'],
  progress: ['value', 'max', 'label'],
  kv: ['pairs'],
};

export const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => kindOf(v) === 'object';
const isCell = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The problems of `data` for a renderer other than chart; empty when it is well formed. */
export function checkData(renderer: Exclude<Renderer, 'chart'>, data: unknown): Problem[] {
  if (!isObject(data)) return [`data must be an object ${SHAPES[renderer]} for a ${renderer} widget (got ${kindOf(data)})`];
  const out: Problem[] = [];
  for (const key of Object.keys(data)) {
    if (!FIELDS[renderer].includes(key)) out.push(`data.${key} is not a field of a ${renderer} widget (fields: ${FIELDS[renderer].join(', ')})`);
  }
  const optionalString = (key: string) => data[key] !== undefined && typeof data[key] !== 'string' && out.push(`data.${key} must be a string (got ${kindOf(data[key])})`);
  switch (renderer) {
    case 'stat':
      if (!finite(data.value) && typeof data.value !== 'string') out.push(`data.value must be a number or a string (got ${kindOf(data.value)})`);
      optionalString('unit');
      optionalString('label');
      if (data.delta !== undefined && !finite(data.delta)) out.push(`data.delta must be a number (got ${kindOf(data.delta)})`);
      if (data.trend !== undefined) {
        if (!Array.isArray(data.trend)) out.push(`data.trend must be an array of numbers, oldest first (got ${kindOf(data.trend)})`);
        else if (data.trend.length > LIMITS.trend) out.push(`data.trend has ${data.trend.length} points; the limit is ${LIMITS.trend}`);
        else data.trend.forEach((p, i) => !finite(p) && out.push(`data.trend[${i}] must be a number (got ${kindOf(p)})`));
      }
      break;
    case 'table':
      out.push(...checkTable(data));
      break;
    case 'list':
      if (!Array.isArray(data.items)) out.push(`data.items must be an array of strings or {text, detail?} (got ${kindOf(data.items)})`);
      else if (data.items.length > LIMITS.items) out.push(`data.items has ${data.items.length} items; the limit is ${LIMITS.items}`);
      else
        data.items.forEach((item, i) => {
          if (typeof item === 'string') return;
          if (!isObject(item) || typeof item.text !== 'string') return out.push(`data.items[${i}] must be a string or {text, detail?} (got ${kindOf(item)})`);
          if (item.detail !== undefined && typeof item.detail !== 'string') out.push(`data.items[${i}].detail must be a string (got ${kindOf(item.detail)})`);
        });
      break;
    case 'markdown':
      if (typeof data.text !== 'string') out.push(`data.text must be a string of markdown (got ${kindOf(data.text)})`);
      else if (data.text.length > LIMITS.markdownChars) out.push(`data.text has ${data.text.length} characters; the limit is ${LIMITS.markdownChars} (cite the rest as a source)`);
      break;
    case 'progress': {
      optionalString('label');
      const max = data.max === undefined ? 100 : data.max;
      if (!finite(max) || max <= 0) out.push(`data.max must be a positive number (got ${JSON.stringify(data.max)})`);
      if (!finite(data.value)) out.push(`data.value must be a number (got ${kindOf(data.value)})`);
      else if (finite(max) && max > 0 && (data.value < 0 || data.value > max)) out.push(`data.value ${data.value} is outside 0..${max} (the range is 0 to data.max)`);
      break;
    }
    case 'kv':
      if (!Array.isArray(data.pairs)) out.push(`data.pairs must be an array of {key, value} (got ${kindOf(data.pairs)})`);
      else if (data.pairs.length > LIMITS.pairs) out.push(`data.pairs has ${data.pairs.length} pairs; the limit is ${LIMITS.pairs}`);
      else
        data.pairs.forEach((p, i) => {
          if (!isObject(p)) return out.push(`data.pairs[${i}] must be {key, value} (got ${kindOf(p)})`);
          if (typeof p.key !== 'string') out.push(`data.pairs[${i}].key must be a string (got ${kindOf(p.key)})`);
          if (!isCell(p.value)) out.push(`data.pairs[${i}].value must be a string, number, boolean or null (got ${kindOf(p.value)})`);
        });
      break;
  }
  return out;
}

/** The column keys of a table's `columns` (strings or {key, label?}). */
export function columnKeys(columns: unknown[]): string[] {
  return columns.map((c) => (typeof c === 'string' ? c : isObject(c) && typeof c.key === 'string' ? c.key : ''));
}

function checkTable(data: Record<string, unknown>): Problem[] {
  const out: Problem[] = [];
  if (!Array.isArray(data.columns) || data.columns.length === 0) return [`data.columns must be a non-empty array of column names or {key, label?} (got ${kindOf(data.columns)})`];
  data.columns.forEach((c, i) => {
    if (typeof c === 'string') return;
    if (!isObject(c) || typeof c.key !== 'string') out.push(`data.columns[${i}] must be a column name or {key, label?} (got ${kindOf(c)})`);
  });
  if (out.length) return out;
  const keys = columnKeys(data.columns);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined) return [`data.columns has "${twice}" twice; column names must be unique`];
  const cols = `(columns: ${keys.join(', ')})`;
  if (!Array.isArray(data.rows)) return [`data.rows must be an array of rows, each an array of cells or an object keyed by column (got ${kindOf(data.rows)})`];
  if (data.rows.length > LIMITS.rows) return [`data.rows has ${data.rows.length} rows; the limit is ${LIMITS.rows} (summarise, and cite the whole result as a source)`];
  for (const [i, row] of data.rows.entries()) {
    if (out.length >= 5) break; // a few examples teach as much as a thousand
    if (Array.isArray(row)) {
      if (row.length !== keys.length) out.push(`data.rows[${i}] has ${row.length} cells but there are ${keys.length} columns ${cols}`);
      row.forEach((cell, j) => !isCell(cell) && out.push(`data.rows[${i}][${j}] must be a string, number, boolean or null (got ${kindOf(cell)})`));
    } else if (isObject(row)) {
      for (const [k, cell] of Object.entries(row)) {
        if (!keys.includes(k)) out.push(`data.rows[${i}].${k} is not a column ${cols}`);
        else if (!isCell(cell)) out.push(`data.rows[${i}].${k} must be a string, number, boolean or null (got ${kindOf(cell)})`);
      }
    } else out.push(`data.rows[${i}] must be an array of cells or an object keyed by column (got ${kindOf(row)})`);
  }
  return out;
}
