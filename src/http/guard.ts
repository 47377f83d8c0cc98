/**
 * The guard of seed 000 §5, for HTTP requests and WebSocket upgrades alike:
 * Host allowlist (defeats DNS rebinding), Origin allowlist, and the mobile token that substitutes
 * for both, except on /term (loopback peer required) and /api/relay/* (token refused). A request
 * that presents a wrong token is refused whoever sends it. A socket
 * peer that is not loopback needs the token everywhere. The path it judges is the canonical one the
 * router routes (request-path.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalTarget, guardedPath, type RequestTarget } from './request-path.js';
import { isPublicShellPath } from './web-app.js';

export const FORBIDDEN = 'forbidden: non-local host or origin';
export const WRONG_TOKEN = "forbidden: the mobile token is not this engine's; open the pairing address the engine printed at start again";
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DEV_SERVER_PORT = '5173';

export interface GuardInput {
  headers: IncomingHttpHeaders;
  /** Path and query in canonical form (request-path.ts); anything else is refused. */
  url: string;
  /**
   * The canonical reading the HTTP edge already made of `url` (edge.ts), reused instead of made
   * again; it counts only when it spells exactly `url`.
   */
  canonical?: RequestTarget & { ok: true };
  /** Every header line as received (IncomingMessage.rawHeaders): a duplicated Host or Origin is refused. */
  rawHeaders?: string[];
  /** The socket peer address. */
  remoteAddress: string | undefined;
  /** WebSocket upgrade: `?token=` is accepted there only. */
  upgrade: boolean;
  /** The HTTP method (absent for upgrades). */
  method?: string;
}

export type GuardVerdict = { ok: true; viaToken: boolean } | { ok: false; status: number; message: string };

const refused = (message = FORBIDDEN, status = 403): GuardVerdict => ({ ok: false, status, message });

export class Guard {
  constructor(
    private readonly enginePort: () => number,
    private readonly mobileToken: () => string,
  ) {}

  /**
   * A non-loopback socket peer passes only with the mobile token, whatever Host it sends: Host and
   * Origin say which name a browser used, never where the caller sits (ENGINE_BIND=0.0.0.0).
   */
  check(input: GuardInput): GuardVerdict {
    const target = input.canonical ?? canonicalTarget(input.url);
    if (!target.ok) return refused(target.message, 400);
    // The router routes the canonical form; a caller that skipped canonicalisation is refused, not trusted.
    if (target.path + target.query !== input.url) return refused('the request path is not in canonical form; send the canonical path', 400);
    const dup = duplicated(input.rawHeaders);
    if (dup === 'host') return refused('the request carries more than one Host header; send exactly one', 400);
    if (dup === 'origin') return refused();
    const { origin } = input.headers;
    const pathname = guardedPath(target.path);
    // The web workbench's static shell and assets hold no data (seed 000 §4.20: the phone's shell is
    // served without authentication, since a phone on the LAN has only the token, which a page load
    // cannot carry); every request they then make for data passes the checks below.
    if ((input.method === 'GET' || input.method === 'HEAD') && isPublicShellPath(pathname)) return { ok: true, viaToken: false };
    // A browser that hides the Origin of a cross-site request (a navigation, an <img>) is still a foreign
    // page. One exception: the OAuth landing page is reached by an authorization server's redirect, a
    // cross-site navigation by design; it only completes a flow whose `state` this engine issued.
    const oauthLanding = input.method === 'GET' && pathname.startsWith('/oauth/callback/');
    if (origin === undefined && !oauthLanding && String(input.headers['sec-fetch-site'] ?? '').toLowerCase() === 'cross-site') return refused();
    const token = this.presentedToken(input, target.query);
    const tokenValid = token !== undefined && safeEqual(token, this.mobileToken());
    // A wrong token is refused, never judged as if none were sent: a page framing the phone layout
    // with `#token=bogus` would otherwise pass as the local person through the loopback check.
    if (token !== undefined && !tokenValid) return refused(WRONG_TOKEN);
    if (pathname.startsWith('/api/relay/') || pathname === '/api/relay' || pathname.startsWith('/api/browser/') || pathname === '/api/browser') {
      // The relay surface is for the desktop only: a phone's token never opens it. Nor the browser
      // bridge's routes, which answer its pairing token (a credential of this computer's browser).
      if (token !== undefined) return refused();
      return this.localCheck(input) ? { ok: true, viaToken: false } : refused();
    }
    if (pathname === '/term') {
      // The terminal needs a loopback peer whatever ENGINE_BIND says; the token never substitutes.
      if (!this.localCheck(input)) return refused();
      return { ok: true, viaToken: false };
    }
    if (pathname === '/browser') {
      // The extension's bridge: a loopback peer and a local Host; its extension Origin and pairing
      // token are judged by the socket itself (src/http/sockets/browser.ts), never the mobile token.
      return isLoopback(input.remoteAddress) && isLocalHost(input.headers.host) && token === undefined ? { ok: true, viaToken: false } : refused();
    }
    if (tokenValid) return { ok: true, viaToken: true };
    return this.localCheck(input) ? { ok: true, viaToken: false } : refused();
  }

  private presentedToken(input: GuardInput, query: string): string | undefined {
    const header = input.headers['x-engine-mobile-token'];
    if (typeof header === 'string' && header) return header;
    if (input.upgrade && query) {
      const q = new URLSearchParams(query).get('token');
      if (q) return q;
    }
    return undefined;
  }

  private localCheck(input: GuardInput): boolean {
    return isLoopback(input.remoteAddress) && isLocalHost(input.headers.host) && this.originAllowed(input.headers.origin);
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
    // An Origin is scheme://host[:port] and nothing else: user info, a path or a query is a forgery.
    if (url.username || url.password || url.origin.toLowerCase() !== origin.trim().toLowerCase()) return false;
    if (!LOCAL_HOSTS.has(url.hostname.toLowerCase())) return false;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return port === String(this.enginePort()) || port === DEV_SERVER_PORT;
  }
}

/** The verdicts on the Host values seen lately: a client sends the same one on every request. */
const hostVerdicts = new Map<string, boolean>();

/** `Host` must be localhost, 127.0.0.1 or [::1], with or without a port. */
export function isLocalHost(host: string | undefined): boolean {
  if (!host) return false;
  const known = hostVerdicts.get(host);
  if (known !== undefined) return known;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(host.trim());
  const verdict = !!match && LOCAL_HOSTS.has(match[1].toLowerCase());
  if (hostVerdicts.size >= 64) hostVerdicts.clear(); // bounded: a caller varying Host cannot grow it
  hostVerdicts.set(host, verdict);
  return verdict;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** `host` or `origin` when that header line came more than once (Host first), in one pass. */
function duplicated(rawHeaders: string[] | undefined): 'host' | 'origin' | undefined {
  if (!rawHeaders) return undefined;
  let hosts = 0;
  let origins = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    // Only names of the right length are lower-cased and compared.
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
    else if (name.length === 6 && name.toLowerCase() === 'origin') origins++;
  }
  return hosts > 1 ? 'host' : origins > 1 ? 'origin' : undefined;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
