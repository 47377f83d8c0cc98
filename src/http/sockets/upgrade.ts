/**
 * Routes WebSocket upgrades by path after the same guard HTTP requests pass.
 * Each socket (/events, /term, /browser) is a handler; refusals are JSON like every other answer.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Guard } from '../guard.js';

export interface SocketHandler {
  path: string;
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): void;
}

export function attachSockets(server: Server, guard: Guard, handlers: SocketHandler[]): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = req.url ?? '/';
    const verdict = guard.check({ headers: req.headers, url, remoteAddress: req.socket.remoteAddress, upgrade: true });
    if (!verdict.ok) return refuse(socket, 403, verdict.message);
    const pathname = new URL(url, 'http://local').pathname;
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
