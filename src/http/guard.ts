/**
 * The guard of seed 000 §5, for HTTP requests and WebSocket upgrades alike:
 * Host allowlist (defeats DNS rebinding), Origin allowlist, and the mobile token that substitutes
 * for both, except on /term (loopback peer required) and /api/relay/* (token refused).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const FORBIDDEN = 'forbidden: non-local host or origin';
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DEV_SERVER_PORT = '5173';

export interface GuardInput {
  headers: IncomingHttpHeaders;
  /** Path and query as requested. */
  url: string;
  /** The socket peer address. */
  remoteAddress: string | undefined;
  /** WebSocket upgrade: `?token=` is accepted there only. */
  upgrade: boolean;
}

export type GuardVerdict = { ok: true; viaToken: boolean } | { ok: false; message: string };

export class Guard {
  constructor(
    private readonly enginePort: () => number,
    private readonly mobileToken: () => string,
  ) {}

  check(input: GuardInput): GuardVerdict {
    const pathname = pathOf(input.url);
    const token = this.presentedToken(input);
    const tokenValid = token !== undefined && safeEqual(token, this.mobileToken());
    if (pathname.startsWith('/api/relay/') || pathname === '/api/relay') {
      // The relay surface is for the desktop only: a phone's token never opens it.
      if (token !== undefined) return { ok: false, message: FORBIDDEN };
      return this.localCheck(input) ? { ok: true, viaToken: false } : { ok: false, message: FORBIDDEN };
    }
    if (pathname === '/term') {
      // The terminal needs a loopback peer whatever ENGINE_BIND says; the token never substitutes.
      if (!isLoopback(input.remoteAddress) || !this.localCheck(input)) return { ok: false, message: FORBIDDEN };
      return { ok: true, viaToken: false };
    }
    if (tokenValid) return { ok: true, viaToken: true };
    return this.localCheck(input) ? { ok: true, viaToken: false } : { ok: false, message: FORBIDDEN };
  }

  private presentedToken(input: GuardInput): string | undefined {
    const header = input.headers['x-engine-mobile-token'];
    if (typeof header === 'string' && header) return header;
    if (input.upgrade) {
      const q = new URL(input.url, 'http://x').searchParams.get('token');
      if (q) return q;
    }
    return undefined;
  }

  private localCheck(input: GuardInput): boolean {
    return isLocalHost(input.headers.host) && this.originAllowed(input.headers.origin);
  }

  private originAllowed(origin: string | undefined): boolean {
    if (origin === undefined) return true; // no Origin: a local process, not a browser page
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (!LOCAL_HOSTS.has(url.hostname.toLowerCase())) return false;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return port === String(this.enginePort()) || port === DEV_SERVER_PORT;
  }
}

/** `Host` must be localhost, 127.0.0.1 or [::1], with or without a port. */
export function isLocalHost(host: string | undefined): boolean {
  if (!host) return false;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.trim());
  return !!match && LOCAL_HOSTS.has(match[1].toLowerCase());
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The decoded path with doubled slashes collapsed, so `/api//%72elay/x` is still seen as the relay. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  let p = q === -1 ? url : url.slice(0, q);
  if (!p.includes('%') && !p.includes('//')) return p; // the common case, on every request
  try {
    p = decodeURIComponent(p);
  } catch {
    // A malformed escape is left as is; the router will answer 400 or 404.
  }
  return p.replace(/\/{2,}/g, '/');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
