/**
 * Rules, the unattended default and live prompts over HTTP (seed 000 §4.6). Thin: the rule store
 * and the gate hold the logic; this file validates every field with a sentence.
 */
import type { FastifyInstance } from 'fastify';
import { arr, obj, ok, oneOf, openObj, query, route, says, str } from '../../http/schemas.js';
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

const tag = 'permissions';
const key = says(
  str('a tool name ("delete_file") or a derived key ("run_shell(git status:*)", "db_query(main)")', { minLength: 1 }),
  '{field} must be a non-empty string such as "run_shell(git status:*)", "run_shell(git:*)", "db_query(main)" or a tool name like "delete_file"',
);
const decision = oneOf('allow', 'deny');
const id = (what: string) => says(str(`the ${what} from permission.requested`), `{field} must be the ${what} string from the permission.requested event`);
const rule = obj({ key, decision }, ['key', 'decision']);

export function permissionsRoutes(app: FastifyInstance, deps: PermissionsRoutesDeps): void {
  const { rules, gate } = deps;

  app.get('/api/permissions', { schema: route(tag, 'the saved rules and the unattended default', { response: { 200: obj({ rules: arr(rule), unattended: decision }, ['rules', 'unattended']) } }) }, async () => {
    const file = await rules.get();
    return { rules: file.rules, unattended: file.unattended };
  });

  app.get(
    '/api/permissions/pending',
    { schema: route(tag, 'the permission prompts waiting for an answer', { response: { 200: obj({ pending: arr(openObj('a prompt: {runId, callId, tool, key, ...}')) }, ['pending']) } }) },
    async () => ({ pending: gate.pending() }),
  );

  app.post('/api/permissions/rule', { schema: route(tag, 'save a rule: always allow or always deny a key', { body: rule, response: { 200: ok({ rule }) } }) }, async (req) => {
    const route = 'POST /api/permissions/rule';
    const b = body(req.body, route);
    onlyFields(b, ['key', 'decision'], route);
    const key = validateKey(b.key);
    const decision = validateDecision(b.decision);
    await rules.add({ key, decision });
    return { ok: true, rule: { key, decision } };
  });

  const deleteSchema = route(tag, 'remove a rule', { querystring: query({ key }), response: { 200: ok() } });
  app.delete<{ Querystring: { key?: unknown } }>('/api/permissions/rule', { schema: deleteSchema }, async (req) => {
    const key = validateKey(req.query.key, 'the query parameter key');
    await rules.remove(key);
    return { ok: true };
  });

  const defaultsSchema = route(tag, 'what an unattended run (workflow, schedule) does when no rule matches', {
    body: obj({ unattended: says(decision, '{field} must be "allow" or "deny"') }, ['unattended']),
    response: { 200: ok({ unattended: decision }) },
  });
  app.put('/api/permissions/defaults', { schema: defaultsSchema }, async (req) => {
    const route = 'PUT /api/permissions/defaults';
    const b = body(req.body, route);
    onlyFields(b, ['unattended'], route);
    const unattended = validateDecision(b.unattended, 'unattended');
    await rules.setUnattended(unattended);
    return { ok: true, unattended };
  });

  const resolveSchema = route(tag, 'answer a permission prompt (scope always also saves a rule)', {
    body: obj(
      {
        runId: id('run id'),
        callId: id('call id'),
        decision,
        scope: oneOf('once', 'always'),
        key: str('the rule key to save with scope always (default: the prompt\'s key)'),
        keys: arr(str(), 'the prompt\'s keys the person was shown: scope always saves these with `key`, and nothing else'),
      },
      ['callId', 'decision'],
    ),
    response: { 200: ok() },
  });
  app.post('/api/permissions/resolve', { schema: resolveSchema }, async (req) => {
    const route = 'POST /api/permissions/resolve';
    const b = body(req.body, route);
    onlyFields(b, ['runId', 'callId', 'decision', 'scope', 'key', 'keys'], route);
    if (b.runId !== undefined && typeof b.runId !== 'string') throw badRequest('runId must be the run id string from the permission.requested event');
    if (typeof b.callId !== 'string' || !b.callId) throw badRequest('callId must be the call id string from the permission.requested event');
    const decision = validateDecision(b.decision);
    if (b.scope !== undefined && b.scope !== 'once' && b.scope !== 'always') throw badRequest('scope must be "once" or "always"');
    const key = b.key === undefined ? undefined : validateKey(b.key);
    if (b.keys !== undefined && !Array.isArray(b.keys)) throw badRequest('keys must be an array of the rule keys the prompt listed, e.g. ["run_shell(echo:*)", "run_shell(sleep:*)"]');
    const keys = (b.keys as unknown[] | undefined)?.map((k, i) => validateKey(k, `keys[${i}]`));
    await gate.resolve({ runId: (b.runId as string | undefined) ?? '', callId: b.callId, decision, scope: b.scope as 'once' | 'always' | undefined, key, keys });
    return { ok: true };
  });
}
