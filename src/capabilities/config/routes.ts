import type { FastifyInstance } from 'fastify';
import { route } from '../../http/schemas.js';
import { configBody, configView } from './schemas.js';
import type { ConfigServiceImpl } from './service.js';

/** GET/PUT /api/config: the provider map with `hasKey`, never key material. */
export function configRoutes(app: FastifyInstance, config: ConfigServiceImpl): void {
  app.get('/api/config', { schema: route('config', 'the provider map, with hasKey per provider and never a key', { response: { 200: configView } }) }, async () => config.view());
  app.put(
    '/api/config',
    {
      schema: route('config', 'replace the provider map; newKey goes to the secret store, a removed provider takes its key with it', {
        body: configBody,
        response: { 200: configView },
      }),
    },
    async (req) => config.update(req.body),
  );
}
