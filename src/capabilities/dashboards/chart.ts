/**
 * Chart widgets: a Vega-Lite spec with its rows inline. Checked in three steps, never against the
 * full Vega-Lite JSON schema (compiling it takes ~10 s): the engine's closed grammar
 * (chart-grammar.ts: only known keys and values, no expression anywhere, nothing loaded), a check
 * that every encoded field is a column of the data, then vega-lite's own compile (loaded on first use).
 * The same check runs again before a stored chart is drawn (render.ts), so a chart stored before
 * the grammar existed is never drawn unless it passes it.
 */
import { lazyRequire } from '../../kernel/lazy-require.js';
import { MARKS, spec as grammar } from './chart-grammar.js';
import { checkRule } from './chart-rules.js';
import { kindOf, type Problem } from './widget-data.js';

type VegaLite = typeof import('vega-lite');
const requireVegaLite = lazyRequire<VegaLite>('vega-lite');

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

const isObject = (v: unknown): v is Record<string, unknown> => kindOf(v) === 'object';

/**
 * The problems of a chart's spec; empty when it is in the grammar, every encoded field is a column,
 * and it compiles. `compile: false` leaves out the compile (the page: the worker compiles it anyway,
 * off the engine's thread, and says so when it does not compile).
 */
export function checkChart(spec: unknown, { compile = true } = {}): Problem[] {
  if (!isObject(spec)) return [`data must be a Vega-Lite spec object {mark, encoding, data: {values: [...]}} (got ${kindOf(spec)})`];
  const out: Problem[] = [];
  checkRule(grammar, spec, 'data', out);
  if (spec.data === undefined) out.push(`data.data is required: {values: [...]}, the chart's rows inline`);
  if (spec.mark === undefined && spec.layer === undefined) out.push(`data.mark is required (marks: ${MARKS.join(', ')}), or data.layer`);
  if (out.length) return out;
  const values = (spec.data as { values: Record<string, unknown>[] }).values;
  const columns = new Set<string>();
  for (const row of values.slice(0, 200)) for (const k of Object.keys(row)) columns.add(k);
  const layers: Array<[string, Record<string, unknown>]> = Array.isArray(spec.layer) ? spec.layer.map((l, i) => [`data.layer[${i}]`, l as Record<string, unknown>]) : [['data', spec]];
  // Transforms at the top add columns every layer can use.
  const top = producedColumns(spec.transform, columns);
  for (const [where, unit] of layers) {
    const own = where === 'data' ? top : producedColumns(unit.transform, new Set(top));
    checkFields(unit.encoding, where, own, out);
  }
  if (out.length || !compile) return out;
  const error = compileError(spec);
  if (error !== null) out.push(`data does not compile as Vega-Lite: ${error}`);
  return out;
}

/** Every encoded `field` must be a column (or one a transform makes); the grammar checked the rest. */
function checkFields(encoding: unknown, where: string, columns: Set<string>, out: Problem[]): void {
  if (!isObject(encoding) || columns.has('*')) return;
  const cols = `(columns: ${[...columns].join(', ')})`;
  for (const [channel, defs] of Object.entries(encoding)) {
    const list = Array.isArray(defs) ? defs.map((d, i) => [`${where}.encoding.${channel}[${i}]`, d] as const) : [[`${where}.encoding.${channel}`, defs] as const];
    for (const [at, def] of list) {
      if (!isObject(def) || typeof def.field !== 'string') continue;
      if (!columns.has(def.field) && !columns.has(def.field.split('.')[0])) out.push(`${at}.field "${def.field}" is not a column of the data ${cols}`);
    }
  }
}

/** The columns after a transform list: those of the data plus each transform's `as` names. */
function producedColumns(transforms: unknown, columns: Set<string>): Set<string> {
  if (!Array.isArray(transforms)) return columns;
  for (const t of transforms as Record<string, unknown>[]) {
    const as = t.as;
    for (const name of Array.isArray(as) ? as : [as]) if (typeof name === 'string') columns.add(name);
    if ('fold' in t && as === undefined) ['key', 'value'].forEach((c) => columns.add(c));
    if ('density' in t && as === undefined) ['value', 'density'].forEach((c) => columns.add(c));
    if ('quantile' in t && as === undefined) ['prob', 'value'].forEach((c) => columns.add(c));
    for (const list of [t.aggregate, t.window, t.joinaggregate]) if (Array.isArray(list)) for (const a of list) if (isObject(a) && typeof a.as === 'string') columns.add(a.as);
    if ('pivot' in t) columns.add('*'); // pivot's columns are the data's values: fields are not checked after it
  }
  return columns;
}
