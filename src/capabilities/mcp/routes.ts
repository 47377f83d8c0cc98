/** MCP routes and the OAuth landing page (docs/mcp.md). */
import type { FastifyInstance } from 'fastify';
import { arr, bool, noBody, obj, oneOf, openObj, params, query, route, str } from '../../http/schemas.js';
import type { McpService } from './service.js';

const stringMap = (description: string) => ({ type: 'object', additionalProperties: { type: 'string' }, description });
const entry = {
  type: oneOf('stdio', 'http', 'streamable-http', 'sse'),
  command: str('a local server: the program to start'),
  args: arr(str()),
  env: stringMap('added to the SDK default environment; {{secret:<name>}} and ${workspace} expand'),
  cwd: str(),
  url: str('a remote server: http(s) URL'),
  headers: stringMap('sent to a remote server; {{secret:<name>}} expands'),
  enabled: bool('false keeps the entry but stops the server'),
};
const entryInput = obj({ ...entry, transport: str('an alias of type'), newToken: str('a bearer token to store as a secret (remote servers)'), clearToken: bool('remove the stored token') });
const view = obj(
  {
    servers: { type: 'object', additionalProperties: obj(entry), description: 'the map as stored' },
    status: { type: 'object', additionalProperties: openObj('{state, transport, tools, restarts, error?, warnings?, serverInfo?}'), description: 'live status by server' },
    authUrls: stringMap('authorization URLs to open, by server waiting on OAuth'),
    renamed: stringMap('PUT only: pasted keys that were not valid server names (letters, digits, dashes), each with the name used instead; its tools are <name>_<tool>'),
  },
  ['servers', 'status', 'authUrls'],
);
const name = params({ name: 'an MCP server name' });

export function mcpRoutes(app: FastifyInstance, mcp: McpService): void {
  app.get('/api/mcp', { schema: route('mcp', 'the MCP server map, each server’s live status, and pending OAuth authorization URLs', { response: { 200: view } }) }, async () => mcp.view());
  app.put(
    '/api/mcp',
    {
      schema: route('mcp', 'replace the server map (a Claude Desktop mcpServers block works too); only added, removed or changed servers reconnect', {
        body: obj({ servers: { type: 'object', additionalProperties: entryInput }, mcpServers: { type: 'object', additionalProperties: entryInput } }),
        response: { 200: view },
      }),
    },
    async (req) => mcp.replace(req.body),
  );
  app.post(
    '/api/mcp/:name/toggle',
    { schema: route('mcp', 'enable or disable one server at once', { params: name, body: obj({ enabled: bool() }, ['enabled']), response: { 200: view } }) },
    async (req) => mcp.toggle((req.params as { name: string }).name, req.body),
  );
  app.post(
    '/api/mcp/:name/logout',
    { schema: route('mcp', 'drop a server’s OAuth tokens and client registration; it goes back to needs-auth', { params: name, body: noBody, response: { 200: view } }) },
    async (req) => mcp.logout((req.params as { name: string }).name),
  );
  app.get(
    '/oauth/callback/:name',
    {
      schema: route('mcp', 'the page a browser lands on after authorizing an MCP server (answers HTML)', {
        params: name,
        querystring: query({ code: 'the authorization code', state: 'the state the engine sent', error: 'the authorization server’s refusal', error_description: 'its explanation' }),
        response: { 200: str('an HTML page saying what happened') },
      }),
    },
    async (req, reply) => {
      const { name: server } = req.params as { name: string };
      const q = req.query as { code?: string; state?: string; error?: string; error_description?: string };
      const page = (status: 200 | 400, title: string, text: string) => reply.code(status).type('text/html; charset=utf-8').send(html(title, text));
      if (q.error) return page(400, 'Authorization was not granted', `The server "${server}" answered: ${q.error}${q.error_description ? ` (${q.error_description})` : ''}. Start again from the engine.`);
      if (!q.code) return page(400, 'No authorization code', 'This page expects ?code= from the authorization server. Start again from the engine.');
      try {
        await mcp.completeAuth(server, q.code, q.state);
      } catch (err) {
        return page(400, 'Authorization failed', (err as Error).message);
      }
      return page(200, 'Authorized', `The MCP server "${server}" is authorized and connecting. You can close this tab.`);
    },
  );
}

function html(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body style="font-family: system-ui, sans-serif; margin: 3em"><h1>${esc(title)}</h1><p>${esc(text)}</p></body></html>`;
}
