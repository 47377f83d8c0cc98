/**
 * One HTTP request through the URL floor: any method, headers and body. Every hop (the first URL and
 * each redirect, at most LIMITS.webRedirects) is checked, and the connection itself resolves names
 * through the floor's lookup, so no redirect or DNS answer leads past it. Bounded in time (one
 * deadline for the whole chain) and in bytes. Redirects are followed for GET and HEAD only (a body
 * is never replayed to another URL). A compressed answer is decompressed.
 *
 * The web tools (floorGet), load_skill and the workflow `http` node all come through here.
 */
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import zlib from 'node:zlib';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { lookupOn, portOf, withoutCredentials } from './floor.js';

/** The floor a request passes: the real UrlFloor, or a scheme check only where a person allowed private addresses. */
export interface RequestFloor {
  check(url: string | URL): Promise<URL>;
  /** The connection's own name lookup (the floor's, against DNS rebinding); absent: the system's. */
  lookup?: net.LookupFunction;
  /** The same for a connection to one port (hosts a person allowed may be listed with a port). */
  lookupFor?(port: number): net.LookupFunction;
}

export interface FloorRequestOptions {
  floor: RequestFloor;
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxBytes?: number;
  /** A body past maxBytes is cut there (`truncated: true`, the default) or fails the request (502). */
  overflow?: 'truncate' | 'fail';
}

export interface FloorResponse {
  /** The final URL after redirects. */
  url: string;
  status: number;
  /** Response headers, repeated ones joined with ", ". */
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  /** The body was cut at maxBytes. */
  truncated: boolean;
}

/** The check of a request whose person allowed private addresses: an absolute http(s) URL, nothing more. */
export const schemeOnly: RequestFloor = {
  async check(input) {
    try {
      const url = typeof input === 'string' ? new URL(input) : input;
      if (url.protocol === 'http:' || url.protocol === 'https:') return url;
    } catch {
      // answered below
    }
    throw new EngineError(400, `"${withoutCredentials(String(input)).slice(0, 200)}" is not a valid http(s) URL`);
  },
};

export async function floorRequest(input: string | URL, options: FloorRequestOptions): Promise<FloorResponse> {
  const method = (options.method ?? 'GET').toUpperCase();
  // Redirects are followed for GET and HEAD only; for any other method a 3xx is the answer.
  const follow = method === 'GET' || method === 'HEAD';
  const timeoutMs = options.timeoutMs ?? LIMITS.webFetchTimeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = await options.floor.check(input);
  let hopOptions = options;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(url, method, follow, hopOptions, signal, timeoutMs);
    if (res.location === undefined) return { url: url.href, ...res };
    if (hop >= LIMITS.webRedirects) throw new EngineError(502, `too many redirects (more than ${LIMITS.webRedirects}) starting at ${withoutCredentials(String(input))}`);
    let next: URL;
    try {
      next = new URL(res.location, url);
    } catch {
      throw new EngineError(502, `${withoutCredentials(url.href)} redirected to an invalid URL`);
    }
    // As browsers do: credentials the caller set for one origin never follow a redirect to another
    // (a workflow's `Authorization: Bearer {{secret:...}}` must not reach whoever the host sends us to).
    if (next.origin !== url.origin && hopOptions.headers) hopOptions = { ...hopOptions, headers: withoutCredentialHeaders(hopOptions.headers) };
    url = await options.floor.check(next);
  }
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

function withoutCredentialHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

type Hop = Omit<FloorResponse, 'url'> & { location?: string };

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return headers;
}

function requestOnce(url: URL, method: string, follow: boolean, options: FloorRequestOptions, signal: AbortSignal, timeoutMs: number): Promise<Hop> {
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
    const lookup = lookupOn(options.floor, portOf(url));
    const req = mod.request(url, { method, signal, headers: options.headers, ...(lookup ? { lookup } : {}) }, (res) => {
      const status = res.statusCode ?? 0;
      const headers = flatHeaders(res.headers);
      const contentType = String(res.headers['content-type'] ?? '');
      const location = res.headers.location;
      if (follow && status >= 300 && status < 400 && location) {
        res.resume();
        return resolve({ status, headers, contentType, location, body: Buffer.alloc(0), truncated: false });
      }
      const encoding = method === 'HEAD' ? '' : String(res.headers['content-encoding'] ?? '').toLowerCase();
      let stream: NodeJS.ReadableStream = res;
      if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
      else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
      else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = () => resolve({ status, headers, contentType, body: Buffer.concat(chunks), truncated });
      stream.on('data', (chunk: Buffer) => {
        if (truncated) return;
        if (size + chunk.length > maxBytes) {
          truncated = true;
          res.destroy();
          if (options.overflow === 'fail') return reject(new EngineError(502, `${shown} answered more than ${maxBytes} bytes`));
          chunks.push(chunk.subarray(0, maxBytes - size));
          size = maxBytes;
          done();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      stream.on('end', done);
      stream.on('error', (err) => (truncated ? undefined : fail(err)));
      res.on('error', (err) => (truncated ? undefined : fail(err)));
    });
    req.on('error', fail);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
