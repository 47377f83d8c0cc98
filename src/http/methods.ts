/**
 * 405 with an `Allow` header for every path that exists under another verb (seed 000 §7), including
 * the paths a parametrised route would otherwise swallow: `GET /api/chat/stop` matches
 * `GET /api/chat/:sessionId`, but `stop` is a literal route of POST, so the answer is 405, not
 * "session id not valid".
 */
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
type Method = (typeof METHODS)[number];

export const METHOD_NOT_ALLOWED = 'method not allowed';

export interface MethodTable {
  /** The verbs a path answers to (HEAD with GET), or none. */
  allowed(path: string): Method[];
  /** Verbs other than `method` that have a literal (parameter-free) route for exactly this path. */
  literalElsewhere(method: string, path: string): Method[];
}

/** Mirrors the route table as it is built (call before routes are added). */
export function methodTable(app: FastifyInstance): MethodTable {
  const opts = { ignoreTrailingSlash: true, maxParamLength: 4096 };
  const all = FindMyWay(opts);
  const literal = FindMyWay(opts);
  const matching = (table: typeof all, path: string, except?: string) => METHODS.filter((m) => m !== except && table.find(m, path));
  const table: MethodTable = {
    allowed(path) {
      const literals = matching(literal, path);
      return literals.length ? literals : matching(all, path);
    },
    literalElsewhere: (method, path) => matching(literal, path, method),
  };
  app.addHook('onRoute', (route) => {
    const isLiteral = !route.url.includes(':') && !route.url.includes('*');
    // Only a parametrised route can swallow another verb's literal path: the check runs on those
    // routes alone, as their own hook, instead of on every request (bench/status-throughput).
    // First among the route's hooks, as when it was a global one.
    if (!isLiteral) route.onRequest = [methodCheck(table), ...hooksOf(route.onRequest)];
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      for (const mirror of isLiteral ? [all, literal] : [all]) {
        try {
          mirror.on(method as Method, route.url, () => undefined);
        } catch {
          // Already mirrored (a route re-registered with constraints).
        }
      }
    }
  });
  return table;
}

/** A route option's hooks as an array (Fastify takes one function or an array). */
export function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** Answers 405 with `Allow` listing the verbs of the path. */
export function sendMethodNotAllowed(reply: FastifyReply, allowed: Method[]): FastifyReply {
  const verbs = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
  return reply.code(405).header('allow', verbs.join(', ')).send({ error: METHOD_NOT_ALLOWED });
}

/**
 * The onRequest check of a parametrised route: when the same path is a literal route of another
 * verb, the literal wins and this verb is not allowed.
 */
function methodCheck(table: MethodTable): onRequestHookHandler {
  return (req, reply, done) => {
    const q = req.url.indexOf('?');
    const path = q === -1 ? req.url : req.url.slice(0, q);
    if (table.literalElsewhere(req.method, path).length) {
      sendMethodNotAllowed(reply, table.allowed(path));
      return;
    }
    done();
  };
}
