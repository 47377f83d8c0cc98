/**
 * The one reading of a request target, made once before both the guard and the router (HTTP
 * through Fastify's `rewriteUrl`, WebSocket upgrades in sockets/upgrade.ts), so what the guard
 * judges is exactly what the router routes.
 *
 * Canonical form: origin-form only (`/path?query`); percent-escapes of unreserved characters
 * decoded (`%2e` is `.`, `%72` is `r`), every other escape upper-cased; runs of `/` collapsed to
 * one. Refused with 400: absolute-form (`http://host/x`) and asterisk-form targets, `.` and `..`
 * segments (spelled plainly or encoded: no client that builds URLs with the platform sends them),
 * a backslash, malformed or non-UTF-8 escapes, and NUL.
 */

export type RequestTarget = { ok: true; path: string; query: string } | { ok: false; message: string };

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** A path without any of these is canonical as it stands. */
const SUSPECT = /[%\\\0]|\/\/|(?:^|\/)\.\.?(?:\/|$)/;

export function canonicalTarget(raw: string | undefined): RequestTarget {
  const url = raw ?? '';
  if (!url.startsWith('/')) {
    return { ok: false, message: 'the request target must be a path starting with / (absolute-form and asterisk-form targets are refused)' };
  }
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  // The common case on every request: nothing to decode, collapse or refuse.
  if (!SUSPECT.test(rawPath)) return { ok: true, path: rawPath, query };
  let path = '';
  for (let i = 0; i < rawPath.length; i++) {
    const c = rawPath[i];
    if (c !== '%') {
      path += c;
      continue;
    }
    const hex = rawPath.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: false, message: 'the path holds a malformed percent-escape; encode % as %25' };
    const ch = String.fromCharCode(parseInt(hex, 16));
    path += UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
    i += 2;
  }
  path = path.replace(/\/{2,}/g, '/');
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return { ok: false, message: 'the path holds a percent-escape that is not UTF-8; encode the path as UTF-8' };
  }
  if (decoded.includes('\0')) return { ok: false, message: 'the path holds a NUL character; remove it' };
  if (path.includes('\\')) return { ok: false, message: 'the path holds a backslash; use / between segments' };
  if (path.split('/').some((s) => s === '.' || s === '..')) {
    return { ok: false, message: 'the path holds a "." or ".." segment; send the canonical path' };
  }
  return { ok: true, path, query };
}

/**
 * What the guard matches its special paths (/term, /api/relay) against: the canonical path fully
 * decoded with slashes collapsed again, so an encoded slash (`/api%2Frelay`) is judged as the
 * relay too. Stricter than the router, never looser.
 */
export function guardedPath(canonicalPath: string): string {
  let p = canonicalPath;
  // Only a path with something to decode, turn or collapse is worked on (not the common case).
  if (/[%\\]|\/\//.test(p)) {
    try {
      p = decodeURIComponent(p);
    } catch {
      // canonicalTarget already refused paths that do not decode.
    }
    p = p.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  }
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p; // the router ignores a trailing slash
}

/** Where the canonical reading made before routing waits for the guard. */
export const TARGET_CANONICAL = Symbol('engine.targetCanonical');

/** Where a refusal made before routing waits for the first hook to answer it. */
export const TARGET_REFUSAL = Symbol('engine.targetRefusal');
