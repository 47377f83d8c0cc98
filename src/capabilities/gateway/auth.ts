/**
 * Who may call the gateway (seed 000 §5). A loopback caller needs no key but passes the same
 * Host/Origin guard as /api, so a web page cannot spend the user's tokens through DNS rebinding.
 * Any other caller (the gateway widened to the network) must present `Authorization: Bearer <key>`.
 * A valid key substitutes for the Host/Origin check, as the mobile token does on /api.
 */
import type { IncomingMessage } from 'node:http';
import { isLoopback, type Guard } from '../../http/guard.js';
import { GatewayError } from './errors.js';
import type { GatewayKey } from './key.js';

export function authorize(req: IncomingMessage, guard: Guard, key: GatewayKey): GatewayError | undefined {
  const bearer = bearerOf(req.headers.authorization);
  if (bearer !== undefined && key.matches(bearer)) return undefined;
  const peer = req.socket.remoteAddress;
  if (isLoopback(peer)) {
    // The mobile token opens /api, not the gateway: it is not passed on to the guard.
    const { 'x-engine-mobile-token': _token, ...headers } = req.headers;
    const verdict = guard.check({ headers, rawHeaders: req.rawHeaders, url: req.url ?? '/', method: req.method, remoteAddress: peer, upgrade: false });
    if (verdict.ok) return undefined;
    return new GatewayError(403, 'forbidden: non-local host or origin (loopback callers must send Host localhost, 127.0.0.1 or [::1] and no foreign Origin)', 'permission_error', 'forbidden');
  }
  if (bearer === undefined) {
    return new GatewayError(401, 'this gateway needs Authorization: Bearer <key> from other machines; the key was shown once when the gateway was widened (POST /api/models/api {"bind": "network", "rotateKey": true} mints a new one)', 'authentication_error', 'missing_api_key');
  }
  return new GatewayError(401, 'the bearer key is not valid; use the key shown when the gateway was widened, or mint a new one with POST /api/models/api {"bind": "network", "rotateKey": true}', 'authentication_error', 'invalid_api_key');
}

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}
