/** Gateway routes on the engine's own API (seed 000 §4.13): its status and its scope. */
import type { FastifyInstance } from 'fastify';
import type { GatewayService } from './service.js';

const statusSchema = {
  type: 'object',
  properties: {
    scope: { type: 'string', enum: ['local', 'network'] },
    port: { type: ['integer', 'null'] },
    host: { type: 'string' },
    listening: { type: 'boolean' },
    error: { type: 'string' },
    hasKey: { type: 'boolean' },
    keyFingerprint: { type: ['string', 'null'] },
    requestsServed: { type: 'integer' },
  },
  required: ['scope', 'port', 'host', 'listening', 'hasKey', 'keyFingerprint', 'requestsServed'],
} as const;

export function gatewayRoutes(app: FastifyInstance, gateway: GatewayService): void {
  app.get('/api/models', {
    schema: {
      summary: 'Local-model status and the completions gateway status',
      tags: ['models'],
      response: { 200: { type: 'object', properties: { gateway: statusSchema }, required: ['gateway'] } },
    },
    handler: async () => ({ gateway: gateway.status() }),
  });
  app.post('/api/models/api', {
    schema: {
      summary: 'Moves the completions gateway between local and network scope; widening mints a bearer key first',
      tags: ['models'],
      body: {
        type: 'object',
        properties: { bind: { type: 'string', enum: ['local', 'network'] }, rotateKey: { type: 'boolean' } },
        required: ['bind'],
        additionalProperties: false,
      },
      response: {
        200: { type: 'object', properties: { ok: { type: 'boolean' }, key: { type: 'string' }, ...statusSchema.properties }, required: ['ok', ...statusSchema.required] },
      },
    },
    handler: async (req) => gateway.setBind(req.body),
  });
}
