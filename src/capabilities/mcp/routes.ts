/** MCP routes (seed 000 §4.17) and the OAuth landing page. */
import type { FastifyInstance } from 'fastify';
import type { McpService } from './service.js';

const entrySchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['stdio', 'http', 'streamable-http', 'sse'] },
    command: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    cwd: { type: 'string' },
    url: { type: 'string' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    enabled: { type: 'boolean' },
  },
} as const;

const viewSchema = {
  type: 'object',
  properties: {
    servers: { type: 'object', additionalProperties: entrySchema },
    status: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
    authUrls: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['servers', 'status', 'authUrls'],
} as const;

const nameParams = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

export function mcpRoutes(app: FastifyInstance, mcp: McpService): void {
  app.get('/api/mcp', {
    schema: { summary: 'The MCP server map, each server’s live status, and pending OAuth authorization URLs', tags: ['mcp'], response: { 200: viewSchema } },
    handler: async () => mcp.view(),
  });
  app.put('/api/mcp', {
    schema: {
      summary: 'Replaces the server map (a Claude Desktop mcpServers block works too); only added, removed or changed servers reconnect',
      tags: ['mcp'],
      body: {
        type: 'object',
        properties: {
          servers: { type: 'object', additionalProperties: { ...entrySchema, properties: { ...entrySchema.properties, newToken: { type: 'string' }, clearToken: { type: 'boolean' }, transport: { type: 'string' } } } },
          mcpServers: { type: 'object', additionalProperties: { type: 'object' } },
        },
      },
      response: { 200: viewSchema },
    },
    handler: async (req) => mcp.replace(req.body),
  });
  app.post('/api/mcp/:name/toggle', {
    schema: { summary: 'Enables or disables one server at once', tags: ['mcp'], params: nameParams, body: { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'] }, response: { 200: viewSchema } },
    handler: async (req) => mcp.toggle((req.params as { name: string }).name, req.body),
  });
  app.post('/api/mcp/:name/logout', {
    schema: { summary: 'Drops a server’s OAuth tokens and client registration; it goes back to needs-auth', tags: ['mcp'], params: nameParams, response: { 200: viewSchema } },
    handler: async (req) => mcp.logout((req.params as { name: string }).name),
  });
  app.get('/oauth/callback/:name', {
    schema: {
      summary: 'The landing page after a browser authorized an MCP server (answers HTML)',
      tags: ['mcp'],
      params: nameParams,
      querystring: { type: 'object', properties: { code: { type: 'string' }, state: { type: 'string' }, error: { type: 'string' }, error_description: { type: 'string' } } },
      response: { 200: { type: 'string' }, 400: { type: 'string' } },
    },
    handler: async (req, reply) => {
      const { name } = req.params as { name: string };
      const q = req.query as { code?: string; state?: string; error?: string; error_description?: string };
      const page = (status: 200 | 400, title: string, text: string) => reply.code(status).type('text/html; charset=utf-8').send(html(title, text));
      if (q.error) return page(400, 'Authorization was not granted', `The server "${name}" answered: ${q.error}${q.error_description ? ` (${q.error_description})` : ''}. Start again from the engine.`);
      if (!q.code) return page(400, 'No authorization code', 'This page expects ?code= from the authorization server. Start again from the engine.');
      try {
        await mcp.completeAuth(name, q.code, q.state);
      } catch (err) {
        return page(400, 'Authorization failed', (err as Error).message);
      }
      return page(200, 'Authorized', `The MCP server "${name}" is authorized and connecting. You can close this tab.`);
    },
  });
}

function html(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family: system-ui, sans-serif; margin: 3em"><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}
