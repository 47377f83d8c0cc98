/**
 * Chart widgets: a Vega-Lite spec with its rows inline. Checked in three steps, never against the
 * full Vega-Lite JSON schema (compiling it takes ~10 s): a small shape of our own (the subset the page
 * renders, and nothing that runs an expression or loads a URL on the server), a check that every
 * encoded field is a column of the data, then vega-lite's own compile (loaded on first use).
 */
import { lazyRequire } from '../../kernel/lazy-require.js';
import { kindOf, type Problem } from './widget-data.js';

type VegaLite = typeof import('vega-lite');
export const requireVegaLite = lazyRequire<VegaLite>('vega-lite');

/** vega-lite writes its warnings to the console unless given a logger: they are not the engine's log. */
const quiet = { level: () => quiet, error: () => quiet, warn: () => quiet, info: () => quiet, debug: () => quiet };
/** Compiles a Vega-Lite spec to Vega, silently (throws vega-lite's error). */
export const compileVegaLite = (spec: unknown) => requireVegaLite().compile(spec as never, { logger: quiet as never }).spec;

/**
 * Whether a spec compiles, remembered by its shape: the compile never reads the rows, so it runs on
 * the spec without them (its cost then does not grow with the data), and a dashboard that publishes
 * the same chart with new numbers at every refresh compiles it once.
 */
const compiled = new Map<string, string | null>();
const COMPILED_KEPT = 256;
function compileError(spec: Record<string, unknown>): string | null {
  const shape = { ...spec, data: { ...(spec.data as object), values: [] } };
  const key = JSON.stringify(shape);
  let error = compiled.get(key);
  if (error === undefined) {
    try {
      compileVegaLite(shape);
      error = null;
    } catch (err) {
      error = (err as Error).message.split('\n')[0];
    }
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, error);
  }
  return error;
}

const TOP = ['$schema', 'title', 'description', 'width', 'height', 'mark', 'encoding', 'data', 'transform', 'layer', 'config', 'autosize', 'padding', 'background', 'view', 'resolve'];
const LAYER = ['mark', 'encoding', 'transform', 'title', 'description', 'width', 'height'];
export const MARKS = ['bar', 'line', 'area', 'point', 'circle', 'square', 'tick', 'rule', 'rect', 'arc', 'text', 'trail', 'boxplot', 'errorbar', 'errorband'];
const TYPES = ['quantitative', 'ordinal', 'nominal', 'temporal'];
/** Transforms that compute from fields only (no expression string, no lookup of outside data). */
const TRANSFORMS = ['aggregate', 'bin', 'timeUnit', 'fold', 'window', 'joinaggregate', 'stack', 'density', 'regression', 'loess', 'quantile', 'pivot', 'flatten', 'filter'];
/** Channels whose values would reach outside the page (links, images). */
const FORBIDDEN_CHANNELS = ['href', 'url'];
export const LIMIT_VALUES = 5000;

const isObject = (v: unknown): v is Record<string, unknown> => kindOf(v) === 'object';

/** The problems of a chart's spec; empty when it compiles and every encoded field is a column. */
export function checkChart(spec: unknown): Problem[] {
  if (!isObject(spec)) return [`data must be a Vega-Lite spec object {mark, encoding, data: {values: [...]}} (got ${kindOf(spec)})`];
  const out: Problem[] = [];
  for (const key of Object.keys(spec)) if (!TOP.includes(key)) out.push(`data.${key} is not a Vega-Lite field this engine renders (fields: ${TOP.join(', ')})`);
  out.push(...forbiddenKeys(spec, 'data'));
  const values = isObject(spec.data) ? spec.data.values : undefined;
  if (!isObject(spec.data) || !Array.isArray(values)) {
    out.push(`data.data.values must be an array of row objects: the chart's rows inline (data.url and named datasets are not loaded; the page is self-contained)`);
    return out;
  }
  for (const key of Object.keys(spec.data)) if (key !== 'values' && key !== 'name' && key !== 'format') out.push(`data.data.${key} is not allowed (the data is {values: [...]} only)`);
  if (values.length > LIMIT_VALUES) out.push(`data.data.values has ${values.length} rows; the limit is ${LIMIT_VALUES} (aggregate first, and cite the whole result as a source)`);
  const bad = values.findIndex((r) => !isObject(r));
  if (bad >= 0) out.push(`data.data.values[${bad}] must be an object of column values (got ${kindOf(values[bad])})`);
  if (out.length) return out;
  const columns = new Set<string>();
  for (const row of values.slice(0, 200) as Record<string, unknown>[]) for (const k of Object.keys(row)) columns.add(k);
  const layers: Array<[string, Record<string, unknown>]> = [];
  if (spec.layer !== undefined) {
    if (!Array.isArray(spec.layer) || !spec.layer.length) return [...out, `data.layer must be a non-empty array of {mark, encoding} (got ${kindOf(spec.layer)})`];
    spec.layer.forEach((l, i) => {
      if (!isObject(l)) return out.push(`data.layer[${i}] must be {mark, encoding} (got ${kindOf(l)})`);
      for (const key of Object.keys(l)) if (!LAYER.includes(key)) out.push(`data.layer[${i}].${key} is not allowed in a layer (fields: ${LAYER.join(', ')})`);
      layers.push([`data.layer[${i}]`, l]);
    });
  } else layers.push(['data', spec]);
  // Transforms at the top add columns every layer can use.
  const top = checkTransforms(spec.transform, 'data', columns, out);
  for (const [where, unit] of layers) {
    const own = new Set(top);
    if (where !== 'data') checkTransforms(unit.transform, where, own, out);
    checkMark(unit.mark, where, out);
    checkEncoding(unit.encoding, where, own, out);
  }
  if (out.length) return out;
  const error = compileError(spec);
  if (error !== null) out.push(`data does not compile as Vega-Lite: ${error}`);
  return out;
}

/** Keys that run an expression or load something on the server, anywhere in the spec. */
function forbiddenKeys(value: unknown, where: string): Problem[] {
  const out: Problem[] = [];
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}[${i}]`));
    if (!isObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      const here = `${at}.${k}`;
      if (k === 'expr' || k === 'signal' || k === 'calculate' || k === 'params' || k === 'selection' || /Expr$/.test(k)) out.push(`${here} is not allowed: expressions do not run on the server`);
      else if (k === 'url' || k === 'datasets') out.push(`${here} is not allowed: the chart's data must be inline in data.values`);
      else walk(x, here);
    }
  };
  walk(value, where);
  return out;
}

function checkMark(mark: unknown, where: string, out: Problem[]): void {
  const type = isObject(mark) ? mark.type : mark;
  if (type === undefined) out.push(`${where}.mark is required (marks: ${MARKS.join(', ')})`);
  else if (typeof type !== 'string' || !MARKS.includes(type)) out.push(`${where}.mark ${JSON.stringify(type)} is not a mark (marks: ${MARKS.join(', ')})`);
}

function checkEncoding(encoding: unknown, where: string, columns: Set<string>, out: Problem[]): void {
  if (encoding === undefined) return;
  if (!isObject(encoding)) return void out.push(`${where}.encoding must be an object of channels such as x, y, color (got ${kindOf(encoding)})`);
  const cols = `(columns: ${[...columns].join(', ')})`;
  for (const [channel, defs] of Object.entries(encoding)) {
    if (FORBIDDEN_CHANNELS.includes(channel)) {
      out.push(`${where}.encoding.${channel} is not allowed: a dashboard page links nowhere outside itself`);
      continue;
    }
    // tooltip and detail may carry a list of field definitions.
    const list = Array.isArray(defs) ? defs.map((d, i) => [`${where}.encoding.${channel}[${i}]`, d] as const) : [[`${where}.encoding.${channel}`, defs] as const];
    for (const [at, def] of list) {
      if (!isObject(def)) {
        out.push(`${at} must be a field definition {field, type} or {value} (got ${kindOf(def)})`);
        continue;
      }
      if (def.field !== undefined) {
        if (typeof def.field !== 'string') out.push(`${at}.field must be a column name (got ${kindOf(def.field)})`);
        else if (!columns.has('*') && !columns.has(def.field) && !columns.has(def.field.split('.')[0])) out.push(`${at}.field "${def.field}" is not a column of the data ${cols}`);
      }
      if (def.type !== undefined && (typeof def.type !== 'string' || !TYPES.includes(def.type))) out.push(`${at}.type must be one of ${TYPES.join(', ')} (got ${JSON.stringify(def.type)})`);
    }
  }
}

/** Checks a transform list and adds the columns it produces to `columns`; returns the set. */
function checkTransforms(transforms: unknown, where: string, columns: Set<string>, out: Problem[]): Set<string> {
  if (transforms === undefined) return columns;
  if (!Array.isArray(transforms)) {
    out.push(`${where}.transform must be an array (got ${kindOf(transforms)})`);
    return columns;
  }
  transforms.forEach((t, i) => {
    const at = `${where}.transform[${i}]`;
    const op = isObject(t) ? TRANSFORMS.find((name) => name in t) : undefined;
    if (!isObject(t) || !op) return out.push(`${at} must be one of the transforms ${TRANSFORMS.join(', ')} (expressions such as calculate do not run on the server)`);
    if (op === 'filter' && !isObject(t.filter)) return out.push(`${at}.filter must be a field predicate such as {field, equal} or {field, range} (an expression string does not run on the server)`);
    // Columns a transform produces: its `as` names, and fold's key/value by default.
    const as = t.as;
    for (const name of Array.isArray(as) ? as : [as]) if (typeof name === 'string') columns.add(name);
    if (op === 'fold' && as === undefined) ['key', 'value'].forEach((c) => columns.add(c));
    for (const list of [t.aggregate, t.window, t.joinaggregate]) if (Array.isArray(list)) for (const a of list) if (isObject(a) && typeof a.as === 'string') columns.add(a.as);
    if (op === 'pivot' && typeof t.pivot === 'string') columns.add('*'); // pivot's columns are the data's values: fields are not checked after it
  });
  return columns;
}
