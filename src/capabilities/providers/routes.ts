/** POST /api/test-provider: a real minimal completion; a failure is `ok: false` with status 200 (seed 000 §7). */
import type { FastifyInstance } from 'fastify';
import type { ProviderService } from '../../providers/service.js';

export function providerRoutes(app: FastifyInstance, providers: ProviderService): void {
  app.post('/api/test-provider', async (req) => providers.test(req.body));
}
