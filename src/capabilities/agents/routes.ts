import type { FastifyInstance } from 'fastify';
import type { AgentsService } from './service.js';

/** Agents over HTTP (seed 000 §4.8). `order` is registered first so it never reads as an agent name. */
export function agentsRoutes(app: FastifyInstance, agents: AgentsService): void {
  app.get('/api/agents', async () => agents.list());
  app.get('/api/agents/order', async () => agents.getOrder());
  app.put('/api/agents/order', async (req) => agents.setOrder(req.body));
  app.get<{ Params: { name: string } }>('/api/agents/:name', async (req) => agents.get(req.params.name));
  app.put<{ Params: { name: string } }>('/api/agents/:name', async (req) => ({ ok: true, agent: await agents.save(req.params.name, req.body) }));
  app.delete<{ Params: { name: string } }>('/api/agents/:name', async (req) => {
    await agents.remove(req.params.name);
    return { ok: true };
  });
}
