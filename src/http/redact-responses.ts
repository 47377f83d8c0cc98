/**
 * The HTTP exit of the secret mask (src/kernel/redact.ts): every response body a route or an error
 * handler produces passes here. Stored secret values become `***` in every JSON or text answer;
 * an error sentence is also masked by shape (a provider error or a JSON parse snippet may echo a
 * key that was never stored). One exemption: the text of a file read for the editor
 * (GET /api/files/<path>) is the person's own file given back to them byte for byte, because
 * masking it would write `***` into the file on the next save. And the answer of
 * POST /api/models/api that mints the gateway's bearer key shows that new key once, by design (every
 * later read shows only its fingerprint). The browser routes answer the pairing token (a stored secret) to
 * the local person who pairs their browser, by design (docs/browser.md). Binary bodies are not touched.
 */
import type { FastifyInstance } from 'fastify';
import type { Redactor } from '../kernel/redact.js';
import { maskSecrets } from '../permissions/mask.js';
import { hooksOf } from './methods.js';

const EXEMPT = new Set(['GET /api/files/*', 'POST /api/models/api', 'GET /api/browser', 'POST /api/browser/token/rotate']);
/** Set on the reply of an exempt route by that route's own hook. */
const EXEMPTED = Symbol('engine.redactionExempt');

/** Call before routes are added: the exemption is attached to the exempt routes as they register. */
export function installResponseRedaction(app: FastifyInstance, redactor: Redactor): void {
  // Which route answers is known when it registers, not looked up on every answer (bench/status-throughput).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => EXEMPT.has(`${m} ${route.url}`))) return;
    route.onRequest = [
      (_req, reply, done) => {
        (reply as { [EXEMPTED]?: boolean })[EXEMPTED] = true;
        done();
      },
      ...hooksOf(route.onRequest),
    ];
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (typeof payload !== 'string') return done(null, payload);
    if (reply.statusCode >= 400) return done(null, maskError(payload, redactor));
    if ((reply as { [EXEMPTED]?: boolean })[EXEMPTED]) return done(null, payload);
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.includes('json')) return done(null, redactor.text(payload));
    done(null, maskJson(payload, redactor));
  });
}

/** A JSON answer's mask (also the early lane's, server.ts). */
export function maskJson(payload: string, redactor: Redactor): string {
  // `{ok: false, error}` answers (POST /api/test-provider) carry provider errors too.
  return payload.includes('"error":') ? maskError(payload, redactor, false) : redactor.json(payload);
}

/**
 * Shape masking applies to an error sentence only (`{error: "..."}` at the top level). A success
 * answer that merely contains `"error":` somewhere (a schema, a status list) keeps its text and
 * passes the stored-value mask alone: shape rules over a whole document would cut it to pieces.
 */
function maskError(payload: string, redactor: Redactor, failed = true): string {
  try {
    const body = JSON.parse(payload) as unknown;
    if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
      const b = body as { error: string };
      return JSON.stringify(redactor.value({ ...b, error: maskSecrets(b.error) }));
    }
    if (!failed) return redactor.json(payload);
  } catch {
    // Not JSON: masked as text below.
  }
  return maskSecrets(redactor.text(payload));
}
