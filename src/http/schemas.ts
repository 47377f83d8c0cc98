/**
 * The route-schema convention: every route passes `{ schema: route(tag, summary, parts) }` built
 * from these JSON Schema helpers. The same object validates the request (src/http/validation.ts)
 * and describes the route in GET /api/openapi.json (src/http/openapi.ts).
 */

/** A JSON Schema object (draft 2020-12, the dialect of OpenAPI 3.1). */
export type Schema = Record<string, unknown>;

export interface RouteParts {
  params?: Schema;
  querystring?: Schema;
  /** A JSON body. Routes that take raw bytes declare `consumes` instead. */
  body?: Schema;
  /** Media types of a raw body (e.g. `application/octet-stream`): no JSON parsing, no 415. */
  consumes?: string[];
  /** The route reads any body itself (its own parser) and answers it, never a 415: `body` documents the JSON it wants. */
  anyBody?: boolean;
  /** The success answer, keyed by status: `{ 200: schema }` or `{ 202: schema }`. */
  response: Record<number, Schema>;
  /** A paragraph under the summary in the OpenAPI document. */
  description?: string;
}

export interface RouteSchema extends Omit<RouteParts, 'response'> {
  summary: string;
  tags: string[];
  response: Record<number, Schema>;
}

/** The `schema` option of one route: summary (one line), one tag (the capability) and its parts. */
export function route(tag: string, summary: string, parts: RouteParts): RouteSchema {
  return { summary, tags: [tag], ...parts };
}

export const str = (description?: string, extra: Schema = {}): Schema => ({ type: 'string', ...(description ? { description } : {}), ...extra });
export const bool = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const int = (description?: string, extra: Schema = {}): Schema => ({ type: 'integer', ...(description ? { description } : {}), ...extra });
export const num = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
export const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const oneOf = (...values: (string | number | boolean | null)[]): Schema => ({ enum: values });
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });
/** Gives a field its own error sentence (`{field}` stands for its name); the validator answers it. */
export const says = (s: Schema, sentence: string): Schema => ({ ...s, 'x-error': sentence });

/** Any JSON value (the service checks it and answers its own sentence). */
export const any = (description?: string): Schema => (description ? { description } : {});

/** An object with exactly these properties (`additionalProperties: false`) unless `open` says otherwise. */
export function obj(properties: Record<string, Schema>, required: string[] = [], options: { open?: boolean; description?: string } = {}): Schema {
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: options.open ?? false,
    ...(options.description ? { description: options.description } : {}),
  };
}

/** An object whose members are open (maps, documents the service owns); described, not closed. */
export const openObj = (description?: string, properties: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  ...(Object.keys(properties).length ? { properties } : {}),
  additionalProperties: true,
  ...(description ? { description } : {}),
});

/** `{ok: true, ...more}`: the answer of most writes. */
export const ok = (more: Record<string, Schema> = {}): Schema => obj({ ok: { const: true }, ...more }, ['ok', ...Object.keys(more)], { open: true });

/** The wildcard tail of `/api/files/*`: named `*` by Fastify, `{path}` in the document. */
export const wildcardParams = (description: string): Schema => obj({ '*': str(description) }, [], { open: false });

/** Path parameters: every one a required string. */
export function params(names: Record<string, string>): Schema {
  return obj(Object.fromEntries(Object.entries(names).map(([k, d]) => [k, str(d)])), Object.keys(names));
}

/** A query string: every member a string (no type coercion; the service parses numbers and flags). */
export function query(names: Record<string, string | Schema>): Schema {
  return obj(Object.fromEntries(Object.entries(names).map(([k, d]) => [k, typeof d === 'string' ? str(d) : d])));
}

/** The body of every error answer (seed 000 §7). */
export const errorBody: Schema = obj({ error: str('one sentence that says what to fix') }, ['error']);

/** The body of a POST that takes none: nothing, or `{}`. */
export const noBody: Schema = obj({}, [], { description: 'no body (or {})' });

/**
 * Fastify's `FastifySchema` lists only the validated parts; the route-schema convention also carries
 * the OpenAPI members. Declaring them here lets a route pass them without casting its schema.
 */
declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: string[];
    description?: string;
    consumes?: string[];
    anyBody?: boolean;
  }
}
