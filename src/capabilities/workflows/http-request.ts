/**
 * The http node's request: any method, through the URL floor (every hop and the connection's own
 * DNS answer), unless a person allowed private addresses for the node. Bounded in time and bytes;
 * redirects are followed for GET and HEAD only (a POST is never replayed to another host).
 */
import http from 'node:http';
import https from 'node:https';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { HttpRequest, HttpResponse } from './types.js';

export interface FloorLike {
  check(url: string | URL): Promise<URL>;
  lookup: NonNullable<http.RequestOptions['lookup']>;
}

export function createHttpRequester(floor: FloorLike) {
  return async function request(req: HttpRequest): Promise<HttpResponse> {
    const timeoutMs = req.timeoutMs ?? LIMITS.webFetchTimeoutMs;
    const signal = AbortSignal.any([req.signal, AbortSignal.timeout(timeoutMs)]);
    const check = async (u: string | URL) => {
      if (!req.allowPrivate) return floor.check(u);
      try {
        const url = typeof u === 'string' ? new URL(u) : u;
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
        return url;
      } catch {
        throw new EngineError(400, `"${String(u).slice(0, 200)}" is not a valid http(s) URL`);
      }
    };
    let url = await check(req.url);
    for (let hop = 0; ; hop++) {
      const res = await once(url, req, signal, timeoutMs);
      const followable = (req.method === 'GET' || req.method === 'HEAD') && res.status >= 300 && res.status < 400 && res.location;
      if (!followable) return { status: res.status, headers: res.headers, body: res.body };
      if (hop >= LIMITS.webRedirects) throw new EngineError(502, `too many redirects (more than ${LIMITS.webRedirects}) starting at ${req.url}`);
      url = await check(new URL(res.location!, url));
    }
  };

  function once(url: URL, req: HttpRequest, signal: AbortSignal, timeoutMs: number): Promise<HttpResponse & { location?: string }> {
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const fail = (err: unknown) => {
        if (signal.aborted) {
          if (req.signal.aborted) return reject(req.signal.reason ?? new Error('stopped'));
          return reject(new EngineError(504, `${url.origin} did not answer within ${timeoutMs / 1000} s`));
        }
        if (err instanceof EngineError) return reject(err);
        reject(new EngineError(502, `could not reach ${url.origin}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`));
      };
      const r = mod.request(
        url,
        { method: req.method, signal, headers: { 'user-agent': 'WorkbenchEngine-workflow/0.1', ...req.headers }, ...(req.allowPrivate ? {} : { lookup: floor.lookup }) },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > LIMITS.webFetchMaxBytes) {
              res.destroy();
              return fail(new EngineError(502, `${url.origin} answered more than ${LIMITS.webFetchMaxBytes} bytes`));
            }
            chunks.push(c);
          });
          res.on('error', fail);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const type = String(res.headers['content-type'] ?? '');
            let body: unknown = text;
            if (/json/i.test(type) && text.trim()) {
              try {
                body = JSON.parse(text);
              } catch {
                body = text;
              }
            }
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
            resolve({ status: res.statusCode ?? 0, headers, body, location: typeof res.headers.location === 'string' ? res.headers.location : undefined });
          });
        },
      );
      r.on('error', fail);
      if (req.body !== undefined) r.write(req.body);
      r.end();
    });
  }
}
