/**
 * Request validation from the route schemas (src/http/schemas.ts) by the route validator
 * (schema-check.ts, Ajv's semantics without loading Ajv): no coercion of bodies, unknown fields fail
 * instead of vanishing, `default`s fill what was not sent, and every failure is turned into one sentence
 * `<field> must be ...; send <the shape>` with status 400. A JSON route sent a body that is not
 * JSON answers 415 before any of that (unless it declares `anyBody`: it answers such bodies itself).
 */
import type { ErrorObject } from 'ajv';
import type { FastifyInstance, FastifyRequest, FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions, preValidationHookHandler } from 'fastify';
import { EngineError } from '../kernel/errors.js';
import { hooksOf } from './methods.js';
import { schemaCheck } from './schema-check.js';
import type { Schema } from './schemas.js';

type Part = 'body' | 'querystring' | 'params' | 'headers';

const validatorCompiler: FastifySchemaCompiler<Schema> = ({ schema, httpPart }) => {
  // Made on a route's first request, not at start (start-up time is measured in bench/startup).
  let validate: ((data: unknown) => ErrorObject[] | null) | undefined;
  // No body at all (Fastify gives null or undefined) reads as `{}`, so a missing required field says which one.
  const emptyAsObject = httpPart === 'body' && schema.type === 'object';
  return (data: unknown) => {
    // Bodies are never coerced (`{"content": 5}` must not become "5"); query strings, path
    // parameters and headers arrive as text, so there `?limit=5` may meet `{type: "integer"}`.
    validate ??= schemaCheck(schema, { coerce: httpPart !== 'body' });
    const absent = emptyAsObject && (data === undefined || data === null);
    const subject = absent ? {} : data;
    const errors = validate(subject);
    if (errors) return { error: new EngineError(400, sentence(errors, httpPart as Part, schema)) };
    // A body that was not sent stays "not sent", unless the schema's defaults filled it in.
    return absent && Object.keys(subject as object).length ? { value: subject } : true;
  };
};

/** Response schemas describe, they do not filter: answers are serialized exactly as before. */
const serializerCompiler: FastifySerializerCompiler<Schema> = () => (data: unknown) => JSON.stringify(data);

/**
 * The engine's compilers, given to Fastify when it is made (its `schemaController` option): Fastify
 * then never loads its own (@fastify/ajv-compiler with Ajv and ajv-formats, fast-json-stringify),
 * which it does at start otherwise, ~1.4 MB of heap and ~4 MB resident (bench/memory); the bundle
 * leaves them out (scripts/bundle.mjs).
 */
// Typed by Fastify for its own Ajv-based factories; a factory's compiler takes the same route-schema call as setValidatorCompiler's.
export const compilersFactory = { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as CompilersFactory;
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Installs the 415 check on `app` (the compilers are `compilersFactory`, given to Fastify). */
export function installValidation(app: FastifyInstance): void {
  // Only a route that takes a JSON body gets the 415 check, as its own hook: no per-request look at
  // the route options on the others (bench/status-throughput). Call before routes are added.
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { body?: unknown; consumes?: unknown; anyBody?: boolean } | undefined;
    // First, as when it was a global hook: before the route's own (which may fill in an absent body).
    if (schema?.body && !schema.consumes && !schema.anyBody) route.preValidation = [jsonBodyCheck, ...hooksOf(route.preValidation)];
  });
}

const jsonBodyCheck: preValidationHookHandler = (req, reply, done) => {
  if (notJson(req)) {
    reply
      .code(415)
      .send({ error: `this route takes a JSON body; send it with the header content-type: application/json (curl: -H 'content-type: application/json' -d '{...}')` });
    return;
  }
  done();
};

/** A body was sent to a JSON route under another content type. */
function notJson(req: FastifyRequest): boolean {
  const body = req.body;
  if (body === undefined || (Buffer.isBuffer(body) && body.length === 0)) return false;
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type !== 'application/json';
}

/** One sentence for the first Ajv error: the field, what it must be, and what to send. */
export function sentence(errors: ErrorObject[], part: Part, schema: Schema): string {
  const e = errors[0];
  if (!e) return `the request ${part} is not valid; send ${hint(part, schema)}`;
  const at = e.instancePath;
  let pointer = at;
  let own: unknown;
  let rule: string;
  if (e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    pointer = joinPath(at, missing);
    own = (((e.parentSchema as Schema | undefined)?.properties as Record<string, Schema> | undefined)?.[missing] ?? {})['x-error'];
    rule = 'is required';
  } else if (e.keyword === 'additionalProperties') {
    const extra = String(e.params.additionalProperty);
    const allowed = Object.keys(((e.parentSchema as Schema | undefined)?.properties as Schema | undefined) ?? {}).map((k) => `"${k}"`);
    const takes = allowed.length ? `takes ${allowed.join(', ')}` : 'takes none';
    if (part === 'querystring') return `unknown query parameter "${extra}"; this route ${takes}`;
    return `unknown field "${extra}"; ${at ? fieldName(part, at) : 'this route'} ${takes}`;
  } else {
    own = (e.parentSchema as Schema | undefined)?.['x-error'];
    rule = ruleText(e);
  }
  const field = fieldName(part, pointer);
  // A field may carry its own sentence (`x-error`, `{field}` standing for its name): the one the service used to say.
  const said = typeof own === 'string' ? own.replace('{field}', field) : `${field} ${rule}`;
  return `${said}; send ${hint(part, schema)}`;
}

function ruleText(e: ErrorObject): string {
  switch (e.keyword) {
    case 'type':
      return `must be ${typeWord(String(e.params.type))}`;
    case 'enum':
      return `must be ${alternatives((e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)))}`;
    case 'const':
      return `must be ${JSON.stringify(e.params.allowedValue)}`;
    case 'minLength':
      return Number(e.params.limit) === 1 ? 'must not be empty' : `must be at least ${e.params.limit} characters`;
    case 'maxLength':
      return `must be at most ${e.params.limit} characters`;
    case 'pattern':
      return `must match ${e.params.pattern}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return e.message ?? 'is out of range';
    case 'minItems':
      return `must have at least ${e.params.limit} item${Number(e.params.limit) === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${e.params.limit} items`;
    default:
      return e.message ?? 'is not valid';
  }
}

/** `"a" or "b"`; `one of "a", "b" or "c"`. */
const alternatives = (items: string[]): string =>
  items.length <= 2 ? items.join(' or ') : `one of ${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

const typeWord = (t: string): string =>
  t
    .split(',')
    .map((x) => ({ string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', object: 'a JSON object', array: 'an array', null: 'null' })[x] ?? x)
    .join(' or ');

const joinPath = (at: string, key: string) => `${at}/${key}`;

const partName = (part: Part) => (part === 'querystring' ? 'query' : part === 'params' ? 'path' : part);

/** `/a/0/b` in the body reads `a[0].b`; the body itself reads `the body`. */
function fieldName(part: Part, pointer: string): string {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (!segments.length) return part === 'body' ? 'the body' : `the ${partName(part)}`;
  const name = segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i ? `.${s}` : s)).join('');
  if (part === 'querystring') return `the query parameter ${name}`;
  if (part === 'params') return `the path segment ${name}`;
  return name;
}

function hint(part: Part, schema: Schema): string {
  if (part === 'body') return `a JSON ${schema.type === 'object' ? 'object' : 'value'} ${shape(schema, 0)}`;
  if (part === 'querystring') {
    const props = Object.entries((schema.properties as Record<string, Schema>) ?? {});
    return props.length ? `query parameters ${props.map(([k, s]) => `${k}=${shape(s, 1)}`).join('&')}` : 'no query parameters';
  }
  return 'a path the route table knows (GET /api/openapi.json lists them)';
}

/** A compact picture of a schema: `{"key": string, "decision"?: "allow" | "ask" | "deny"}`. */
export function shape(schema: Schema | undefined, depth: number): string {
  if (!schema || typeof schema !== 'object') return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map((s) => shape(s, depth)).join(' | ');
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Schema[]).map((s) => shape(s, depth)).join(' | ');
  const type = schema.type;
  if (type === 'array') return depth > 2 ? '[...]' : `[${shape(schema.items as Schema, depth + 1)}, ...]`;
  if (type === 'object') {
    const props = Object.entries((schema.properties as Record<string, Schema>) ?? {});
    if (!props.length) return '{...}';
    if (depth > 1) return '{...}';
    const required = new Set((schema.required as string[]) ?? []);
    const inner = props.map(([k, s]) => `"${k}"${required.has(k) ? '' : '?'}: ${shape(s, depth + 1)}`).join(', ');
    return `{${inner}${schema.additionalProperties === false ? '' : ', ...'}}`;
  }
  if (Array.isArray(type)) return type.join(' | ');
  return typeof type === 'string' ? type : 'any';
}
