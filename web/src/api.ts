/**
 * The one way the page talks to the engine. Every failure becomes an ApiError whose message is the
 * sentence the engine sent (`{error}`), so pages show it as it is. The phone layout adds the mobile
 * token (a header on requests, `?token=` on the socket: seed 000 §5).
 */
let mobileToken: string | null = null;

export function setMobileToken(token: string | null): void {
  mobileToken = token;
}

/**
 * Another way to the engine than this page's origin: the phone over the relay (relay.ts). Requests
 * and the event stream then go through it; answers and sentences are the engine's own.
 */
export interface Transport {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Follows every event until the returned function is called; `closed` when the way is lost. */
  events(onEvent: (e: any) => void, closed: () => void): () => void;
}

export let transport: Transport | null = null;

export function setTransport(t: Transport | null): void {
  transport = t;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  if (transport) {
    const r = await transport.request(method, path, body).catch((e: Error) => {
      throw new ApiError(0, e.message);
    });
    if (r.status >= 400) throw new ApiError(r.status, (r.body && typeof r.body === 'object' && typeof r.body.error === 'string' && r.body.error) || `${method} ${path} answered ${r.status}`);
    return r.body as T;
  }
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (mobileToken) headers['x-engine-mobile-token'] = mobileToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'the engine does not answer; is it running?');
  }
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // A text answer (a raw file, markdown) stays text.
  }
  if (!res.ok) throw new ApiError(res.status, (parsed && typeof parsed === 'object' && typeof parsed.error === 'string' && parsed.error) || `${method} ${path} answered ${res.status}`);
  return parsed as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T = any>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T = any>(path: string) => api<T>('DELETE', path);

export function socketUrl(): string {
  const base = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/events`;
  return mobileToken ? `${base}?token=${encodeURIComponent(mobileToken)}` : base;
}

/** The sentence of any thrown value. */
export const sentence = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Encodes a virtual path (`workspace/src/a.ts`) for a wildcard route, keeping its slashes. */
export const encPath = (p: string) => p.split('/').map(encodeURIComponent).join('/');
