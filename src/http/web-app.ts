/**
 * The web workbench the engine serves from its own origin (web/, built into dist/web by
 * `npm run build`; docs/web.md). Three kinds of answer, none of them carrying data:
 *   /assets/<hashed name>   the built scripts and styles: cached for a year (the name changes with
 *                           the content), gzip when the browser takes it
 *   the app shell           index.html for a browser's GET of / or of a client route (/chat,
 *                           /runs/<id>, ...), so a notification link or a reload lands on its page
 *   /m/ and /m/<route>      the phone layout's shell (seed 000 §4.20: served without authentication;
 *                           the mobile token guards the data)
 * The files are read once into memory (a few hundred kB) with their gzip twins and ETags.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { packageRoot } from '../kernel/version.js';

/** The first path segments the workbench routes on the client (web/src/router.ts keeps the same list). */
export const CLIENT_ROUTES = ['chat', 'approvals', 'runs', 'workflows', 'files', 'vaults', 'boards', 'maps', 'databases', 'settings'];

/** Paths of the shell and its assets: public, like any static page (guard.ts lets them through). */
export function isPublicShellPath(pathname: string): boolean {
  return pathname === '/m' || pathname.startsWith('/m/') || pathname.startsWith('/assets/') || pathname === '/favicon.svg';
}

interface StaticFile {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface WebApp {
  /** Answers a GET/HEAD the router had no route for, when it is the app's; false otherwise. */
  handle(req: FastifyRequest, reply: FastifyReply): boolean;
  /** Sends the workbench shell (GET / from a browser). */
  sendShell(req: FastifyRequest, reply: FastifyReply): FastifyReply;
}

export function wantsHtml(req: FastifyRequest): boolean {
  return String(req.headers.accept ?? '').includes('text/html');
}

export function createWebApp(dir = path.join(packageRoot(), 'dist', 'web')): WebApp {
  let files: Map<string, StaticFile> | undefined;
  const load = (): Map<string, StaticFile> => {
    if (files) return files;
    files = new Map();
    if (!existsSync(path.join(dir, 'index.html'))) return files;
    const walk = (rel: string) => {
      for (const name of readdirSync(path.join(dir, rel))) {
        const relPath = rel ? `${rel}/${name}` : name;
        const full = path.join(dir, relPath);
        if (statSync(full).isDirectory()) walk(relPath);
        else if (!name.endsWith('.map')) files!.set('/' + relPath, readStatic(full, relPath));
      }
    };
    walk('');
    return files;
  };

  const send = (req: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply => {
    reply.header('content-type', file.type).header('etag', file.etag).header('x-content-type-options', 'nosniff');
    reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
    if (file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding');
      return reply.send(file.gzip);
    }
    return reply.send(file.body);
  };

  const notBuilt = (reply: FastifyReply) =>
    reply.code(404).type('text/plain; charset=utf-8').send('The web workbench is not built; run npm run build, then reload. The API answers under /api.');

  return {
    sendShell(req, reply) {
      const shell = load().get('/index.html');
      return shell ? send(req, reply, shell) : notBuilt(reply);
    },
    handle(req, reply) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const pathname = req.url.split('?')[0];
      const all = load();
      // The phone's own client routes (/m/chat/<id>, /m/runs) get its shell too, on a reload.
      if (pathname === '/m' || pathname === '/m/' || (pathname.startsWith('/m/') && wantsHtml(req))) {
        const phone = all.get('/m/index.html');
        if (phone) send(req, reply, phone);
        else notBuilt(reply);
        return true;
      }
      const file = all.get(pathname);
      if (file && pathname !== '/index.html') {
        send(req, reply, file);
        return true;
      }
      const first = pathname.split('/')[1];
      if (CLIENT_ROUTES.includes(first) && wantsHtml(req)) {
        this.sendShell(req, reply);
        return true;
      }
      return false;
    },
  };
}

function readStatic(full: string, relPath: string): StaticFile {
  const body = readFileSync(full);
  const type = TYPES[path.extname(full)] ?? 'application/octet-stream';
  const compressible = /^(text\/|image\/svg|application\/json)/.test(type) && body.length > 512;
  return {
    body,
    gzip: compressible ? gzipSync(body, { level: 9 }) : undefined,
    type,
    etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`,
    immutable: relPath.startsWith('assets/'),
  };
}
