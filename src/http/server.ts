/**
 * The Fastify app: the guard on every request, body limits, JSON-only errors, 405 for a path
 * that exists under another verb (methods.ts), request validation and 415 from the route schemas
 * (validation.ts) and the OpenAPI document (openapi.ts). Capabilities add their routes to the
 * returned app, each with a `schema` option (schemas.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerFactoryHandler, type FastifyServerOptions } from 'fastify';
import { describeError, EngineError, jsonSyntaxReason } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import { canonicalOf, edgeOptions, installEdge } from './edge.js';
import { installFramePolicy } from './framing.js';
import type { Guard } from './guard.js';
import { methodTable, sendMethodNotAllowed } from './methods.js';
import { openApiRoute, routeCatalog } from './openapi.js';
import { compilersFactory, installValidation } from './validation.js';
import type { Redactor } from '../kernel/redact.js';
import { maskJson } from './redact-responses.js';
import type { WebApp } from './web-app.js';

export interface ServerOptions {
  guard: Guard;
  /** Where unexpected errors are written (never to the client). */
  log: (line: string) => void;
  /** The web workbench's files (web-app.ts): answered where no API route matches. */
  webApp?: WebApp;
  /** The exit mask of every answer (redact-responses.ts); the early lane masks with it too. */
  redactor?: Redactor;
}

/** The GET routes answered before Fastify (answerEarly), by exact path. */
const early = new WeakMap<FastifyInstance, Map<string, () => unknown>>();

/**
 * Answers a polled, parameter-free GET (GET /api/status) before Fastify's per-request lifecycle,
 * which costs more than the route itself (bench/status-throughput). Only a request whose target is
 * exactly `path` (canonical, no query) and that the guard passes is answered here, with the same
 * headers and masked body as the Fastify route (a HEAD too: earlyServer routes it as its GET);
 * anything else (a query, a refusal, a closing engine, an error) goes to the Fastify route, which
 * the caller registers too (schema, OpenAPI).
 */
export function answerEarly(app: FastifyInstance, path: string, answer: () => unknown): void {
  early.get(app)?.set(path, answer);
}

export function createServer({ guard, log, webApp, redactor }: ServerOptions): FastifyInstance {
  const lane = new Map<string, () => unknown>();
  let open = true;
  const app = Fastify({
    serverFactory: (handler, opts) => earlyServer(handler, opts, (req, res) => open && answeredEarly(req, res)),
    bodyLimit: LIMITS.requestBodyBytes,
    logger: false,
    forceCloseConnections: true,
    // HEAD is answered as GET by earlyServer, not by a twin route per GET (see there).
    exposeHeadRoutes: false,
    ...edgeOptions(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    schemaController: { compilersFactory },
  });

  early.set(app, lane);
  /** True when the early lane answered the request (then Fastify never sees it). */
  const answeredEarly = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url!;
    const answer = lane.get(url);
    if (!answer || req.method !== 'GET') return false;
    // The lane holds exact canonical paths only, so `url` is its own canonical reading.
    const verdict = guard.check({ headers: req.headers, rawHeaders: req.rawHeaders, url, canonical: { ok: true, path: url, query: '' }, method: 'GET', remoteAddress: req.socket.remoteAddress, upgrade: false });
    if (!verdict.ok) return false; // the Fastify route's guard refuses it, in its words
    const fail = (err: unknown) => {
      const { status, message } = toClientError(err);
      log(`GET ${url} failed: ${describeError(err)}`);
      send(res, status, maskAnswer(JSON.stringify({ error: message })));
    };
    const ok = (value: unknown) => {
      let text: string;
      try {
        text = JSON.stringify(value);
      } catch (err) {
        return fail(err);
      }
      send(res, 200, maskAnswer(text));
    };
    // An answer ready at once is sent in this tick, as a bare server does; a promise when it resolves.
    let value: unknown;
    try {
      value = answer();
    } catch (err) {
      fail(err);
      return true;
    }
    if (value instanceof Promise) value.then(ok, fail);
    else ok(value);
    return true;
  };
  const maskAnswer = (payload: string) => (redactor ? maskJson(payload, redactor) : payload);

  app.addHook('preClose', (done) => {
    open = false; // a closing engine's 503 is the edge's (edge.ts)
    done();
  });

  // Route catalog (OpenAPI) and verb table (405) see every route: installed before any is added.
  const routes = routeCatalog(app);
  const methods = methodTable(app);
  installValidation(app);

  installFramePolicy(app);
  const edge = installEdge(app);
  // One callback hook for the edge and the guard, not an async one per concern: it runs on every
  // request, and each hook and promise shows up in throughput (bench/status-throughput). The 405
  // check of parametrised routes is their own route hook (methods.ts).
  app.addHook('onRequest', (req, reply, done) => {
    if (edge(req, reply)) return;
    const verdict = guard.check({
      headers: req.headers,
      rawHeaders: req.raw.rawHeaders,
      url: req.url,
      canonical: canonicalOf(req.raw),
      method: req.method,
      remoteAddress: req.socket.remoteAddress,
      upgrade: false,
    });
    if (!verdict.ok) {
      reply.code(verdict.status).send({ error: verdict.message });
      return;
    }
    done();
  });

  // JSON bodies: an empty body is "no body"; anything else must parse.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (!text.trim()) return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new EngineError(400, `malformed JSON body (${jsonSyntaxReason(err)}); send one valid JSON value`), undefined);
    }
  });
  // Other content types arrive as raw bytes; routes that take them (files-bin) read the Buffer.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setNotFoundHandler((req, reply) => {
    if (webApp?.handle(req, reply)) return reply;
    const path = req.url.split('?')[0];
    const allowed = methods.allowed(path);
    if (allowed.length) return sendMethodNotAllowed(reply, allowed);
    return reply.code(404).send({ error: `no route for ${req.method} ${path}; GET /api/openapi.json lists every route` });
  });

  app.setErrorHandler((error: FastifyError | EngineError, req, reply) => {
    const { status, message } = toClientError(error);
    // An EngineError is an expected failure (an offline hub's 502) with its sentence: one line, no stack.
    if (status >= 500) log(`${req.method} ${req.url.split('?')[0]} failed: ${error instanceof EngineError ? `${status} ${error.message}` : (error.stack ?? describeError(error))}`);
    return reply.code(status).send({ error: message });
  });

  openApiRoute(app, routes);
  return app;
}

/** The HTTP/1 server Fastify would make (its timeouts), with the early lane in front of its handler. */
function earlyServer(handler: FastifyServerFactoryHandler, opts: FastifyServerOptions, lane: (req: IncomingMessage, res: ServerResponse) => boolean): http.Server {
  const server = http.createServer((req, res) => {
    // HEAD is GET without the body (RFC 9110 §9.3.2). Node's response already knows it answers a
    // HEAD and sends the headers (content-length included) but never a body, so the request is
    // routed as the GET it mirrors. Fastify's own way, a HEAD twin of each of ~170 GET routes, held
    // ~6 kB of heap a route (issue 42, bench/memory).
    if (req.method === 'HEAD') req.method = 'GET';
    if (!lane(req, res)) handler(req, res);
  });
  if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
  if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
  server.setTimeout(opts.connectionTimeout ?? 0);
  if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
  return server;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Maps anything thrown in a route to a status and a sentence; never a stack trace. */
export function toClientError(error: unknown): { status: number; message: string } {
  if (error instanceof EngineError) return { status: error.status, message: error.message };
  const e = error as FastifyError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: 'request body is too large; the limit is 32 MB (50 MB for PUT /api/files-bin)' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'unsupported content type; send application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'the Content-Length header does not match the body; send the body again' };
    case 'FST_ERR_VALIDATION':
      return { status: 400, message: `invalid request: ${e.message}` };
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, message: e.message || 'bad request' };
  }
  return { status: 500, message: 'internal error; the engine log has the details' };
}
