import type { FastifyInstance } from 'fastify';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { SecretStore } from './types.js';

/** GET/POST/DELETE /api/secrets: names and the backend, never values. */
export function secretsRoutes(app: FastifyInstance, secrets: SecretStore): void {
  app.get('/api/secrets', async () => {
    const names = await secrets.names(); // waits for the backend probe, so `backend` is final
    return { names, backend: secrets.backend };
  });

  app.post('/api/secrets', async (req) => {
    const body = req.body as { name?: unknown; value?: unknown } | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {"name": "...", "value": "..."}');
    await secrets.set(body.name as string, body.value as string);
    return { ok: true, name: body.name };
  });

  app.delete<{ Params: { name: string } }>('/api/secrets/:name', async (req) => {
    const removed = await secrets.delete(req.params.name);
    if (!removed) throw notFound(`no secret named "${req.params.name}"; GET /api/secrets lists the names`);
    return { ok: true };
  });
}
