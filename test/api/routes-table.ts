/**
 * The route table as Fastify's router prints it, one verb at a time (independent of the engine's
 * own catalog), so the OpenAPI coverage test compares the document with what is really registered.
 * The printer drops the prefix of a wildcard route (`/api/files/*` prints as `*`), so wildcard
 * routes come back as `*` and are compared by count.
 */
import type { FastifyInstance } from 'fastify';

export interface TableRoute {
  method: string;
  url: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

export function registeredRoutes(app: FastifyInstance): TableRoute[] {
  const out: TableRoute[] = [];
  for (const method of METHODS) {
    const stack: Array<{ depth: number; prefix: string }> = [];
    for (const line of app.printRoutes({ commonPrefix: false, method }).split('\n')) {
      const at = line.indexOf('── ');
      if (at < 0) continue;
      const m = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 3));
      if (!m) continue;
      while (stack.length && stack[stack.length - 1].depth >= at) stack.pop();
      const prefix = (stack.length ? stack[stack.length - 1].prefix : '') + m[1];
      stack.push({ depth: at, prefix });
      if (m[2]?.split(', ').includes(method)) out.push({ method, url: prefix.endsWith('*') ? '*' : prefix });
    }
  }
  return out;
}
