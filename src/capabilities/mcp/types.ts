/** Shapes of the MCP capability: the server map in <home>/mcp.json and each server's live status. */

/**
 * One server, in the shape Claude Desktop and Claude Code users already write: `command`, `args`,
 * `env`, `cwd` for a local (stdio) server; `type` and `url` (+ `headers`) for a remote one.
 */
export interface McpServerEntry {
  /** `stdio` (the default when `command` is given), `http` (Streamable HTTP, the default with `url`) or `sse` (legacy). */
  type?: 'stdio' | 'http' | 'streamable-http' | 'sse';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Default true; `POST /api/mcp/<name>/toggle` flips it. */
  enabled?: boolean;
}

export interface McpMap {
  servers: Record<string, McpServerEntry>;
}

export type McpState = 'connecting' | 'connected' | 'failed' | 'disabled' | 'needs-auth';

export interface McpServerStatus {
  state: McpState;
  transport: 'stdio' | 'http' | 'sse';
  /** Why it failed or waits, as a sentence. */
  error?: string;
  /** The registry names of its tools (`<server>_<tool>`). */
  tools: string[];
  /** Tools left out, each with the reason (a name collision, an invalid schema). */
  warnings?: string[];
  /** Restarts after the server died. */
  restarts: number;
  /** The server's own name and version, from its handshake. */
  serverInfo?: { name: string; version: string };
}

export interface McpView {
  servers: Record<string, McpServerEntry>;
  status: Record<string, McpServerStatus>;
  /** Authorization URLs to open in a browser, for servers waiting on OAuth. */
  authUrls: Record<string, string>;
  /** PUT only: pasted keys that were not valid server names, each with the name used instead (tools are `<name>_<tool>`). */
  renamed?: Record<string, string>;
}
