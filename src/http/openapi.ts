/**
 * GET /api/openapi.json: an OpenAPI 3.1 document generated from the route table itself. Every
 * route registered on the app (through Fastify's onRoute hook) contributes its method, URL and the
 * `schema` option it declared (src/http/schemas.ts); the same schemas validate requests, so the
 * document cannot drift from the code. The two WebSocket endpoints are listed under `x-websockets`.
 */
import type { FastifyInstance } from 'fastify';
import { ENGINE_NAME, engineVersion } from '../kernel/version.js';
import { errorBody, openObj, route, type Schema } from './schemas.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: Schema | undefined;
}

/** The WebSocket endpoints (upgrades, outside Fastify's router). */
export const SOCKETS = [
  { path: '/events', summary: 'every engine event as one JSON text frame each (no filters, no replay: read the state routes first, then open it)' },
  { path: '/term', summary: 'an interactive terminal (loopback peers only); JSON frames `{type: "input" | "resize", ...}`' },
];

const catalogs = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** The routes registered on `app` with the schemas they declared (the route validator's test checks each). */
export const catalogOf = (app: FastifyInstance): readonly RegisteredRoute[] => catalogs.get(app) ?? [];

/** Records every route as it is registered; call before any route is added. */
export function routeCatalog(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  catalogs.set(app, routes);
  app.addHook('onRoute', (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      // No route is HEAD's own (server.ts routes a HEAD as its GET); OPTIONS is not part of the API.
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({ method, url: r.url, schema: r.schema as Schema | undefined });
    }
  });
  return routes;
}

/** Registers GET /api/openapi.json over the catalog; the document is built once, on first request. */
export function openApiRoute(app: FastifyInstance, routes: RegisteredRoute[]): void {
  let doc: unknown;
  app.get(
    '/api/openapi.json',
    { schema: route('system', 'this document: every route with its request and response schemas (OpenAPI 3.1)', { response: { 200: openObj('an OpenAPI 3.1 document') } }) },
    async () => (doc ??= openApiDocument(routes)),
  );
}

/** `/api/chat/:sessionId` -> `/api/chat/{sessionId}`; the wildcard `*` -> `{path}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');

export function openApiDocument(routes: RegisteredRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = openApiPath(r.url);
    paths[p] ??= {};
    paths[p][r.method.toLowerCase()] = operation(r);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: ENGINE_NAME,
      version: engineVersion(),
      description:
        'A local daemon for AI-assisted work: files, shell, chat, agents and tools behind a permission gate. ' +
        'Every error answers `{"error": "<one sentence>"}`. JSON bodies only (`content-type: application/json`), ' +
        'except raw uploads that say otherwise. Events arrive on the WebSocket at /events.',
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas: { Error: errorBody } },
    'x-websockets': SOCKETS,
  };
}

function operation(r: RegisteredRoute): Record<string, unknown> {
  const s = (r.schema ?? {}) as {
    summary?: string;
    description?: string;
    tags?: string[];
    params?: Schema;
    querystring?: Schema;
    body?: Schema;
    consumes?: string[];
    response?: Record<string, Schema>;
  };
  const parameters = [...parametersOf(s.params, 'path'), ...parametersOf(s.querystring, 'query')];
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(s.response ?? {})) {
    const media = (schema as Schema).format === 'binary' ? 'application/octet-stream' : ((schema as Schema).contentMediaType as string | undefined) ?? 'application/json';
    responses[status] = { description: (schema as Schema).description ?? 'success', content: { [media]: { schema } } };
  }
  responses.default = { description: 'an error: one sentence that says what to fix', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const op: Record<string, unknown> = {
    operationId: `${r.method.toLowerCase()}${openApiPath(r.url).replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: s.summary,
    ...(s.description ? { description: s.description } : {}),
    tags: s.tags,
    ...(parameters.length ? { parameters } : {}),
    responses,
  };
  if (s.consumes) {
    op.requestBody = { required: false, content: Object.fromEntries(s.consumes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
  } else if (s.body) {
    const required = Array.isArray(s.body.required) && s.body.required.length > 0;
    op.requestBody = { required: required || s.body.type !== 'object', content: { 'application/json': { schema: s.body } } };
  }
  return op;
}

function parametersOf(schema: Schema | undefined, where: 'path' | 'query'): unknown[] {
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name: name === '*' ? 'path' : name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(s.description ? { description: s.description } : {}),
    schema: s,
  }));
}
