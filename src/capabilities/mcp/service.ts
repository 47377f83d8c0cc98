/**
 * MCP servers (seed 000 §4.17): the map in <home>/mcp.json, its secrets, and the pool that keeps the
 * servers connected. Start-up never waits for a server: `start()` runs after the engine listens.
 */
import { badRequest, notFound } from '../../kernel/errors.js';
import type { Bus } from '../../kernel/bus.js';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import { serialQueue } from '../../kernel/serial.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { SecretStore } from '../secrets/types.js';
import { parseMap, storedEntry, tokenSecretName } from './config.js';
import { McpPool } from './pool.js';
import { oauthSecretNames } from './oauth.js';
import type { McpMap, McpView } from './types.js';

export interface McpDeps {
  home: Home;
  bus: Bus;
  tools: ToolRegistry;
  secrets: SecretStore;
  workspace: () => string;
  mounts: () => Array<{ name: string; path: string }>;
  callbackBase: () => string;
  log: (line: string) => void;
}

export type McpService = Awaited<ReturnType<typeof createMcpService>>;

export async function createMcpService(deps: McpDeps) {
  const file = deps.home.path(HOME_LAYOUT.mcp);
  let map: McpMap = { servers: {} };
  const serial = serialQueue();
  let statusTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const pool = new McpPool({
    tools: deps.tools,
    secrets: deps.secrets,
    context: () => ({ workspace: deps.workspace(), mounts: deps.mounts() }),
    callbackBase: deps.callbackBase,
    log: deps.log,
    // Status changes come in bursts (connect, list tools): one event per tick is enough.
    onStatus: () => {
      if (statusTimer) return;
      statusTimer = setTimeout(() => {
        statusTimer = undefined;
        deps.bus.emit('mcp.status', { status: pool.status(map) });
      }, 0);
    },
  });

  try {
    const raw = await deps.home.readJson<unknown>(HOME_LAYOUT.mcp, { servers: {} });
    const inputs = parseMap(raw).servers;
    map = { servers: Object.fromEntries(Object.entries(inputs).map(([n, e]) => [n, storedEntry(n, e)])) };
  } catch (err) {
    deps.log(`mcp: ${HOME_LAYOUT.mcp} was not loaded (${(err as Error).message}); starting with no servers`);
  }

  const view = (): McpView => ({ servers: map.servers, status: pool.status(map), authUrls: pool.authUrls() });

  const save = async (next: McpMap) => {
    await deps.home.writeAtomic(file, JSON.stringify(next, null, 2) + '\n');
    map = next;
    deps.bus.emit('mcp.updated', { servers: Object.keys(next.servers) });
  };

  return {
    /** Connects every enabled server in the background (after a close, nothing). */
    start: () => (closed ? Promise.resolve() : serial(() => pool.apply(map))),
    view,
    /** The summary GET /api/status shows. */
    statusSummary: () => ({ servers: Object.entries(pool.status(map)).map(([name, s]) => ({ name, state: s.state, tools: s.tools.length, ...(s.error ? { error: s.error } : {}) })) }),
    /** PUT /api/mcp: replaces the map; only added, removed or changed servers reconnect. */
    replace(body: unknown): Promise<McpView> {
      return serial(async () => {
        const { servers: inputs, renamed } = parseMap(body);
        const servers: McpMap['servers'] = {};
        for (const [name, input] of Object.entries(inputs)) {
          if (input.newToken) await deps.secrets.set(tokenSecretName(name), input.newToken);
          else if (input.clearToken) await deps.secrets.delete(tokenSecretName(name));
          servers[name] = storedEntry(name, input);
        }
        // A server removed from the map takes its secrets with it.
        for (const gone of Object.keys(map.servers).filter((n) => !(n in servers))) {
          await deps.secrets.delete(tokenSecretName(gone));
          for (const s of Object.values(oauthSecretNames(gone))) await deps.secrets.delete(s);
        }
        await save({ servers });
        await pool.apply(map);
        return Object.keys(renamed).length ? { ...view(), renamed } : view();
      });
    },
    toggle(name: string, body: unknown): Promise<McpView> {
      return serial(async () => {
        const enabled = (body as { enabled?: unknown } | undefined)?.enabled;
        if (typeof enabled !== 'boolean') throw badRequest('send {"enabled": true} or {"enabled": false}');
        const entry = map.servers[name];
        if (!entry) throw notFound(`no MCP server named "${name}"; GET /api/mcp lists them`);
        await save({ servers: { ...map.servers, [name]: { ...entry, enabled } } });
        await pool.apply(map);
        return view();
      });
    },
    async logout(name: string): Promise<McpView> {
      if (!map.servers[name]) throw notFound(`no MCP server named "${name}"; GET /api/mcp lists them`);
      await pool.logout(name);
      return view();
    },
    completeAuth: (name: string, code: string, state: string | undefined) => pool.completeAuth(name, code, state),
    /** Mounts changed: servers whose expansion uses them reconnect, no other. */
    mountsChanged: () => serial(() => pool.apply(map)),
    close: () => {
      closed = true;
      return serial(() => pool.close());
    },
  };
}
