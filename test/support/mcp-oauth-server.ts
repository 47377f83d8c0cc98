/**
 * A remote MCP server behind OAuth 2.1 on loopback, built from the SDK's own server-side pieces:
 * `mcpAuthRouter` (metadata, dynamic client registration, authorize, token with PKCE, refresh) and
 * `requireBearerAuth` in front of a Streamable HTTP MCP endpoint. The authorization step approves at
 * once (the "person" clicking allow) and redirects back with the code and state.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface OAuthMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp */
  url: string;
  stats: { registrations: number; authorizations: number; tokens: number; refreshes: number; rejected: number };
  /** Expires every access token issued so far (the next call gets 401 and must refresh): no waiting on a clock. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const ttl = 3600;
  const stats = { registrations: 0, authorizations: 0, tokens: 0, refreshes: 0, rejected: 0 };
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  const access = new Map<string, { clientId: string; expiresAt: number }>();
  const refresh = new Map<string, string>();

  const issue = (clientId: string): OAuthTokens => {
    const token = randomUUID();
    const refreshToken = randomUUID();
    access.set(token, { clientId, expiresAt: Date.now() + ttl * 1000 });
    refresh.set(refreshToken, clientId);
    return { access_token: token, token_type: 'bearer', expires_in: ttl, refresh_token: refreshToken, scope: 'mcp:tools' };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (id) => clients.get(id),
    registerClient: async (client) => {
      stats.registrations++;
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      return full;
    },
  };

  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      stats.authorizations++;
      if (!client.redirect_uris.includes(params.redirectUri)) throw new Error('unregistered redirect_uri');
      const code = randomUUID();
      codes.set(code, { clientId: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.toString());
    },
    async challengeForAuthorizationCode(_client, code) {
      const found = codes.get(code);
      if (!found) throw new Error('invalid authorization code');
      return found.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const found = codes.get(code);
      if (!found || found.clientId !== client.client_id) throw new Error('invalid authorization code');
      codes.delete(code);
      stats.tokens++;
      return issue(client.client_id);
    },
    async exchangeRefreshToken(client, refreshToken) {
      if (refresh.get(refreshToken) !== client.client_id) throw new Error('invalid refresh token');
      refresh.delete(refreshToken);
      stats.refreshes++;
      return issue(client.client_id);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      const found = access.get(token);
      if (!found || found.expiresAt < Date.now()) {
        stats.rejected++;
        throw new InvalidTokenError('invalid or expired token');
      }
      return { token, clientId: found.clientId, scopes: ['mcp:tools'], expiresAt: Math.floor(found.expiresAt / 1000) };
    },
  };

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const app = express();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', express.json(), bearer, async (req, res) => {
    // Stateless: a server and transport per request, as the SDK's stateless example does.
    const mcp = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which OAuth client is calling.' }, async (extra) => ({
      content: [{ type: 'text', text: `authorized as ${(extra as { authInfo?: AuthInfo }).authInfo?.clientId ?? 'nobody'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req, res) => void res.status(405).json({ error: 'no standalone stream here' }));
  server.on('request', app);
  return {
    url: mcpUrl.toString(),
    stats,
    expireAccessTokens() {
      for (const token of access.values()) token.expiresAt = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
