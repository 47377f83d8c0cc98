/**
 * GET /api/tools: every registered tool (built-in and MCP), as the seed's array (seed 000 §4.1) of
 * `{name, description, source, group, available, parameters}` (parameters: the argument JSON Schema).
 */
import type { FastifyInstance } from 'fastify';
import { arr, bool, obj, openObj, route, str } from '../../http/schemas.js';
import type { ToolRegistry } from '../../tools/registry.js';

const tool = obj(
  { name: str(), description: str(), source: str('built-in or the MCP server'), group: str(), available: bool(), parameters: openObj('the JSON Schema of its arguments, as a model is given it') },
  ['name', 'description', 'source', 'group', 'available', 'parameters'],
);

export function toolsRoutes(app: FastifyInstance, tools: ToolRegistry): void {
  app.get('/api/tools', { schema: route('tools', 'every registered tool and whether it is available now', { response: { 200: arr(tool) } }) }, async () => tools.describe());
}
