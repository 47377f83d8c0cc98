/**
 * GET /api/tools: every registered tool (built-in and MCP), as the seed's array (seed 000 §4.1) of
 * `{name, description, source, group, available}`.
 */
import type { FastifyInstance } from 'fastify';
import type { ToolRegistry } from '../../tools/registry.js';

export function toolsRoutes(app: FastifyInstance, tools: ToolRegistry): void {
  app.get('/api/tools', async () => tools.describe());
}
