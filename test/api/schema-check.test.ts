/**
 * Issue 42: the route validator (src/http/schema-check.ts) answers as Ajv did with the engine's
 * options, on every schema of every registered route: for each, a valid value built from the schema
 * and that value broken every way a client could break it (each field missing, null, of each other
 * type, too short, too long, out of range, off its pattern or enum, an unknown field, query text to
 * coerce), both must agree on valid or not, on the first error (keyword, path, params, message: the
 * sentence is made from it) and on the value after defaults and coercions.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import type { Ajv as AjvType, ErrorObject } from 'ajv';
import { catalogOf } from '../../src/http/openapi.js';
import { schemaCheck } from '../../src/http/schema-check.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

type Schema = Record<string, any>;
const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
// The options the engine gave Ajv for its routes before the route validator.
const ajvFor = (coerce: boolean): AjvType => new Ajv({ allErrors: false, coerceTypes: coerce ? 'array' : false, removeAdditional: false, useDefaults: true, strict: false, verbose: true });

let t: TestEngine;
before(async () => {
  t = await startTestEngine({ files: { watch: false } });
});
after(() => t.close());

/** Values a client may send where anything is expected. */
const PROBES: unknown[] = [undefined, null, 0, 1, -1, 1.5, 2 ** 40, '', 'x', ' 5 ', '5', '1.5', '-1', 'true', 'false', 'null', '🙂', 'a'.repeat(300), true, false, [], ['1'], ['a', 'b'], [1], {}, { unknown: 1 }];

/** A value the schema should take: the first type, every property, the least string and number it allows. */
function sample(s: Schema | boolean, depth = 0): unknown {
  if (typeof s === 'boolean' || depth > 6) return 'x';
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return sample(s.anyOf[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) out[k] = sample(sub, depth + 1);
      return out;
    }
    case 'array':
      return s.items ? [sample(s.items, depth + 1)] : [];
    case 'string':
      return 'a'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'x';
  }
}

/** Every path into `value` (objects and arrays), the root first. */
function paths(value: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

function withAt(root: unknown, at: Array<string | number>, v: unknown): unknown {
  if (!at.length) return v;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const k of at.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  if (v === undefined) delete node[at[at.length - 1]];
  else node[at[at.length - 1]] = v;
  return copy;
}

/** The inputs for one schema: the sample, each path replaced by each probe, extra fields, strings at their limits. */
function inputs(s: Schema): unknown[] {
  const base = sample(s);
  const out: unknown[] = [base, undefined, null];
  for (const at of paths(base)) {
    for (const probe of PROBES) out.push(withAt(base, at, probe));
    const node = at.reduce<any>((n, k) => n[k], base);
    if (node && typeof node === 'object' && !Array.isArray(node)) out.push(withAt(base, [...at, 'extra'], 1));
  }
  return out;
}

const firstError = (errors: ErrorObject[] | null | undefined) => {
  const e = errors?.[0];
  return e && { keyword: e.keyword, instancePath: e.instancePath, params: e.params, message: e.message, parentSchema: e.parentSchema };
};

test('every route schema: the route validator and Ajv agree on every input', () => {
  const routes = catalogOf(t.engine.app);
  assert.ok(routes.length > 150, `only ${routes.length} routes in the catalog`);
  const ajv = { strict: ajvFor(false), coerce: ajvFor(true) };
  let cases = 0;
  let invalid = 0;
  for (const r of routes) {
    const schema = (r.schema ?? {}) as Record<string, Schema | undefined>;
    for (const part of ['body', 'querystring', 'params'] as const) {
      const s = schema[part];
      if (!s) continue;
      const coerce = part !== 'body';
      const theirs = (coerce ? ajv.coerce : ajv.strict).compile(s);
      const ours = schemaCheck(s, { coerce });
      for (const input of inputs(s)) {
        // Wrapped, as Fastify holds a query string or a body: a coercion writes into its holder.
        const a = { value: structuredClone(input) };
        const b = { value: structuredClone(input) };
        const okTheirs = theirs(a.value);
        const errors = ours(b.value);
        const where = `${r.method} ${r.url} ${part} ${JSON.stringify(input)}`;
        assert.equal(errors === null, okTheirs, `${where}: valid? Ajv ${okTheirs}, ours ${JSON.stringify(firstError(errors))}`);
        assert.deepEqual(firstError(errors), firstError(theirs.errors), where);
        assert.deepEqual(b.value, a.value, `${where}: the value after defaults and coercions`);
        cases++;
        if (!okTheirs) invalid++;
      }
    }
  }
  assert.ok(cases > 10_000 && invalid > cases / 3, `${cases} cases, ${invalid} invalid`);
});

test('coercion of query text and one-item arrays, in the order of the types, as Ajv does', () => {
  const schemas: Schema[] = [
    { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
    { type: 'object', properties: { n: { type: ['integer', 'null'] } } },
    { type: 'object', properties: { n: { type: ['null', 'string'] } } },
    { type: 'object', properties: { b: { type: 'boolean' } } },
    { type: 'object', properties: { a: { type: 'array', items: { type: 'number' } } } },
    { type: 'object', properties: { s: { type: 'string', enum: ['a', '1'] } } },
    { type: 'object', properties: { s: { type: 'string', minLength: 2, enum: ['ab', 'cd'] } } },
    { type: 'object', properties: { u: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^x' }] } } },
    { type: 'object', properties: { d: { type: 'integer', default: 20 } }, additionalProperties: false },
    { type: 'object', properties: { o: { type: 'object', additionalProperties: { type: 'integer' } } } },
  ];
  const values = ['1', '0', '', 'x', 'xy', 'true', 'false', ['2'], ['a', 'b'], 1, 0, null, true, '1e3', ' 7 ', '2.5', 'ab', { k: '3' }, { k: 'z' }];
  for (const coerce of [true, false]) {
    const ajv = ajvFor(coerce);
    for (const s of schemas) {
      const theirs = ajv.compile(s);
      const ours = schemaCheck(s, { coerce });
      for (const v of values) {
        for (const key of Object.keys(s.properties)) {
          const a = { [key]: structuredClone(v) };
          const b = { [key]: structuredClone(v) };
          const where = `${JSON.stringify(s)} ${JSON.stringify(a)} coerce ${coerce}`;
          assert.equal(ours(b) === null, theirs(a), where);
          assert.deepEqual(firstError(ours(structuredClone({ [key]: v }))), firstError(theirs.errors), where);
          assert.deepEqual(b, a, where);
        }
      }
    }
  }
});

test('a keyword the route validator does not check is refused, not ignored', () => {
  assert.throws(() => schemaCheck({ type: 'string', format: 'email' }, { coerce: false }), /uses "format", which the route validator does not check/);
  assert.throws(() => schemaCheck({ type: 'object', properties: { a: { type: 'number', multipleOf: 2 } } }, { coerce: false }), /#\/properties\/a uses "multipleOf"/);
  assert.doesNotThrow(() => schemaCheck({ type: 'string', description: 'said', 'x-error': '{field} must be a name' }, { coerce: false }));
});
