/**
 * The only way out of a network-on sandbox (issue 22 §2). The sandbox has its own network namespace
 * (nothing but its own loopback), and this proxy, run by the engine on a unix socket that is bound
 * into the sandbox, carries its HTTP traffic: `CONNECT host:port` tunnels (https, git over https)
 * and absolute-form plain HTTP requests (`GET http://host/path`). Every destination passes the URL
 * floor twice, by name and again at connect time (by the address and port dialled), so loopback,
 * private ranges and the machine's own addresses (the engine's API, gateway and webhooks among them)
 * are never reached, whatever a name resolves to, except the private hosts a person allowed
 * (ENGINE_ALLOW_HOSTS), never on the engine's own ports.
 *
 * The socket lives in a private folder (0700) of the system temp dir: a unix socket path is short
 * (108 bytes), and the engine home may sit deep.
 */
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FloorRefusal, lookupOn, portOf, type UrlFloor } from '../capabilities/web/floor.js';

export interface EgressProxy {
  /** The proxy's unix socket path, starting the proxy on first use. */
  socket(): Promise<string>;
  close(): Promise<void>;
}

// Request headers meant for the proxy or for one hop only; never forwarded.
const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export function createEgressProxy(floor: UrlFloor): EgressProxy {
  let started: Promise<{ server: http.Server; dir: string; socket: string }> | undefined;
  const open = new Set<net.Socket>();

  /** The floor's verdict as a status and a sentence (403 refused, 502 not resolvable, 400 malformed). */
  function failure(err: unknown): [number, string] {
    const message = (err as Error).message ?? String(err);
    if (err instanceof FloorRefusal) return [403, message];
    const status = (err as { status?: number }).status;
    return [status === 400 ? 400 : 502, message];
  }

  function refuse(socket: net.Socket, status: number, message: string): void {
    const body = `${message}\n`;
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }

  async function tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    const target = req.url ?? '';
    const m = /^(\[[^\]]+\]|[^:/\s]+):(\d{1,5})$/.exec(target);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return refuse(client, 400, `CONNECT needs host:port, got "${target.slice(0, 100)}"`);
    const port = Number(m[2]);
    let host: string;
    try {
      // The host as the floor parsed it (`0x7f.1` is 127.0.0.1), so what is checked is what is dialled.
      host = (await floor.check(`https://${m[1]}:${port}/`)).hostname.replace(/^\[|\]$/g, '');
    } catch (err) {
      return refuse(client, ...failure(err));
    }
    const upstream = net.connect({ host, port, lookup: lookupOn(floor, port) });
    track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (err) => (upstream.connecting ? refuse(client, ...failure(err)) : client.destroy()));
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  async function forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
      if (url.protocol !== 'http:') throw new Error('only http:// URLs are forwarded; use CONNECT for https');
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`a proxy request needs an absolute http:// URL (${(err as Error).message})\n`);
      return;
    }
    try {
      await floor.check(url);
    } catch (err) {
      const [status, message] = failure(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`${message}\n`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) headers[name] = value;
    const port = portOf(url);
    const upstream = http.request({ host: url.hostname.replace(/^\[|\]$/g, ''), port, path: url.pathname + url.search, method: req.method, headers, lookup: lookupOn(floor, port), agent: false }, (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_HEADERS.has(name) && value !== undefined) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (res.headersSent) return void res.destroy();
      const [status, message] = failure(err);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`${message}\n`);
    });
    req.pipe(upstream);
  }

  function track(socket: net.Socket): void {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  }

  async function start() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'engine-egress-'));
    const socket = path.join(dir, 'proxy.sock');
    const server = http.createServer((req, res) => void forward(req, res));
    server.on('connect', (req, client: net.Socket, head) => void tunnel(req, client, head));
    server.on('connection', track);
    server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
    return { server, dir, socket };
  }

  return {
    async socket() {
      started ??= start();
      return (await started).socket;
    },
    async close() {
      if (!started) return;
      const s = await started.catch(() => undefined);
      started = undefined;
      if (!s) return;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => s.server.close(() => resolve()));
      await rm(s.dir, { recursive: true, force: true });
    },
  };
}
