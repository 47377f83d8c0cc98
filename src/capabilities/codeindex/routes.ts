/** POST /api/reindex (seed 000 §4.1) and the embeddings key lookup (docs/search.md). */
import type { FastifyInstance } from 'fastify';
import { noBody, ok, route } from '../../http/schemas.js';
import type { SecretStore } from '../secrets/types.js';
import { EMBEDDINGS_SECRET, type ConfigService } from '../config/types.js';
import type { CodeIndex } from './service.js';

export function codeIndexRoutes(app: FastifyInstance, index: CodeIndex): void {
  app.post(
    '/api/reindex',
    { schema: route('files', 'rebuild the semantic index behind search_code from nothing; progress as index.* events', { body: noBody, response: { 202: ok() } }) },
    async (_req, reply) => reply.code(202).send(index.reindex()),
  );
}

/**
 * The endpoint's key: its own secret when one was given, else the key of the provider it names
 * (`embeddings.name`, for an endpoint that is also a chat provider), only for that provider's URL.
 */
export async function embeddingsKey(config: ConfigService, secrets: Pick<SecretStore, 'get'>): Promise<string | undefined> {
  const own = await secrets.get(EMBEDDINGS_SECRET);
  if (own !== undefined) return own;
  const e = config.get().embeddings;
  const provider = e?.name ? config.get().providers.find((p) => (p.name || p.type) === e.name) : undefined;
  return provider ? config.providerKeyFor(e!.name!, provider.type, e!.baseUrl).catch(() => undefined) : undefined;
}
