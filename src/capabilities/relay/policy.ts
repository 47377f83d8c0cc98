/**
 * What a paired phone may ask through the relay, on top of what the mobile token already may
 * (the dispatch presents the token, so the guard's own exclusions hold too). Judged on the path as
 * the guard judges it (fully decoded, slashes collapsed), so `/api%2Frelay` is the relay as well.
 *
 * Never: the relay itself, the terminal, secrets, settings, permission rules, mounts, the home and
 * the browser extension's token: a lost phone must not be able to widen its own reach or read a
 * credential. With remote start off (the default) a phone reads, approves and stops, and nothing else.
 */
import { canonicalTarget, guardedPath } from '../../http/request-path.js';

export interface Refusal {
  status: number;
  message: string;
}

const DESKTOP = 'from the workbench on the computer itself, not from a paired phone';
const NEVER: Array<[RegExp, string]> = [
  [/^\/api\/relay(\/|$)/, `the relay is managed ${DESKTOP}`],
  [/^\/term(\/|$)/, 'the terminal opens only on the computer itself, never through the relay'],
  [/^\/api\/secrets(\/|$)/, `secrets are managed ${DESKTOP}`],
  [/^\/api\/settings(\/|$)/, `settings are changed ${DESKTOP}`],
  [/^\/api\/permissions(\/rule|\/defaults)?$/, `permission rules are managed ${DESKTOP}; a phone answers prompts once through POST /api/permissions/resolve`],
  [/^\/api\/mounts(\/|$)/, `mounted folders are managed ${DESKTOP}`],
  [/^\/api\/home(\/|$)/, `the engine's home is changed ${DESKTOP}`],
  [/^\/api\/browser(\/|$)/, `the browser extension is paired ${DESKTOP}`],
];

/** Writes a phone may make while remote start is off: answering and stopping. */
const ANSWER_OR_STOP: Array<[string, RegExp]> = [
  ['POST', /^\/api\/gates\/resolve$/],
  ['POST', /^\/api\/permissions\/resolve$/],
  ['POST', /^\/api\/runs\/[^/]+\/stop$/],
  ['POST', /^\/api\/chat\/stop$/],
  ['POST', /^\/api\/notifications\/read$/],
  ['POST', /^\/api\/notifications\/[^/]+\/dismiss$/],
  ['POST', /^\/api\/mobile\/push\/subscribe$/],
  ['DELETE', /^\/api\/mobile\/push\/subscribe$/],
];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** A refusal with its sentence, or undefined when the request may go to the engine's routes. */
export function relayRefusal(method: string, rawPath: string, body: unknown, remoteStart: boolean): Refusal | undefined {
  if (!METHODS.has(method)) return { status: 400, message: `method must be one of ${[...METHODS].join(', ')}` };
  if (typeof rawPath !== 'string' || !rawPath.startsWith('/')) return { status: 400, message: 'path must be an absolute request path such as /api/mobile/approvals' };
  const target = canonicalTarget(rawPath);
  if (!target.ok) return { status: 400, message: target.message };
  const path = guardedPath(target.path);
  for (const [pattern, message] of NEVER) if (pattern.test(path)) return { status: 403, message };
  if (path === '/api/permissions/resolve' && (body as { scope?: unknown } | undefined)?.scope === 'always') {
    return { status: 403, message: `a phone answers a permission prompt once; saving it as a rule is done ${DESKTOP}` };
  }
  if (method === 'GET' || method === 'HEAD' || remoteStart) return undefined;
  if (ANSWER_OR_STOP.some(([m, p]) => m === method && p.test(path))) return undefined;
  return {
    status: 403,
    message: 'remote start is off: a paired phone may approve, answer and stop work but not start or change it; turn remote start on in the workbench to allow it',
  };
}
