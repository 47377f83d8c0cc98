/**
 * Raw HTTP requests and WebSocket upgrades with full control of Host and Origin (fetch and the
 * ws client set those themselves), for guard tests.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';

export interface RawAnswer {
  status: number;
  body: string;
}

export function rawRequest(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A JSON request whose path reaches the engine exactly as written (fetch would normalize `..` and `%2e`). */
export async function rawJson(baseUrl: string, method: string, path: string, body?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const r = await rawRequest(Number(new URL(baseUrl).port), { method, path, headers, body });
  try {
    return { status: r.status, body: r.body ? JSON.parse(r.body) : undefined };
  } catch {
    return { status: r.status, body: r.body };
  }
}

/** Attempts a WebSocket upgrade; 101 when the server switched protocols, else the refusal status and body. */
export function rawUpgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: '' });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}
