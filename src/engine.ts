/**
 * The composition root: builds every service once, wires them, starts the listener.
 * Capabilities never import each other; what one needs of another is passed in here.
 */
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import { permissionsRoutes } from './capabilities/permissions/routes.js';
import { runsRoutes } from './capabilities/runs/routes.js';
import { statusRoutes } from './capabilities/system/status.js';
import { Guard } from './http/guard.js';
import { loadMobileToken } from './http/mobile-token.js';
import { createServer } from './http/server.js';
import { eventsSocket } from './http/sockets/events.js';
import { attachSockets, type SocketHandler } from './http/sockets/upgrade.js';
import { Bus } from './kernel/bus.js';
import { Home } from './kernel/home.js';
import { LIMITS } from './kernel/limits.js';
import { RunLedger } from './kernel/runs.js';
import { PermissionGate } from './permissions/gate.js';
import { Masker } from './permissions/mask.js';
import { RuleStore } from './permissions/rules.js';
import { ensureShellParser } from './permissions/shell-parse.js';
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
  /** The permission gate (registry default), its rule store and the secret masker. */
  permissions: { gate: PermissionGate; rules: RuleStore; masker: Masker };
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
  // Permissions: every tool call passes this gate; masking by shape (+ secret values once the store lands).
  const masker = new Masker();
  const permissionRules = new RuleStore(home);
  const gate = new PermissionGate({ rules: permissionRules, mask: masker.mask });
  tools.setGate(gate);
  tools.setMask(masker.mask);
  permissionsRoutes(app, { rules: permissionRules, gate });
  const permissions = { gate, rules: permissionRules, masker };
  void ensureShellParser(); // load the bash grammar now so the first shell call does not wait for it

  runsRoutes(app, runs);
  statusRoutes(app, {
    runs,
    tools,
    provider: () => ({ provider: null, providers: [] }),
    mcp: () => ({ servers: [] }),
    embeddings: () => false,
  });

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

  return { home, bus, runs, tools, permissions, app, url: `http://${hostForUrl}:${port}`, port, bind, mobileToken, close };
}
