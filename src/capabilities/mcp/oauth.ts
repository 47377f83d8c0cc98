/**
 * OAuth 2.1 for remote MCP servers through the SDK's client auth provider: discovery, dynamic
 * client registration and PKCE are the SDK's; this keeps what they produce. Tokens and the client
 * registration are secrets (never in mcp.json); the PKCE verifier and the `state` live in memory
 * for the one pending authorization. The authorization URL waits in `authUrls` of GET /api/mcp for
 * a person to open; the browser comes back to GET /oauth/callback/<name>.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretStore } from '../secrets/types.js';

export const oauthSecretNames = (server: string) => ({ tokens: `mcp.${server}.oauth.tokens`, client: `mcp.${server}.oauth.client` });

export class EngineOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private pendingState: string | undefined;
  /** The URL a person must open, while an authorization is pending. */
  authUrl: string | undefined;

  constructor(
    private readonly server: string,
    private readonly secrets: SecretStore,
    private readonly callbackBase: () => string,
    private readonly onAuthUrl: () => void,
  ) {}

  get redirectUrl(): string {
    return `${this.callbackBase()}/oauth/callback/${this.server}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: `Workbench Engine (${this.server})`,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.pendingState = randomBytes(16).toString('base64url');
    return this.pendingState;
  }

  /** True when `state` is the one this provider sent (a callback from another flow is refused). */
  checkState(state: string | undefined): boolean {
    if (!state || !this.pendingState) return false;
    const a = Buffer.from(state);
    const b = Buffer.from(this.pendingState);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return this.readJson(oauthSecretNames(this.server).client);
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.secrets.set(oauthSecretNames(this.server).client, JSON.stringify(info));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return this.readJson(oauthSecretNames(this.server).tokens);
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.secrets.set(oauthSecretNames(this.server).tokens, JSON.stringify(tokens));
    this.authUrl = undefined;
    this.pendingState = undefined;
  }

  redirectToAuthorization(url: URL): void {
    this.authUrl = url.toString();
    this.onAuthUrl();
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no authorization is in progress for this server');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const names = oauthSecretNames(this.server);
    if (scope === 'all' || scope === 'tokens') await this.secrets.delete(names.tokens);
    if (scope === 'all' || scope === 'client') await this.secrets.delete(names.client);
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** Logout: tokens and registration dropped, nothing pending. */
  async forget(): Promise<void> {
    await this.invalidateCredentials('all');
    this.authUrl = undefined;
    this.pendingState = undefined;
  }

  private async readJson<T>(name: string): Promise<T | undefined> {
    const text = await this.secrets.get(name);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      return undefined;
    }
  }
}
