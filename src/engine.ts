/**
 * The composition root: builds every service once, wires them, starts the listener.
 * Capabilities never import each other; what one needs of another is passed in here.
 */
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import { permissionsRoutes } from './capabilities/permissions/routes.js';
import { MountStore } from './capabilities/files/mounts.js';
import { filesRoutes } from './capabilities/files/routes.js';
import { createFilesService } from './capabilities/files/service.js';
import { fileTools } from './capabilities/files/tools.js';
import { createFileWatcher } from './capabilities/files/watcher.js';
import { runsRoutes } from './capabilities/runs/routes.js';
import { statusRoutes } from './capabilities/system/status.js';
import { toolsRoutes } from './capabilities/tools/routes.js';
import { Guard } from './http/guard.js';
import { loadMobileToken } from './http/mobile-token.js';
import { createServer } from './http/server.js';
import { eventsSocket } from './http/sockets/events.js';
import { attachSockets, type SocketHandler } from './http/sockets/upgrade.js';
import { Bus } from './kernel/bus.js';
import { Fence } from './kernel/fence.js';
import { HOME_LAYOUT, Home } from './kernel/home.js';
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
  /** Files capability knobs for tests: rg path (null = the walk fallback), reveal command (null = none). */
  files?: { rg?: string | null; revealCommand?: string | null; watch?: boolean };
}

export interface Engine {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  /** The permission gate (registry default), its rule store and the secret masker. */
  permissions: { gate: PermissionGate; rules: RuleStore; masker: Masker };
  /** The multi-root fence: every virtual path (files, shell cwd, git) resolves through it. */
  fence: Fence;
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

  const mounts = new MountStore(home, (): string => fence.roots()[0].path);
  await mounts.load();
  const fence: Fence = new Fence(home.path(HOME_LAYOUT.workspace), () => mounts.roots());
  const watcher = createFileWatcher({ fence, emit: (k, p) => bus.emit(k, p), isOwnWrite: (p) => files.isOwnWrite(p), log });
  const files = createFilesService({
    home,
    fence,
    mounts,
    emit: (k, p) => bus.emit(k, p),
    rg: options.files?.rg,
    revealCommand: options.files?.revealCommand,
    onMountsChanged: () => (options.files?.watch === false ? undefined : watcher.rearm()),
  });
  if (options.files?.watch !== false) await watcher.rearm();
  closers.push(() => watcher.close());
  filesRoutes(app, files);
  tools.register(...fileTools(files, { embeddingsConfigured: () => false }));
  toolsRoutes(app, tools);
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

  return { home, bus, runs, tools, permissions, fence, app, url: `http://${hostForUrl}:${port}`, port, bind, mobileToken, close };
}
