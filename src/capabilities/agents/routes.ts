import type { FastifyInstance } from 'fastify';
import { arr, ok, params, route } from '../../http/schemas.js';
import { agentBody, agentDefinition, agentOrder, agentSummary } from './schemas.js';
import type { AgentsService } from './service.js';

const tag = 'agents';
const name = params({ name: 'the agent name (its file name without .md)' });

/** Agents over HTTP (seed 000 §4.8). `order` is registered first so it never reads as an agent name. */
export function agentsRoutes(app: FastifyInstance, agents: AgentsService): void {
  app.get('/api/agents', { schema: route(tag, 'the agents', { response: { 200: arr(agentSummary) } }) }, async () => agents.list());
  app.get('/api/agents/order', { schema: route(tag, 'the order of groups and agents in a list', { response: { 200: agentOrder } }) }, async () => agents.getOrder());
  app.put('/api/agents/order', { schema: route(tag, 'set the order of groups and agents', { body: agentOrder, response: { 200: agentOrder } }) }, async (req) => agents.setOrder(req.body));
  app.get<{ Params: { name: string } }>(
    '/api/agents/:name',
    { schema: route(tag, 'one agent definition, with warnings about a hand-written file', { params: name, response: { 200: agentDefinition } }) },
    async (req) => agents.get(req.params.name),
  );
  app.put<{ Params: { name: string } }>(
    '/api/agents/:name',
    { schema: route(tag, 'create or replace an agent (the previous version goes to history)', { params: name, body: agentBody, response: { 200: ok({ agent: agentDefinition }) } }) },
    async (req) => ({ ok: true, agent: await agents.save(req.params.name, req.body) }),
  );
  app.delete<{ Params: { name: string } }>('/api/agents/:name', { schema: route(tag, 'delete an agent', { params: name, response: { 200: ok() } }) }, async (req) => {
    await agents.remove(req.params.name);
    return { ok: true };
  });
}
