/**
 * The HTTP edge before any route: the request target is made canonical once (request-path.ts)
 * before the guard and the router see it, and every answer Fastify would write itself (a bad URL,
 * a malformed request line, a request on a closing server, Node's own 417) becomes `{error: sentence}` instead of
 * Fastify's `{error, code, message, statusCode}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { canonicalTarget, TARGET_CANONICAL, TARGET_REFUSAL, type RequestTarget } from './request-path.js';

type Refusable = IncomingMessage & { [TARGET_REFUSAL]?: string; [TARGET_CANONICAL]?: RequestTarget & { ok: true } };

/** Spread into the Fastify factory options. */
export function edgeOptions(): Pick<FastifyServerOptions, 'rewriteUrl' | 'frameworkErrors' | 'clientErrorHandler' | 'return503OnClosing'> {
  return {
    rewriteUrl(req) {
      const target = canonicalTarget(req.url);
      if (target.ok) {
        // Kept for the guard, so it judges this very reading instead of making it again.
        (req as Refusable)[TARGET_CANONICAL] = target;
        return target.path + target.query;
      }
      (req as Refusable)[TARGET_REFUSAL] = target.message;
      return '/'; // answered with the refusal by the first onRequest hook, before any route
    },
    frameworkErrors(error: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'a path segment is too long; shorten the path'
          : error.code === 'FST_ERR_BAD_URL'
            ? 'the path is not a valid URL path; percent-encode it as UTF-8'
            : 'the request could not be routed; check the path';
      void reply.code(error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400).send({ error: message });
    },
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const [status, reason, message] =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'the request took too long to arrive; send it again']
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'Request Header Fields Too Large', 'the request headers are too large; send fewer or shorter headers']
            : [400, 'Bad Request', 'the request is not valid HTTP/1.1; check the request line and headers'];
      const body = JSON.stringify({ error: message });
      if (socket.writable) {
        socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      }
      socket.destroy(err);
    },
    // Fastify's own 503 body has extra fields; the hook below answers instead.
    return503OnClosing: false,
  };
}

/**
 * Arms the edge and returns its per-request check, which must run first in the one onRequest hook
 * (server.ts): refusals of the target and of a closing server come before the guard. True when it
 * answered.
 */
export function installEdge(app: FastifyInstance): (req: FastifyRequest, reply: FastifyReply) => boolean {
  // Node answers an Expect other than 100-continue itself, with an empty 417; answer in JSON instead.
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ error: 'only "Expect: 100-continue" is supported; send the request without that Expect header' });
    res.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return (req, reply) => {
    const refusal = (req.raw as Refusable)[TARGET_REFUSAL];
    if (refusal) reply.code(400).send({ error: refusal });
    else if (closing) reply.code(503).header('connection', 'close').send({ error: 'the engine is shutting down; send the request again once it is back' });
    else return false;
    return true;
  };
}

/** The canonical reading the edge made of this request's target (undefined when it was refused). */
export const canonicalOf = (req: IncomingMessage) => (req as Refusable)[TARGET_CANONICAL];
