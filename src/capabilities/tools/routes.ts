/**
 * GET /api/tools: every registered tool (built-in and MCP) as `{name, description, source, group, available}`.
 */
import type { FastifyInstance } from 'fastify';
import type { ToolRegistry } from '../../tools/registry.js';

export function toolsRoutes(app: FastifyInstance, tools: ToolRegistry): void {
  app.get('/api/tools', async () => ({ tools: tools.describe() }));
}
