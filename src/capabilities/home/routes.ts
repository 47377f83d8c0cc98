import type { FastifyInstance } from 'fastify';
import type { HomeService } from './service.js';

/** GET /api/home `{path}`; POST /api/home `{path}` -> `{ok, path, restarting: true}`, then the restart. */
export function homeRoutes(app: FastifyInstance, homes: HomeService): void {
  app.get('/api/home', async () => homes.current());
  app.post('/api/home', async (req, reply) => {
    const target = await homes.prepare((req.body as { path?: unknown } | undefined)?.path);
    // Restart only once the answer has left, so the client learns where the engine went.
    reply.raw.once('finish', () => homes.restartInto(target));
    return { ok: true, path: target, restarting: true };
  });
}
