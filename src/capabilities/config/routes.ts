import type { FastifyInstance } from 'fastify';
import type { ConfigServiceImpl } from './service.js';

/** GET/PUT /api/config: the provider map with `hasKey`, never key material. */
export function configRoutes(app: FastifyInstance, config: ConfigServiceImpl): void {
  app.get('/api/config', async () => config.view());
  app.put('/api/config', async (req) => config.update(req.body));
}
