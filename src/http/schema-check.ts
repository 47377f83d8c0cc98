/**
 * The route schemas' validator: the part of JSON Schema the engine's routes are written in, checked
 * the way Ajv checks it with the options the engine used (draft-07, first error only, no coercion of
 * bodies, `coerceTypes: 'array'` for query strings and path parameters, `useDefaults`, `strict:
 * false`), giving the same first error object and the same coerced values. Ajv stays for the
 * schemas the engine does not write (tool inputs, MCP tools, workflows); loading it for the routes
 * held ~3 MB of an idle engine that had answered one request with a body (issue 42, bench/memory).
 * `test/api/schema-check` checks every route schema against Ajv on the same inputs.
 *
 * A keyword outside the subset is refused when the schema is first used, not ignored: a route
 * written with one fails its first request (and that test) instead of going unchecked.
 */
import type { ErrorObject } from 'ajv';

type Schema = Record<string, unknown>;
type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

// Ajv evaluates keywords in groups: those of any type first, then each type's own, each group in
// Ajv's order (its vocabularies), stopping after the first group that failed.
const NUMBER = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'];
const STRING = ['maxLength', 'minLength', 'pattern'];
const ARRAY = ['maxItems', 'minItems', 'items'];
const OBJECT = ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties'];
const GROUPS: Array<[JsonType, string[]]> = [
  ['number', NUMBER],
  ['string', STRING],
  ['array', ARRAY],
  ['object', OBJECT],
];
const KNOWN = new Set(['type', 'const', 'enum', 'anyOf', ...NUMBER, ...STRING, ...ARRAY, ...OBJECT]);
/** Keywords that say what a value is for, not what it may be. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
const COERCIBLE = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array']);

/** Where a value sits: its JSON pointer, and the object or array holding it (coercion writes there). */
interface Place {
  path: string;
  value: unknown;
  parent?: Record<string | number, unknown>;
  key?: string | number;
}

interface Pass {
  coerce: boolean;
  /** Inside anyOf, defaults are not filled in (Ajv's composite rule). */
  composite: boolean;
  errors: ErrorObject[];
}

/**
 * A validator for `schema`: null when `data` is valid (defaults and coercions written into it, as
 * Ajv does), else the errors, the first one Ajv's first.
 */
export function schemaCheck(schema: Schema, options: { coerce: boolean }): (data: unknown) => ErrorObject[] | null {
  vet(schema, '#');
  return (data) => {
    const pass: Pass = { coerce: options.coerce, composite: false, errors: [] };
    return check(schema, { path: '', value: data }, pass) ? null : pass.errors;
  };
}

function check(s: Schema | boolean, at: Place, pass: Pass): boolean {
  if (s === true) return true;
  if (s === false) return fail(pass, at, 'false schema', {}, {}, 'boolean schema is false');
  const types = (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]) as JsonType[];
  const coerceTo = pass.coerce ? types.filter((t) => COERCIBLE.has(t)) : [];
  // Ajv checks one type with keywords of its own inside that type's group, after the keywords of
  // any type; every other type check comes first.
  const deferred = !coerceTo.length && types.length === 1 && hasGroup(s, types[0]);
  if (types.length && !deferred && !isOf(types, at.value)) {
    const coerced = coerceTo.length ? coerce(at.value, types, coerceTo) : undefined;
    if (coerced === undefined) return typeError(s, at, pass);
    at.value = coerced.value;
    if (at.parent !== undefined) at.parent[at.key!] = coerced.value;
  }
  if (!anyType(s, at, pass)) return false;
  for (const [type, keywords] of GROUPS) {
    if (!keywords.some((k) => s[k] !== undefined)) continue;
    if (isOf([type], at.value)) {
      if (!groupOf(type, s, at, pass)) return false;
    } else if (deferred && types[0] === type) return typeError(s, at, pass);
  }
  return true;
}

function anyType(s: Schema, at: Place, pass: Pass): boolean {
  const v = at.value;
  if (s.const !== undefined && !equal(v, s.const)) return fail(pass, at, 'const', { allowedValue: s.const }, s, 'must be equal to constant');
  if (Array.isArray(s.enum) && !s.enum.some((e) => equal(v, e))) return fail(pass, at, 'enum', { allowedValues: s.enum }, s, 'must be equal to one of the allowed values');
  if (Array.isArray(s.anyOf)) {
    const before = pass.errors.length;
    const branch = { ...pass, composite: true };
    // Branches see one value: a coercion made by a branch that failed stays (as in Ajv).
    if (!(s.anyOf as Schema[]).some((sub) => check(sub, at, branch))) return fail(pass, at, 'anyOf', {}, s, 'must match a schema in anyOf');
    pass.errors.length = before;
  }
  return true;
}

function groupOf(type: JsonType, s: Schema, at: Place, pass: Pass): boolean {
  const v = at.value as never;
  switch (type) {
    case 'number':
      return limit(s, at, pass, 'maximum', '<=', (l) => v > l) && limit(s, at, pass, 'minimum', '>=', (l) => v < l) && limit(s, at, pass, 'exclusiveMaximum', '<', (l) => v >= l) && limit(s, at, pass, 'exclusiveMinimum', '>', (l) => v <= l);
    case 'string': {
      const length = codePoints(v);
      if (typeof s.maxLength === 'number' && length > s.maxLength) return fail(pass, at, 'maxLength', { limit: s.maxLength }, s, `must NOT have more than ${s.maxLength} characters`);
      if (typeof s.minLength === 'number' && length < s.minLength) return fail(pass, at, 'minLength', { limit: s.minLength }, s, `must NOT have fewer than ${s.minLength} characters`);
      if (typeof s.pattern === 'string' && !patternOf(s.pattern).test(v)) return fail(pass, at, 'pattern', { pattern: s.pattern }, s, `must match pattern "${s.pattern}"`);
      return true;
    }
    case 'array': {
      const items = v as unknown[];
      if (typeof s.maxItems === 'number' && items.length > s.maxItems) return fail(pass, at, 'maxItems', { limit: s.maxItems }, s, `must NOT have more than ${s.maxItems} items`);
      if (typeof s.minItems === 'number' && items.length < s.minItems) return fail(pass, at, 'minItems', { limit: s.minItems }, s, `must NOT have fewer than ${s.minItems} items`);
      if (s.items !== undefined) for (let i = 0; i < items.length; i++) if (!check(s.items as Schema, child(at, items, i), pass)) return false;
      return true;
    }
    case 'object':
      return objectGroup(s, at, pass);
  }
  return true;
}

function objectGroup(s: Schema, at: Place, pass: Pass): boolean {
  const data = at.value as Record<string, unknown>;
  const props = (s.properties ?? {}) as Record<string, Schema>;
  if (!pass.composite) {
    for (const [key, sub] of Object.entries(props)) if (sub.default !== undefined && data[key] === undefined) data[key] = structuredClone(sub.default);
  }
  const count = Object.keys(data).length;
  if (typeof s.maxProperties === 'number' && count > s.maxProperties) return fail(pass, at, 'maxProperties', { limit: s.maxProperties }, s, `must NOT have more than ${s.maxProperties} properties`);
  if (typeof s.minProperties === 'number' && count < s.minProperties) return fail(pass, at, 'minProperties', { limit: s.minProperties }, s, `must NOT have fewer than ${s.minProperties} properties`);
  const missing = Array.isArray(s.required) ? (s.required as string[]).find((key) => data[key] === undefined) : undefined;
  if (missing !== undefined) return fail(pass, at, 'required', { missingProperty: missing }, s, `must have required property '${missing}'`);
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== true) {
    for (const key in data) {
      if (Object.hasOwn(props, key)) continue;
      if (extra === false) return fail(pass, at, 'additionalProperties', { additionalProperty: key }, s, 'must NOT have additional properties');
      if (!check(extra as Schema, child(at, data, key), pass)) return false;
    }
  }
  for (const [key, sub] of Object.entries(props)) {
    if (data[key] !== undefined && !check(sub, child(at, data, key), pass)) return false;
  }
  return true;
}

function limit(s: Schema, at: Place, pass: Pass, keyword: string, comparison: string, fails: (limit: number) => boolean): boolean {
  const l = s[keyword];
  if (typeof l !== 'number' || !(fails(l) || Number.isNaN(at.value))) return true;
  return fail(pass, at, keyword, { comparison, limit: l }, s, `must be ${comparison} ${l}`);
}

function typeError(s: Schema, at: Place, pass: Pass): false {
  return fail(pass, at, 'type', { type: s.type }, s, `must be ${String(s.type)}`);
}

function fail(pass: Pass, at: Place, keyword: string, params: Record<string, unknown>, parentSchema: Schema | boolean, message: string): false {
  pass.errors.push({ keyword, instancePath: at.path, schemaPath: '', params, message, parentSchema: parentSchema as Schema, data: at.value });
  return false;
}

function child(at: Place, parent: Record<string | number, unknown> | unknown[], key: string | number): Place {
  return { path: `${at.path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, value: (parent as Record<string | number, unknown>)[key], parent: parent as Record<string | number, unknown>, key };
}

function hasGroup(s: Schema, type: JsonType): boolean {
  const group = GROUPS.find(([t]) => t === type);
  return !!group && group[1].some((k) => s[k] !== undefined);
}

function isOf(types: JsonType[], v: unknown): boolean {
  return types.some((t) => {
    switch (t) {
      case 'null':
        return v === null;
      case 'array':
        return Array.isArray(v);
      case 'object':
        return !!v && typeof v === 'object' && !Array.isArray(v);
      case 'integer':
        return typeof v === 'number' && !(v % 1) && !Number.isNaN(v);
      default:
        return typeof v === t;
    }
  });
}

/** Ajv's coercion (`coerceTypes: 'array'`): a one-item array is unwrapped, then the first type in order that takes the value. */
function coerce(value: unknown, types: JsonType[], coerceTo: JsonType[]): { value: unknown } | undefined {
  let v = value;
  if (Array.isArray(v) && v.length === 1) {
    v = v[0];
    // Ajv keeps the item as it is only under one type: with several it tests the item against all of
    // them at once (its check of a right type joins them with "and"), so it goes on to coerce it.
    const distinct = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    if (distinct.length === 1 && isOf(distinct, v)) return { value: v };
  }
  const numeric = typeof v === 'string' && v !== '' && !Number.isNaN(+v);
  for (const t of coerceTo) {
    switch (t) {
      case 'string':
        if (typeof v === 'number' || typeof v === 'boolean') return { value: `${v}` };
        if (v === null) return { value: '' };
        break;
      case 'number':
        if (typeof v === 'boolean' || v === null || numeric) return { value: +(v as number) };
        break;
      case 'integer':
        if (typeof v === 'boolean' || v === null || (numeric && !(+(v as string) % 1))) return { value: +(v as number) };
        break;
      case 'boolean':
        if (v === 'false' || v === 0 || v === null) return { value: false };
        if (v === 'true' || v === 1) return { value: true };
        break;
      case 'null':
        if (v === '' || v === 0 || v === false) return { value: null };
        break;
      case 'array':
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return { value: [v] };
        break;
    }
  }
  return undefined;
}

const patterns = new Map<string, RegExp>();
const patternOf = (source: string): RegExp => {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source, 'u')));
  return re;
};

/** Length in code points, as Ajv counts (a surrogate pair is one character). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return a !== a && b !== b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Refuses a keyword outside the subset (an `x-` keyword is the engine's own annotation). */
function vet(s: unknown, at: string): void {
  if (typeof s === 'boolean') return;
  if (!s || typeof s !== 'object') throw new Error(`route schema ${at} is not a schema`);
  for (const [k, v] of Object.entries(s)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-') || k === 'const' || k === 'enum') continue;
    if (!KNOWN.has(k)) throw new Error(`route schema ${at} uses "${k}", which the route validator does not check (src/http/schema-check.ts)`);
    if (k === 'properties') for (const [p, sub] of Object.entries(v as Schema)) vet(sub, `${at}/properties/${p}`);
    else if (k === 'anyOf') (v as unknown[]).forEach((sub, i) => vet(sub, `${at}/anyOf/${i}`));
    else if (k === 'items' || k === 'additionalProperties') vet(v, `${at}/${k}`);
  }
}
