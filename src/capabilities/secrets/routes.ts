import type { FastifyInstance } from 'fastify';
import { arr, obj, ok, oneOf, openObj, params, route, str } from '../../http/schemas.js';
import { notFound } from '../../kernel/errors.js';
import { secretOwner } from './owners.js';
import type { SecretStore } from './types.js';

const tag = 'secrets';

/** GET/POST/DELETE /api/secrets: names and the backend, never values. */
export function secretsRoutes(app: FastifyInstance, secrets: SecretStore): void {
  app.get(
    '/api/secrets',
    {
      schema: route(tag, 'the secret names and the store backend (never a value); usedBy names what uses each secret the engine keeps for itself', {
        response: { 200: obj({ names: arr(str()), backend: oneOf('keychain', 'file'), usedBy: openObj('secret name -> what uses it (engine-kept secrets only)') }, ['names', 'backend', 'usedBy']) },
      }),
    },
    async () => {
      const names = await secrets.names(); // waits for the backend probe, so `backend` is final
      const usedBy: Record<string, string> = {};
      for (const n of names) {
        const owner = secretOwner(n);
        if (owner) usedBy[n] = owner;
      }
      return { names, backend: secrets.backend, usedBy };
    },
  );

  app.post(
    '/api/secrets',
    {
      schema: route(tag, 'store a secret (tools and providers read it by name; no answer ever shows the value)', {
        body: obj({ name: str('letters, digits, dots, dashes or underscores'), value: str('the secret') }, ['name', 'value']),
        response: { 200: ok({ name: str() }) },
      }),
    },
    async (req) => {
      const body = req.body as { name: string; value: string };
      await secrets.set(body.name, body.value);
      return { ok: true, name: body.name };
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/api/secrets/:name',
    { schema: route(tag, 'delete a secret', { params: params({ name: 'the secret name' }), response: { 200: ok() } }) },
    async (req) => {
      const removed = await secrets.delete(req.params.name);
      if (!removed) throw notFound(`no secret named "${req.params.name}"; GET /api/secrets lists the names`);
      return { ok: true };
    },
  );
}
