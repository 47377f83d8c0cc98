/**
 * GET through the URL floor: every hop (the first URL and each redirect, at most LIMITS.webRedirects)
 * is checked, and the connection itself resolves names through the floor's lookup, so no redirect or
 * DNS answer leads past it. Bounded in time (one deadline for the whole chain) and in bytes.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { withoutCredentials, type UrlFloor } from './floor.js';

export interface GetOptions {
  floor: UrlFloor;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  headers?: Record<string, string>;
}

export interface GetResponse {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
}

const USER_AGENT = 'Mozilla/5.0 (compatible; WorkbenchEngine/0.1; +https://github.com/)';

export async function floorGet(input: string, options: GetOptions): Promise<GetResponse> {
  const timeoutMs = options.timeoutMs ?? LIMITS.webFetchTimeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = await options.floor.check(input);
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(url, options, signal, timeoutMs);
    if (res.location !== undefined) {
      if (hop >= LIMITS.webRedirects) throw new EngineError(502, `too many redirects (more than ${LIMITS.webRedirects}) starting at ${input}`);
      let next: URL;
      try {
        next = new URL(res.location, url);
      } catch {
        throw new EngineError(502, `${withoutCredentials(url.href)} redirected to an invalid URL`);
      }
      url = await options.floor.check(next);
      continue;
    }
    return { url: url.href, status: res.status, contentType: res.contentType, body: res.body, truncated: res.truncated };
  }
}

interface Hop {
  status: number;
  contentType: string;
  location?: string;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(url: URL, options: GetOptions, signal: AbortSignal, timeoutMs: number): Promise<Hop> {
  const maxBytes = options.maxBytes ?? LIMITS.webFetchMaxBytes;
  const mod = url.protocol === 'https:' ? https : http;
  const shown = withoutCredentials(url.href);
  return new Promise<Hop>((resolve, reject) => {
    const fail = (err: unknown) => {
      if (err instanceof EngineError) return reject(err);
      if (signal.aborted) {
        const reason = signal.reason as Error | undefined;
        if (reason?.name === 'TimeoutError') return reject(new EngineError(504, `${shown} did not answer within ${timeoutMs / 1000} s`));
        return reject(new EngineError(499, `fetching ${shown} was stopped`));
      }
      const code = (err as NodeJS.ErrnoException).code;
      reject(new EngineError(502, `could not fetch ${shown}: ${code ?? (err as Error).message}`));
    };
    const req = mod.get(
      url,
      {
        signal,
        lookup: options.floor.lookup,
        headers: {
          'user-agent': USER_AGENT,
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
          ...options.headers,
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (status >= 300 && status < 400 && location) {
          res.resume();
          return resolve({ status, contentType: '', location, body: Buffer.alloc(0), truncated: false });
        }
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
        let stream: NodeJS.ReadableStream = res;
        if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
        else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
        else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const done = () =>
          resolve({ status, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks), truncated });
        stream.on('data', (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > maxBytes) {
            chunks.push(chunk.subarray(0, maxBytes - size));
            size = maxBytes;
            truncated = true;
            res.destroy();
            done();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        stream.on('end', done);
        stream.on('error', (err) => (truncated ? undefined : fail(err)));
        res.on('error', (err) => (truncated ? undefined : fail(err)));
      },
    );
    req.on('error', fail);
  });
}
