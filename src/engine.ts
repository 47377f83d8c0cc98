/**
 * The composition root: builds every service once, wires them, starts the listener.
 * Capabilities never import each other; what one needs of another is passed in here.
 */
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { configRoutes } from './capabilities/config/routes.js';
import { createConfigService, type ConfigServiceImpl } from './capabilities/config/service.js';
import { historyRoutes } from './capabilities/history/routes.js';
import { createHistoryService, type HistoryService } from './capabilities/history/service.js';
import { homeRoutes } from './capabilities/home/routes.js';
import { createHomeService } from './capabilities/home/service.js';
import { notificationsRoutes } from './capabilities/notifications/routes.js';
import { createNotificationsService, type NotificationsService } from './capabilities/notifications/service.js';
import { runsRoutes } from './capabilities/runs/routes.js';
import { secretsRoutes } from './capabilities/secrets/routes.js';
import { createSecretStore, type SecretsBackendChoice } from './capabilities/secrets/service.js';
import type { SecretStore } from './capabilities/secrets/types.js';
import { settingsRoutes } from './capabilities/settings/routes.js';
import { createSettingsService, type SettingsServiceImpl } from './capabilities/settings/service.js';
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
  /** Secret store backend: `auto` (default) uses the OS keychain when it answers a probe. */
  secretsBackend?: SecretsBackendChoice;
}

export interface Engine {
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  settings: SettingsServiceImpl;
  secrets: SecretStore;
  config: ConfigServiceImpl;
  notifications: NotificationsService;
  history: HistoryService;
  app: FastifyInstance;
  url: string;
  port: number;
  bind: string;
  mobileToken: string;
  close(): Promise<void>;
}

export { defaultHome } from './kernel/home.js';

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const bind = options.bind ?? '127.0.0.1';
  const home = new Home(path.resolve(options.home));
  await home.ensure();

  const bus = new Bus();
  const runs = new RunLedger(home, bus);
  const tools = new ToolRegistry(bus);
  // Independent start-up reads run side by side (start-up time is measured in bench/startup).
  const [, mobileToken] = await Promise.all([runs.init(), loadMobileToken(home)]);

  let port = options.port ?? LIMITS.defaultEnginePort;
  const guard = new Guard(() => port, () => mobileToken);
  const app = createServer({ guard, log });
  const closers: Array<() => Promise<void> | void> = [];
  const sockets: SocketHandler[] = [eventsSocket(bus)];

  // --- capabilities ---------------------------------------------------------------------------
  const [settings, secrets, notifications] = await Promise.all([
    createSettingsService({ home, bus, log }),
    createSecretStore({ home, bus, log, backend: options.secretsBackend }),
    createNotificationsService({ home, bus, log }),
  ]);
  settingsRoutes(app, settings);
  secretsRoutes(app, secrets);
  const config = await createConfigService({ home, bus, secrets, log });
  closers.push(() => config.close());
  configRoutes(app, config);
  notificationsRoutes(app, notifications);
  const history = createHistoryService({ home, bus });
  historyRoutes(app, history);
  homeRoutes(app, createHomeService({ home, onRestart: options.onRestart }));

  runsRoutes(app, runs);
  statusRoutes(app, {
    runs,
    tools,
    provider: () => {
      const c = config.get();
      return { provider: c.defaultProvider ?? c.providers[0]?.name ?? null, providers: c.providers.map((p) => p.name) };
    },
    mcp: () => ({ servers: [] }),
    embeddings: () => !!config.get().embeddings,
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

  return { home, bus, runs, tools, settings, secrets, config, notifications, history, app, url: `http://${hostForUrl}:${port}`, port, bind, mobileToken, close };
}
