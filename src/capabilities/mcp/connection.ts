/**
 * One MCP server: its transport, its client session, its tools, its status. A server that dies is
 * restarted with backoff (its tools leave the registry while it is down and come back with it);
 * `tools/list_changed` re-lists its tools. Stopping is final for this object: the pool makes a new
 * connection when an entry changes.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { lazyRequire } from '../../kernel/lazy-require.js';
import { describeError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { transportOf } from './config.js';
import type { McpServerEntry, McpServerStatus } from './types.js';

// The MCP SDK (and the zod it builds its schemas with) loads when the first server connects, not at start.
const sdk = {
  client: lazyRequire<typeof import('@modelcontextprotocol/sdk/client/index.js')>('@modelcontextprotocol/sdk/client/index.js'),
  auth: lazyRequire<typeof import('@modelcontextprotocol/sdk/client/auth.js')>('@modelcontextprotocol/sdk/client/auth.js'),
  sse: lazyRequire<typeof import('@modelcontextprotocol/sdk/client/sse.js')>('@modelcontextprotocol/sdk/client/sse.js'),
  stdio: lazyRequire<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>('@modelcontextprotocol/sdk/client/stdio.js'),
  http: lazyRequire<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  types: lazyRequire<typeof import('@modelcontextprotocol/sdk/types.js')>('@modelcontextprotocol/sdk/types.js'),
};

export interface ConnectionHooks {
  /** The server's tools changed (connected, re-listed, or gone: an empty list). */
  onTools(tools: Tool[]): void;
  onStatus(): void;
  log(line: string): void;
  /** OAuth for remote servers; undefined for stdio. */
  authProvider?: OAuthClientProvider;
}

const CLIENT_INFO = { name: 'workbench-engine', version: '0.1.0' };
/** Lines of a stdio server's stderr kept to explain a failure. */
const STDERR_LINES = 20;

export class McpConnection {
  readonly status: McpServerStatus;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoff: number = LIMITS.mcpRestartBaseMs;
  private stderr: string[] = [];

  constructor(
    readonly name: string,
    readonly entry: McpServerEntry,
    readonly fingerprint: string,
    private readonly hooks: ConnectionHooks,
  ) {
    this.status = { state: 'connecting', transport: transportOf(entry), tools: [], restarts: 0 };
  }

  /** Connects; never throws (a failure is a status with its reason, and a retry when it may pass). */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.set({ state: 'connecting', error: undefined });
    const client = new (sdk.client().Client)(CLIENT_INFO, { capabilities: {} });
    let transport: Transport;
    try {
      transport = this.makeTransport();
      this.transport = transport;
      await client.connect(transport);
    } catch (err) {
      await client.close().catch(() => undefined);
      if (this.stopped) return;
      if (err instanceof sdk.auth().UnauthorizedError || /unauthorized/i.test(describeError(err))) {
        this.set({ state: 'needs-auth', error: 'the server needs authorization: open the URL in authUrls of GET /api/mcp' });
        return;
      }
      this.fail(`could not connect: ${this.reason(err)}`);
      return;
    }
    if (this.stopped) {
      await client.close().catch(() => undefined);
      return;
    }
    this.client = client;
    const startedAt = Date.now();
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.hooks.onTools([]);
      if (this.stopped) return;
      // A server that stayed up a while earns a fresh backoff.
      if (Date.now() - startedAt > LIMITS.mcpStableMs) this.backoff = LIMITS.mcpRestartBaseMs;
      this.status.restarts++;
      this.fail(`the server stopped${this.stderr.length ? ` (${this.stderr.at(-1)})` : ''}; restarting`);
    };
    client.setNotificationHandler(sdk.types().ToolListChangedNotificationSchema, () => void this.listTools());
    const info = client.getServerVersion();
    this.set({ state: 'connected', error: undefined, serverInfo: info ? { name: info.name, version: info.version } : undefined });
    await this.listTools();
  }

  /** Closes the session and the process for good. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.hooks.onTools([]);
    await client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
  }

  get connected(): Client | undefined {
    return this.client;
  }

  /** After an OAuth callback: hands the code to the transport that asked, then connects again. */
  async finishAuth(code: string): Promise<void> {
    const t = this.transport as StreamableHTTPClientTransport | SSEClientTransport | undefined;
    if (!t || !('finishAuth' in t)) throw new Error('no authorization is pending for this server');
    await t.finishAuth(code);
    await this.start();
  }

  private async listTools(): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      if (this.client === client) this.hooks.onTools(tools);
    } catch (err) {
      this.hooks.log(`mcp ${this.name}: listing tools failed: ${describeError(err)}`);
    }
  }

  private makeTransport(): Transport {
    const e = this.entry;
    const kind = transportOf(e);
    if (kind === 'stdio') {
      const t = new (sdk.stdio().StdioClientTransport)({ command: e.command!, args: e.args, env: { ...sdk.stdio().getDefaultEnvironment(), ...e.env }, cwd: e.cwd, stderr: 'pipe' });
      this.stderr = [];
      t.stderr?.on('data', (chunk: Buffer) => {
        for (const line of String(chunk).split('\n')) if (line.trim()) this.stderr.push(line.trim().slice(0, 300));
        if (this.stderr.length > STDERR_LINES) this.stderr.splice(0, this.stderr.length - STDERR_LINES);
      });
      return t;
    }
    const url = new URL(e.url!);
    const requestInit = e.headers ? { headers: e.headers } : undefined;
    // A static Authorization header means the person chose a token; OAuth is for servers without one.
    const hasAuthHeader = Object.keys(e.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
    const authProvider = hasAuthHeader ? undefined : this.hooks.authProvider;
    if (kind === 'sse') return new (sdk.sse().SSEClientTransport)(url, { requestInit, authProvider, eventSourceInit: e.headers ? { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...e.headers } }) } : undefined });
    return new (sdk.http().StreamableHTTPClientTransport)(url, { requestInit, authProvider });
  }

  private reason(err: unknown): string {
    const text = describeError(err);
    if (/ENOENT/.test(text)) return `${this.entry.command} was not found; check the command and PATH`;
    return this.stderr.length ? `${text} (stderr: ${this.stderr.slice(-3).join(' | ')})` : text;
  }

  private fail(error: string): void {
    this.set({ state: 'failed', error });
    if (this.stopped) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, LIMITS.mcpRestartMaxMs);
    this.retryTimer = setTimeout(() => void this.start(), delay);
    this.retryTimer.unref();
  }

  private set(patch: Partial<McpServerStatus>): void {
    Object.assign(this.status, patch);
    for (const k of Object.keys(patch) as Array<keyof McpServerStatus>) if (patch[k] === undefined) delete this.status[k];
    this.hooks.onStatus();
  }
}
