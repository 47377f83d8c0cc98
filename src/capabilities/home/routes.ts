import type { FastifyInstance } from 'fastify';
import { bool, obj, ok, route, str } from '../../http/schemas.js';
import type { HomeService } from './service.js';

/** GET /api/home `{path}`; POST /api/home `{path}` -> `{ok, path, restarting: true}`, then the restart. */
export function homeRoutes(app: FastifyInstance, homes: HomeService): void {
  app.get('/api/home', { schema: route('home', 'where the engine home is', { response: { 200: obj({ path: str() }, ['path']) } }) }, async () => homes.current());
  const moveSchema = route('home', 'move the engine to another home (absolute path); the engine answers, then restarts there', {
    body: obj({ path: str('an absolute folder path') }, ['path']),
    response: { 200: ok({ path: str(), restarting: bool() }) },
  });
  app.post('/api/home', { schema: moveSchema }, async (req, reply) => {
    const target = await homes.prepare((req.body as { path?: unknown } | undefined)?.path);
    // Restart only once the answer has left, so the client learns where the engine went.
    reply.raw.once('finish', () => homes.restartInto(target));
    return { ok: true, path: target, restarting: true };
  });
}
