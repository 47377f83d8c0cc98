/**
 * Routes WebSocket upgrades by path after the same guard HTTP requests pass.
 * Each socket (/events, /term, /browser) is a handler; refusals are JSON like every other answer.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Guard } from '../guard.js';
import { canonicalTarget } from '../request-path.js';

export interface SocketHandler {
  path: string;
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export function attachSockets(server: Server, guard: Guard, handlers: SocketHandler[]): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    // The same canonical target HTTP requests get, made once: the guard judges it and the handler
    // lookup (and the handler, through req.url) uses it.
    const target = canonicalTarget(req.url);
    if (!target.ok) return refuse(socket, 400, target.message);
    req.url = target.path + target.query;
    const verdict = guard.check({ headers: req.headers, rawHeaders: req.rawHeaders, url: req.url, canonical: target, remoteAddress: req.socket.remoteAddress, upgrade: true });
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.message);
    const pathname = target.path.length > 1 && target.path.endsWith('/') ? target.path.slice(0, -1) : target.path;
    const handler = handlers.find((h) => h.path === pathname);
    if (!handler) return refuse(socket, 404, `no WebSocket at ${pathname}; the sockets are ${handlers.map((h) => h.path).join(', ')}`);
    handler.handle(req, socket, head);
  });
}

export function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  const reason = status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
