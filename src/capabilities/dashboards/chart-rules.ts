/**
 * The little language chart-grammar.ts is written in: a rule says what one JSON value may be, and
 * `checkRule` walks a value against it, naming the JSON path of every problem in a sentence a model
 * can act on. A rule may carry a sample value: what the key looks like in use (the grammar's fuzz
 * test, test/dashboards/chart-grammar.test.ts, draws every allowed key with it).
 */
import { kindOf, type Problem } from './widget-data.js';

export type Rule = TextRule | NumberRule | { kind: 'boolean' } | { kind: 'null' } | ListRule | ObjectRule | EitherRule | RowsRule;

/** Plain text: a name, a colour, a title or a format. Never read as an expression by vega-lite. */
export interface TextRule {
  kind: 'text';
  /** The only values allowed. */
  values?: readonly string[];
  /** A column of the data (a field name): checked against the columns after the grammar. */
  field?: boolean;
  /**
   * Written by vega-lite into an expression (a tooltip or description key: a column name or a
   * channel title) with its quotes escaped but not a backslash, so a backslash would end the string
   * and the rest would run as an expression: refused, with line breaks (which never parse there).
   */
  inExpression?: boolean;
  sample?: string;
}
export interface NumberRule {
  kind: 'number';
  min: number;
  max: number;
  integer?: boolean;
  sample?: number;
}
export interface ListRule {
  kind: 'list';
  of: Rule;
  max: number;
  min?: number;
}
export interface ObjectRule {
  kind: 'object';
  /** What the object is, in the sentences (`an axis`). */
  name: string;
  keys: Record<string, Rule>;
  required?: readonly string[];
  /** Exactly one of these keys (a field predicate's test). */
  exactlyOne?: readonly string[];
  /** At most one of these keys (a channel's field, value or datum). */
  atMostOne?: readonly string[];
  /** Among the objects of an either-rule, the keys that say a value means this one (a transform's operation). */
  tag?: readonly string[];
  /** Keys the sample holds besides the required ones (so it draws). */
  sample?: Record<string, unknown>;
}
/** The data's rows: objects of column values, which vega reads as data and never runs. */
export interface RowsRule {
  kind: 'rows';
  max: number;
}
/** One of several rules: chosen by the value's JSON kind; among objects, by the `tag` key a value holds. */
export interface EitherRule {
  kind: 'either';
  of: readonly Rule[];
  /** Said when a value matches none (what a model most likely meant, and why it is not allowed). */
  note?: string;
}

export const text = (options: Omit<TextRule, 'kind'> = {}): TextRule => ({ kind: 'text', ...options });
export const oneOf = (...values: string[]): TextRule => ({ kind: 'text', values });
export const field: TextRule = { kind: 'text', field: true, inExpression: true, sample: 'amount' };
export const num = (min: number, max: number, sample?: number): NumberRule => ({ kind: 'number', min, max, sample });
export const int = (min: number, max: number, sample?: number): NumberRule => ({ kind: 'number', min, max, integer: true, sample });
export const bool: Rule = { kind: 'boolean' };
export const none: Rule = { kind: 'null' };
export const list = (of: Rule, max: number, min = 0): ListRule => ({ kind: 'list', of, max, min });
export const obj = (name: string, keys: Record<string, Rule>, options: Omit<ObjectRule, 'kind' | 'name' | 'keys'> = {}): ObjectRule => ({ kind: 'object', name, keys, ...options });
export const rows = (max: number): RowsRule => ({ kind: 'rows', max });
/** Alternatives that are themselves either-rules are spread, so a value is judged by one rule. */
const flat = (of: Rule[]) => of.flatMap((r) => (r.kind === 'either' ? r.of : [r]));
export const either = (...of: Rule[]): EitherRule => ({ kind: 'either', of: flat(of) });
export const eitherNoted = (note: string, ...of: Rule[]): EitherRule => ({ kind: 'either', of: flat(of), note });

/** Keys vega-lite reads as an expression, a selection or something to load: named with their reason. */
export function whyRefused(key: string): string | undefined {
  if (/^(expr|signal|calculate|params?|selection|test|filter|empty|labelExpr)$/.test(key) || /Expr$/.test(key)) return 'expressions do not run on the server';
  if (/^(url|href|datasets)$/.test(key)) return 'the page is self-contained: it loads nothing and links nowhere';
  return undefined;
}

/** How deep a spec may nest (the walk is recursive; a spec is a few levels deep). */
export const MAX_DEPTH = 24;

const isObject = (v: unknown): v is Record<string, unknown> => kindOf(v) === 'object';

/** What a rule allows, in words. */
export function describe(rule: Rule): string {
  switch (rule.kind) {
    case 'text':
      return rule.values ? `one of ${rule.values.map((v) => JSON.stringify(v)).join(', ')}` : rule.field ? 'a column name' : 'text';
    case 'number':
      return `${rule.integer ? 'an integer' : 'a number'} from ${rule.min} to ${rule.max}`;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'list':
      return `${rule.min === rule.max ? `a list of ${rule.max}` : `a list of at most ${rule.max}`} (each ${describe(rule.of)})`;
    case 'object': {
      const keys = Object.keys(rule.keys);
      return keys.length <= 10 ? `${rule.name} {${keys.join(', ')}}` : `${rule.name} (an object)`;
    }
    case 'either':
      return rule.of.map(describe).join(', or ');
    case 'rows':
      return 'a list of row objects';
  }
}

/** The alternatives of an either-rule a value could be judged by: by its JSON kind, objects by their tag. */
function fitting(rule: EitherRule, value: unknown): Rule[] {
  const kind = kindOf(value);
  const fits = rule.of.filter((r) => (r.kind === 'text' ? kind === 'string' : r.kind === 'number' ? kind === 'number' : r.kind === 'boolean' ? kind === 'boolean' : r.kind === 'null' ? kind === 'null' : r.kind === 'list' || r.kind === 'rows' ? kind === 'array' : kind === 'object'));
  if (fits.length <= 1 || kind !== 'object') return fits.slice(0, 1);
  return fits.filter((r) => r.kind === 'object' && r.tag?.some((k) => k in (value as object)));
}

/** Checks `value` at `path` against `rule`; problems are pushed to `out`. */
export function checkRule(rule: Rule, value: unknown, path: string, out: Problem[], depth = 0): void {
  if (depth > MAX_DEPTH) return void out.push(`${path} nests deeper than ${MAX_DEPTH} levels; a chart is a few levels deep`);
  const got = kindOf(value);
  const wrong = (what: string) => out.push(`${path} must be ${what} (got ${got === 'string' ? `the text ${JSON.stringify(String(value).slice(0, 60))}` : got})`);
  switch (rule.kind) {
    case 'text':
      if (typeof value !== 'string') return void wrong(describe(rule));
      if (rule.values && !rule.values.includes(value)) return void wrong(describe(rule));
      if (value.length > 400) out.push(`${path} is ${value.length} characters long; at most 400`);
      if (rule.inExpression && /[\\\n\r\u2028\u2029]/.test(value)) out.push(`${path} holds a backslash or a line break; leave them out of a column name or a channel title (vega-lite would write them into an expression)`);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return void wrong(describe(rule));
      if (value < rule.min || value > rule.max || (rule.integer && !Number.isInteger(value))) wrong(describe(rule));
      return;
    case 'boolean':
      if (typeof value !== 'boolean') wrong('true or false');
      return;
    case 'null':
      if (value !== null) wrong('null');
      return;
    case 'list':
      if (!Array.isArray(value)) return void wrong(describe(rule));
      if (value.length > rule.max || value.length < (rule.min ?? 0)) return void out.push(`${path} has ${value.length} items; ${rule.min === rule.max ? `it takes exactly ${rule.max}` : value.length > rule.max ? `at most ${rule.max}` : `at least ${rule.min}`}`);
      value.forEach((item, i) => checkRule(rule.of, item, `${path}[${i}]`, out, depth + 1));
      return;
    case 'object':
      return checkObject(rule, value, path, out, depth);
    case 'rows': {
      if (!Array.isArray(value)) return void out.push(`${path} must be an array of row objects: the chart's rows inline (no URL, no named dataset: the page is self-contained) (got ${got})`);
      if (value.length > rule.max) return void out.push(`${path} has ${value.length} rows; the limit is ${rule.max} (aggregate first, and cite the whole result as a source)`);
      const bad = value.findIndex((r) => !isObject(r));
      if (bad >= 0) out.push(`${path}[${bad}] must be an object of column values (got ${kindOf(value[bad])})`);
      return;
    }
    case 'either': {
      const fits = fitting(rule, value);
      if (fits.length === 1) return checkRule(fits[0], value, path, out, depth);
      if (fits.length > 1) {
        const tags = fits.flatMap((r) => (r.kind === 'object' ? (r.tag ?? []).filter((k) => k in (value as object)) : []));
        return void out.push(`${path} is two things at once: it holds ${tags.join(' and ')}; keep the keys of one (${fits.map(describe).join(', or ')})`);
      }
      if (isObject(value)) {
        // An object none of the alternatives names: its own keys say why (a `calculate` transform ...).
        const refused = Object.keys(value).filter((k) => whyRefused(k));
        if (refused.length) return void refused.forEach((k) => out.push(`${path}.${k} is not allowed: ${whyRefused(k)}`));
      }
      wrong(describe(rule) + (rule.note ? `; ${rule.note}` : ''));
      return;
    }
  }
}

function checkObject(rule: ObjectRule, value: unknown, path: string, out: Problem[], depth: number): void {
  if (!isObject(value)) return void out.push(`${path} must be ${describe(rule)} (got ${kindOf(value) === 'string' ? `the text ${JSON.stringify(String(value).slice(0, 60))}: expression strings do not run on the server` : kindOf(value)})`);
  for (const [k, v] of Object.entries(value)) {
    // Own keys only: `constructor` or `__proto__` must not find the prototype's.
    if (Object.hasOwn(rule.keys, k)) checkRule(rule.keys[k], v, `${path}.${k}`, out, depth + 1);
    else {
      const why = whyRefused(k);
      out.push(why ? `${path}.${k} is not allowed: ${why}` : `${path}.${k} is not part of the chart grammar this engine draws (${rule.name} may hold: ${Object.keys(rule.keys).join(', ')})`);
    }
  }
  for (const k of rule.required ?? []) if (!(k in value)) out.push(`${path}.${k} is required in ${rule.name}`);
  if (rule.atMostOne) {
    const present = rule.atMostOne.filter((k) => k in value);
    if (present.length > 1) out.push(`${path} holds ${present.join(' and ')}; it takes one of ${rule.atMostOne.join(', ')}`);
  }
  if (rule.exactlyOne) {
    const present = rule.exactlyOne.filter((k) => k in value);
    if (present.length !== 1) out.push(`${path} must hold exactly one of ${rule.exactlyOne.join(', ')} (${present.length ? `got ${present.join(', ')}` : 'got none'})`);
  }
}
