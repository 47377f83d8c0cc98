/**
 * The gateway's own listener: a plain node:http server, separate from the engine's, so that widening
 * it to the network can never expose /api/*. Moving between scopes closes the listening socket and
 * opens the other one on the same port without restarting the engine; narrowing also drops the
 * connections of callers that are no longer allowed to reach it.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { isLoopback } from '../../http/guard.js';
import type { GatewayScope } from './types.js';

export const HOST_OF: Record<GatewayScope, string> = { local: '127.0.0.1', network: '0.0.0.0' };

export class GatewayListener {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Fixed after the first successful listen, so a port of 0 (tests) keeps the port it was given. */
  port: number;
  host = HOST_OF.local;
  error: string | undefined;

  constructor(
    port: number,
    private readonly handler: http.RequestListener,
  ) {
    this.port = port;
  }

  get listening(): boolean {
    return !!this.server?.listening;
  }

  async bind(scope: GatewayScope): Promise<void> {
    const host = HOST_OF[scope];
    if (this.server?.listening && this.host === host) return;
    const old = this.server;
    this.server = undefined;
    // Closing stops accepting at once (idle keep-alive connections close, streams in flight finish)
    // and frees the port for the new socket; its callback would wait for those streams, so it is not awaited.
    old?.close();
    if (scope === 'local') for (const s of this.sockets) if (!isLoopback(s.remoteAddress)) s.destroy();
    const server = http.createServer(this.handler);
    server.keepAliveTimeout = 65_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    try {
      await listenRetrying(server, this.port, host, old ? 20 : 1);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      this.error = code === 'EADDRINUSE' ? `port ${this.port} is already in use; set ENGINE_GATEWAY_PORT to a free port` : `cannot listen on ${host}:${this.port} (${code ?? String(err)})`;
      throw new Error(this.error);
    }
    const address = server.address();
    if (address && typeof address === 'object') this.port = address.port;
    this.server = server;
    this.host = host;
    this.error = undefined;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The old socket's port is released a moment after close(): a rebind retries briefly on EADDRINUSE. */
async function listenRetrying(server: http.Server, port: number, host: string, tries: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= tries) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
