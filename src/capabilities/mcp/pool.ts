/**
 * The pool: one connection per enabled server, reconciled in place. `apply` compares each server's
 * expanded entry (mounts and secret values included) with the running one and restarts only what
 * changed; unchanged servers keep their sessions. Tools enter and leave the one registry here.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from '../../kernel/errors.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { SecretStore } from '../secrets/types.js';
import { transportOf } from './config.js';
import { McpConnection } from './connection.js';
import { expand, type ExpandContext } from './expand.js';
import { EngineOAuthProvider } from './oauth.js';
import { mcpTool, registryName } from './tools.js';
import type { McpMap, McpServerStatus } from './types.js';

export interface PoolDeps {
  tools: ToolRegistry;
  secrets: SecretStore;
  context: () => Omit<ExpandContext, 'secret'>;
  /** The engine's own address, for OAuth redirect URLs (known once it listens). */
  callbackBase: () => string;
  onStatus: () => void;
  log: (line: string) => void;
}

export class McpPool {
  private readonly connections = new Map<string, McpConnection>();
  /** Servers that could not even be expanded (a missing secret or mount), with the reason. */
  private readonly broken = new Map<string, McpServerStatus>();
  private readonly registered = new Map<string, string[]>();
  private readonly warnings = new Map<string, string[]>();
  private readonly oauth = new Map<string, EngineOAuthProvider>();

  constructor(private readonly deps: PoolDeps) {}

  async apply(map: McpMap): Promise<void> {
    const ctx: ExpandContext = { ...this.deps.context(), secret: (n) => this.deps.secrets.get(n) };
    const wanted = new Set<string>();
    for (const [name, entry] of Object.entries(map.servers)) {
      if (entry.enabled === false) continue;
      wanted.add(name);
      let expanded;
      try {
        expanded = await expand(name, entry, ctx);
      } catch (err) {
        await this.drop(name);
        this.broken.set(name, { state: 'failed', transport: transportOf(entry), tools: [], restarts: 0, error: describeError(err) });
        continue;
      }
      this.broken.delete(name);
      const current = this.connections.get(name);
      if (current?.fingerprint === expanded.fingerprint) continue;
      await this.drop(name);
      const conn = new McpConnection(name, expanded.entry, expanded.fingerprint, {
        onTools: (tools) => this.sync(name, tools, () => conn.connected),
        onStatus: this.deps.onStatus,
        log: this.deps.log,
        authProvider: transportOf(entry) === 'stdio' ? undefined : this.provider(name),
      });
      this.connections.set(name, conn);
      void conn.start(); // connections come up in parallel; nobody waits for them
    }
    for (const name of [...this.connections.keys(), ...this.broken.keys()]) {
      if (!wanted.has(name)) {
        await this.drop(name);
        this.broken.delete(name);
      }
    }
    this.deps.onStatus();
  }

  status(map: McpMap): Record<string, McpServerStatus> {
    const out: Record<string, McpServerStatus> = {};
    for (const [name, entry] of Object.entries(map.servers)) {
      const conn = this.connections.get(name);
      const s = conn?.status ?? this.broken.get(name) ?? { state: entry.enabled === false ? 'disabled' : 'connecting', transport: transportOf(entry), tools: [], restarts: 0 };
      const warnings = this.warnings.get(name);
      out[name] = { ...s, tools: this.registered.get(name) ?? [], ...(warnings?.length ? { warnings } : {}) };
    }
    return out;
  }

  authUrls(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, p] of this.oauth) if (p.authUrl && this.connections.get(name)?.status.state === 'needs-auth') out[name] = p.authUrl;
    return out;
  }

  /** The OAuth callback: checks `state`, completes the token exchange and connects. */
  async completeAuth(name: string, code: string, state: string | undefined): Promise<void> {
    const provider = this.oauth.get(name);
    const conn = this.connections.get(name);
    if (!provider || !conn) throw new Error(`no MCP server named "${name}" is waiting for authorization`);
    if (!provider.checkState(state)) throw new Error('the state parameter does not match the authorization this engine started; start again from GET /api/mcp');
    await conn.finishAuth(code);
  }

  async logout(name: string): Promise<void> {
    await this.provider(name).forget();
    const conn = this.connections.get(name);
    if (conn) {
      // A fresh connection without tokens goes back to needs-auth (and offers a new URL).
      await this.drop(name);
      const next = new McpConnection(name, conn.entry, conn.fingerprint, {
        onTools: (tools) => this.sync(name, tools, () => next.connected),
        onStatus: this.deps.onStatus,
        log: this.deps.log,
        authProvider: this.provider(name),
      });
      this.connections.set(name, next);
      await next.start();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((n) => this.drop(n)));
  }

  private provider(name: string): EngineOAuthProvider {
    let p = this.oauth.get(name);
    if (!p) this.oauth.set(name, (p = new EngineOAuthProvider(name, this.deps.secrets, this.deps.callbackBase, this.deps.onStatus)));
    return p;
  }

  private async drop(name: string): Promise<void> {
    const conn = this.connections.get(name);
    this.connections.delete(name);
    this.sync(name, [], () => undefined);
    await conn?.stop();
  }

  /** Replaces a server's tools in the registry; a name taken by another tool is a warning, not an overwrite. */
  private sync(server: string, tools: Tool[], client: () => Client | undefined): void {
    this.deps.tools.unregister(...(this.registered.get(server) ?? []));
    const names: string[] = [];
    const warnings: string[] = [];
    for (const tool of tools) {
      const name = registryName(server, tool.name);
      if (!name) {
        warnings.push(`tool "${tool.name}" was left out: "${server}_${tool.name}" is longer than 64 characters`);
        continue;
      }
      if (this.deps.tools.get(name) || names.includes(name)) {
        warnings.push(`tool "${tool.name}" was left out: the name ${name} is already taken`);
        continue;
      }
      this.deps.tools.register(mcpTool(server, tool, name, client));
      names.push(name);
    }
    this.registered.set(server, names);
    this.warnings.set(server, warnings);
    this.deps.onStatus();
  }
}
