/** POST /api/test-provider: a real minimal completion; a failure is `ok: false` with status 200 (seed 000 §7). */
import type { FastifyInstance } from 'fastify';
import { any, bool, int, obj, route, str } from '../../http/schemas.js';
import type { ProviderService } from '../../providers/service.js';

/**
 * The body is described but not validated by the schema: seed 000 §7 answers every failure of this
 * route, bad input included, as `200 {ok: false, error}`, which the service does.
 */
const body = {
  description: 'a provider entry as PUT /api/config takes it',
  properties: {
    type: any('openai-compatible, openai or anthropic'),
    baseUrl: any('the API root, e.g. http://127.0.0.1:11434/v1 (required for openai-compatible)'),
    model: any('the model id'),
    newKey: any('an API key to try (default: the stored key of the provider `name`)'),
    name: any('the provider name'),
  },
};

export function providerRoutes(app: FastifyInstance, providers: ProviderService): void {
  app.post(
    '/api/test-provider',
    {
      schema: route('providers', 'try a provider with one tiny completion; a failure is 200 {ok: false, error}', {
        body,
        response: { 200: obj({ ok: bool(), model: str(), reply: str(), latencyMs: int(), error: str() }, ['ok']) },
      }),
    },
    async (req) => providers.test(req.body),
  );
}
