/**
 * Retries transient provider failures (429, 5xx, a reset connection) with backoff, emitting
 * `model.retry` for each wait. The SDK's own retries are off (maxRetries: 0) so every retry is ours
 * and visible. A 4xx that retrying cannot fix becomes one sentence naming the provider's own words.
 */
import { isApiCallError } from './sdk.js';
import type { Emit } from '../kernel/bus.js';
import { describeError } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EAI_AGAIN']);
/** Error types a provider sends inside a 200 stream that mean "try again" (Anthropic's and OpenAI's names). */
const TRANSIENT_STREAM_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error', 'server_error', 'rate_limit_exceeded']);

/**
 * An error the provider sent inside a 200 stream (Anthropic `event: error`, an OpenAI-style
 * `{"error": {...}}` chunk): the SDK hands it over as the plain parsed object, not an Error.
 */
function streamError(err: unknown): { type?: string; message: string } | undefined {
  if (!err || typeof err !== 'object' || err instanceof Error) return undefined;
  const e = err as { type?: unknown; message?: unknown; error?: { type?: unknown; message?: unknown } };
  const inner = e.error && typeof e.error === 'object' ? e.error : e;
  if (typeof inner.message !== 'string') return undefined;
  return { type: typeof inner.type === 'string' ? inner.type : undefined, message: inner.message };
}

/** Is this failure worth another try? */
export function isTransient(err: unknown): boolean {
  const inStream = streamError(err);
  if (inStream) return !!inStream.type && TRANSIENT_STREAM_TYPES.has(inStream.type);
  if (isApiCallError(err)) {
    const status = err.statusCode;
    if (status === undefined) return hasTransientCode(err.cause ?? err);
    return status === 408 || status === 429 || status >= 500;
  }
  return hasTransientCode(err);
}

function hasTransientCode(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
    if (e instanceof Error && /other side closed|socket hang up|terminated/i.test(e.message)) return true;
  }
  return false;
}

/** The provider's own sentence for a failure, prefixed with who said it. */
export function providerErrorSentence(provider: string, err: unknown): string {
  if (isApiCallError(err)) {
    const status = err.statusCode;
    const said = extractMessage(err.responseBody) ?? err.message;
    if (status) return `provider "${provider}" answered ${status}: ${said}`;
    return `provider "${provider}" could not be reached at ${err.url}: ${describeCause(err)}`;
  }
  const inStream = streamError(err);
  if (inStream) return `provider "${provider}" failed mid-answer${inStream.type ? ` (${inStream.type})` : ''}: ${inStream.message}`;
  return `provider "${provider}" failed: ${describeCause(err)}`;
}

function describeCause(err: unknown): string {
  let e = err as { cause?: unknown; code?: string } | undefined;
  let text = describeError(err);
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string') return `${text} (${e.code})`;
    if (e.cause && e.cause instanceof Error && !text.includes(e.cause.message)) text = `${text}: ${e.cause.message}`;
    e = e.cause as typeof e;
  }
  return text;
}

function extractMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    if (typeof parsed.error === 'string') return parsed.error;
    return parsed.error?.message ?? parsed.message ?? undefined;
  } catch {
    return body.length > 300 ? body.slice(0, 300) + '…' : body;
  }
}

/** How long the provider asked us to wait, if it said (retry-after-ms / retry-after). */
function retryAfterMs(err: unknown): number | undefined {
  if (!isApiCallError(err) || !err.responseHeaders) return undefined;
  const h = err.responseHeaders;
  const ms = Number(h['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const s = Number(h['retry-after']);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  return undefined;
}

export interface RetryOptions {
  signal: AbortSignal;
  emit: Emit;
  provider: string;
  model: string;
  /** Whether a retry is still safe (nothing streamed to the user yet). */
  canRetry?: () => boolean;
}

/** Runs `attempt`, retrying transient failures; rethrows the last failure. */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (opts.signal.aborted || n > LIMITS.modelRetries || !isTransient(err) || (opts.canRetry && !opts.canRetry())) throw err;
      const backoff = Math.min(LIMITS.modelRetryBaseMs * 2 ** (n - 1), LIMITS.modelRetryMaxMs);
      const delayMs = Math.min(retryAfterMs(err) ?? backoff, LIMITS.modelRetryMaxMs);
      opts.emit('model.retry', {
        provider: opts.provider,
        model: opts.model,
        attempt: n,
        maxAttempts: LIMITS.modelRetries + 1,
        delayMs,
        status: isApiCallError(err) ? err.statusCode : undefined,
        error: providerErrorSentence(opts.provider, err),
      });
      await sleep(delayMs, opts.signal);
      if (opts.signal.aborted) throw err;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
