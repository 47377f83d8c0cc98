/** Gateway routes on the engine's own API: its status and its scope (docs/gateway.md). */
import type { FastifyInstance } from 'fastify';
import { bool, int, nullable, obj, oneOf, route, str, type Schema } from '../../http/schemas.js';
import type { GatewayService } from './service.js';

const status = {
  scope: oneOf('local', 'network'),
  port: nullable(int('the port it listens on; null while not listening')),
  host: str('127.0.0.1 (local) or 0.0.0.0 (network)'),
  listening: bool(),
  error: str('why it is not listening'),
  hasKey: bool('a bearer key exists (shown once, when minted)'),
  keyFingerprint: nullable(str('first 8 hex digits of the key’s SHA-256')),
  requestsServed: int('completions served since the engine started'),
};
const required = ['scope', 'port', 'host', 'listening', 'hasKey', 'keyFingerprint', 'requestsServed'];

/** Other members of GET /api/models' answer (the local models, src/capabilities/models/routes.ts). */
export interface ModelsStatus { schema: Record<string, Schema>; status: () => Promise<Record<string, unknown>> }

export function gatewayRoutes(app: FastifyInstance, gateway: GatewayService, local?: ModelsStatus): void {
  app.get(
    '/api/models',
    { schema: route('models', 'local-model status and the completions gateway’s status', { response: { 200: obj({ ...local?.schema, gateway: obj(status, required) }, ['gateway'], { open: true }) } }) },
    async () => ({ ...(await local?.status()), gateway: gateway.status() }),
  );
  app.post(
    '/api/models/api',
    {
      schema: route('models', 'move the completions gateway between local and network scope; widening mints a bearer key first', {
        body: obj({ bind: oneOf('local', 'network'), rotateKey: bool('mint a new key (the old one stops working)') }, ['bind']),
        response: { 200: obj({ ok: { const: true }, key: str('the new bearer key: only in the answer that minted it'), ...status }, ['ok', ...required]) },
      }),
    },
    async (req) => gateway.setBind(req.body),
  );
}
