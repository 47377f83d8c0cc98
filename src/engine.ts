/**
 * The composition root: builds every service once, wires them, starts the listener.
 * Capabilities never import each other; what one needs of another is passed in here.
 */
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import { runsRoutes } from './capabilities/runs/routes.js';
import { shellRoutes } from './capabilities/shell/routes.js';
import { createShellService } from './capabilities/shell/service.js';
import { shellTools } from './capabilities/shell/tools.js';
import { workspaceFence } from './capabilities/shell/workspace-fence.js';
import { createWebService } from './capabilities/web/service.js';
import { webTools } from './capabilities/web/tools.js';
import { statusRoutes } from './capabilities/system/status.js';
import { Guard } from './http/guard.js';
import { loadMobileToken } from './http/mobile-token.js';
import { createServer } from './http/server.js';
import { eventsSocket } from './http/sockets/events.js';
import { termSocket } from './http/sockets/term.js';
import { attachSockets, type SocketHandler } from './http/sockets/upgrade.js';
import { Bus } from './kernel/bus.js';
import { HOME_LAYOUT, Home } from './kernel/home.js';
import { LIMITS } from './kernel/limits.js';
import { RunLedger } from './kernel/runs.js';
import { ToolRegistry } from './tools/registry.js';

export interface EngineOptions {
  home: string;
  /** 0 picks a free port (tests). */
  port?: number;
  bind?: string;
  /** Where operational log lines go (default: stderr). Never receives secrets. */
  log?: (line: string) => void;
  /** Asked to restart against another home (POST /api/home); the CLI exits with the restart code. */
  onRestart?: (home: string) => void;
}

export interface Engine {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  app: FastifyInstance;
  url: string;
  port: number;
  bind: string;
  mobileToken: string;
  close(): Promise<void>;
}

export const defaultHome = () => path.join(os.homedir(), '.engine');

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const bind = options.bind ?? '127.0.0.1';
  const home = new Home(path.resolve(options.home));
  await home.ensure();

  const bus = new Bus();
  const runs = new RunLedger(home, bus);
  await runs.init();
  const tools = new ToolRegistry(bus);
  const mobileToken = await loadMobileToken(home);

  let port = options.port ?? LIMITS.defaultEnginePort;
  const guard = new Guard(() => port, () => mobileToken);
  const app = createServer({ guard, log });
  const closers: Array<() => Promise<void> | void> = [];
  const sockets: SocketHandler[] = [eventsSocket(bus)];

  // --- capabilities ---------------------------------------------------------------------------
  runsRoutes(app, runs);
  statusRoutes(app, {
    runs,
    tools,
    provider: () => ({ provider: null, providers: [] }),
    mcp: () => ({ servers: [] }),
    embeddings: () => false,
  });

  // Shell, diagnostics, terminal and web. The policy (permission, hardDenied) and the mask are
  // passed in when src/permissions/ lands; the web tools always get the real URL floor.
  const shellFence = workspaceFence(home.path(HOME_LAYOUT.workspace));
  const shell = createShellService({ fence: shellFence, home: home.root });
  tools.register(...shellTools(shell, shellFence));
  shellRoutes(app, shell);
  sockets.push(termSocket({ cwd: () => shellFence.root('workspace').path, env: () => shell.env() }));
  tools.register(...webTools(createWebService()));

  // --- listen ---------------------------------------------------------------------------------
  await app.ready();
  attachSockets(app.server, guard, sockets);
  await app.listen({ port, host: bind });
  const address = app.server.address();
  if (address && typeof address === 'object') port = address.port;
  const hostForUrl = bind === '0.0.0.0' || bind === '::' || bind === '127.0.0.1' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const run of runs.live()) run.stop();
    for (const s of sockets) s.close();
    for (const c of closers.reverse()) await c();
    await app.close();
    await runs.close();
  };

  return { home, bus, runs, tools, app, url: `http://${hostForUrl}:${port}`, port, bind, mobileToken, close };
}
