/**
 * Rules, the unattended default and live prompts over HTTP (seed 000 §4.6). Thin: the rule store
 * and the gate hold the logic; this file validates every field with a sentence.
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import type { PermissionGate } from '../../permissions/gate.js';
import { validateDecision, validateKey, type RuleStore } from '../../permissions/rules.js';

export interface PermissionsRoutesDeps {
  rules: RuleStore;
  gate: PermissionGate;
}

function body(value: unknown, route: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${route} takes a JSON object body`);
  return value as Record<string, unknown>;
}

function onlyFields(b: Record<string, unknown>, allowed: string[], route: string): void {
  const extra = Object.keys(b).filter((k) => !allowed.includes(k));
  if (extra.length) throw badRequest(`${route} does not take ${extra.map((k) => `"${k}"`).join(', ')}; it takes ${allowed.map((k) => `"${k}"`).join(', ')}`);
}

export function permissionsRoutes(app: FastifyInstance, deps: PermissionsRoutesDeps): void {
  const { rules, gate } = deps;

  app.get('/api/permissions', async () => {
    const file = await rules.get();
    return { rules: file.rules, unattended: file.unattended };
  });

  app.get('/api/permissions/pending', async () => ({ pending: gate.pending() }));

  app.post('/api/permissions/rule', async (req) => {
    const route = 'POST /api/permissions/rule';
    const b = body(req.body, route);
    onlyFields(b, ['key', 'decision'], route);
    const key = validateKey(b.key);
    const decision = validateDecision(b.decision);
    await rules.add({ key, decision });
    return { ok: true, rule: { key, decision } };
  });

  app.delete<{ Querystring: { key?: unknown } }>('/api/permissions/rule', async (req) => {
    const key = validateKey(req.query.key, 'the query parameter key');
    await rules.remove(key);
    return { ok: true };
  });

  app.put('/api/permissions/defaults', async (req) => {
    const route = 'PUT /api/permissions/defaults';
    const b = body(req.body, route);
    onlyFields(b, ['unattended'], route);
    const unattended = validateDecision(b.unattended, 'unattended');
    await rules.setUnattended(unattended);
    return { ok: true, unattended };
  });

  app.post('/api/permissions/resolve', async (req) => {
    const route = 'POST /api/permissions/resolve';
    const b = body(req.body, route);
    onlyFields(b, ['runId', 'callId', 'decision', 'scope', 'key'], route);
    if (b.runId !== undefined && typeof b.runId !== 'string') throw badRequest('runId must be the run id string from the permission.requested event');
    if (typeof b.callId !== 'string' || !b.callId) throw badRequest('callId must be the call id string from the permission.requested event');
    const decision = validateDecision(b.decision);
    if (b.scope !== undefined && b.scope !== 'once' && b.scope !== 'always') throw badRequest('scope must be "once" or "always"');
    const key = b.key === undefined ? undefined : validateKey(b.key);
    await gate.resolve({ runId: (b.runId as string | undefined) ?? '', callId: b.callId, decision, scope: b.scope as 'once' | 'always' | undefined, key });
    return { ok: true };
  });
}
