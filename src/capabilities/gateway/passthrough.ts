/**
 * An OpenAI-compatible upstream is streamed through with the least work possible: the caller's body
 * goes up with only `model` replaced (and usage asked for, so the run can be billed), and the answer's
 * bytes come back as they arrive, undecoded (sse.ts reads the usage out). A usage chunk the caller did
 * not ask for is dropped, so the caller sees the stream it would have seen upstream.
 */
import http from 'node:http';
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { Usage } from '../../kernel/runs.js';
import { errorType, GatewayError } from './errors.js';
import { relay } from './relay.js';
import { UsageTail, UsageTap } from './sse.js';
import type { ChatCompletionRequest, CompletionUsage } from './types.js';
import { fromOpenAI } from './usage.js';

// Keep-alive to the upstream: a new TCP (and TLS) handshake per request would dwarf the gateway's own
// cost. No Nagle delay: an SSE frame is small and must leave at once.
const agents = { 'http:': new http.Agent({ keepAlive: true, noDelay: true }), 'https:': new https.Agent({ keepAlive: true, noDelay: true }) };

export interface PassthroughTarget {
  /** The API root, e.g. http://127.0.0.1:11434/v1 */
  baseUrl: string;
  model: string;
  key?: string;
  /** Names the provider in error sentences. */
  provider: string;
}

export interface PassthroughResult {
  usage?: Usage;
  /** Upstream status when it refused (4xx/5xx). */
  failed?: string;
}

/** Largest upstream error body read (enough for any API's error JSON). */
const ERROR_BODY_BYTES = 64 * 1024;

export function passthrough(body: ChatCompletionRequest, target: PassthroughTarget, res: ServerResponse, signal: AbortSignal): Promise<PassthroughResult> {
  const streaming = body.stream === true;
  const askedUsage = body.stream_options?.include_usage === true;
  const upstreamBody: ChatCompletionRequest = { ...body, model: target.model };
  if (streaming && !askedUsage) upstreamBody.stream_options = { ...(body.stream_options ?? {}), include_usage: true };
  const payload = JSON.stringify(upstreamBody);
  const url = endpoint(target.baseUrl);
  const lib = url.protocol === 'https:' ? https : http;

  return new Promise<PassthroughResult>((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      accept: streaming ? 'text/event-stream' : 'application/json',
    };
    if (target.key) headers.authorization = `Bearer ${target.key}`;
    const up = lib.request(url, { method: 'POST', headers, agent: agents[url.protocol as 'http:' | 'https:'] });
    // Aborting destroys the upstream request: the upstream sees its connection close at once. A listener
    // of our own instead of the request's `signal` option, whose stream plumbing cost a tenth of the
    // gateway's own per-request time; it goes when the request closes, as the option's would.
    const onAbort = () => up.destroy(new Error('the caller went away'));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      up.once('close', () => signal.removeEventListener('abort', onAbort));
    }
    up.on('error', (err) => {
      if (signal.aborted) return resolve({});
      reject(new GatewayError(502, `provider "${target.provider}" could not be reached (${(err as NodeJS.ErrnoException).code ?? err.message}); check that its server is running`, 'server_error', 'upstream_unreachable'));
    });
    up.on('response', (ures) => {
      const status = ures.statusCode ?? 502;
      if (status >= 400) {
        readSome(ures, ERROR_BODY_BYTES).then((text) => reject(upstreamError(status, text, target.provider)), reject);
        return;
      }
      if (!streaming) {
        readSome(ures, Infinity).then((text) => {
          let usage: Usage | undefined;
          try {
            usage = fromOpenAI(JSON.parse(text)?.usage);
          } catch {
            // Not JSON: the caller gets it as it came; there is nothing to bill.
          }
          res.writeHead(200, { 'content-type': ures.headers['content-type'] ?? 'application/json', 'content-length': Buffer.byteLength(text) });
          res.end(text);
          resolve({ usage });
        }, reject);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const failed = (err: Error) => (signal.aborted ? resolve({ usage: fromOpenAI(usageSeen() as Partial<CompletionUsage>) }) : reject(err));
      let usageSeen: () => unknown;
      if (askedUsage) {
        // The caller asked for the usage chunk too: nothing to cut, so the bytes pass untouched and
        // only the stream's last chunks are kept, to read the usage chunk that closes it at the end.
        const tail = new UsageTail();
        usageSeen = () => tail.usage();
        relay(ures, res, {
          transform: (chunk) => (tail.push(chunk), chunk),
          done: () => resolve({ usage: fromOpenAI(usageSeen() as Partial<CompletionUsage>) }),
          error: failed,
        });
        return;
      }
      const tap = new UsageTap();
      usageSeen = () => tap.usage;
      relay(ures, res, {
        transform: (chunk) => tap.push(chunk),
        end: () => tap.end(),
        done: () => resolve({ usage: fromOpenAI(usageSeen() as Partial<CompletionUsage>) }),
        error: failed,
      });
    });
    up.end(payload);
  });
}

/** The completions URL of an API root, parsed once per root (the provider map changes rarely). */
const endpoints = new Map<string, URL>();
function endpoint(baseUrl: string): URL {
  let url = endpoints.get(baseUrl);
  if (!url) {
    if (endpoints.size > 64) endpoints.clear();
    endpoints.set(baseUrl, (url = new URL(baseUrl.replace(/\/+$/, '') + '/chat/completions')));
  }
  return url;
}

function readSome(stream: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c);
      size += c.length;
    });
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}

/** The upstream's own sentence when it gave one, under the upstream's status. */
function upstreamError(status: number, text: string, provider: string): GatewayError {
  let message = '';
  let code: string | null = null;
  try {
    const parsed = JSON.parse(text);
    const e = parsed?.error ?? parsed;
    message = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : '';
    code = typeof e?.code === 'string' ? e.code : null;
  } catch {
    // Not JSON (a proxy's HTML page): the status alone speaks.
  }
  const sentence = `provider "${provider}" answered ${status}${message ? `: ${message.slice(0, 500)}` : ''}`;
  return new GatewayError(status, sentence, errorType(status), code);
}
