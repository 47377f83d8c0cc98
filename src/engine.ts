/**
 * The composition root: builds every service once, wires them, starts the listener.
 * Capabilities never import each other; what one needs of another is passed in here.
 */
import type { FastifyInstance } from 'fastify';
import os from 'node:os';
import path from 'node:path';
import { chatRoutes } from './capabilities/chat/routes.js';
import { createChatService, type ChatService } from './capabilities/chat/service.js';
import { agentsRoutes } from './capabilities/agents/routes.js';
import { delegateTool } from './capabilities/agents/delegate.js';
import { createModelPass, createSubagentRunner } from './capabilities/agents/runner.js';
import { setPlanTool } from './capabilities/agents/plan-tool.js';
import { type AgentsService, createAgentsService } from './capabilities/agents/service.js';
import { mcpRoutes } from './capabilities/mcp/routes.js';
import { createMcpService } from './capabilities/mcp/service.js';
import { memoryRoutes } from './capabilities/memory/routes.js';
import { createMemoryService } from './capabilities/memory/service.js';
import { memoryPromptBlock, memoryTool } from './capabilities/memory/tool.js';
import { reportsRoutes } from './capabilities/reports/routes.js';
import { createReportsService } from './capabilities/reports/service.js';
import { engineActivityTool } from './capabilities/reports/tool.js';
import { MountStore } from './capabilities/files/mounts.js';
import { filesRoutes } from './capabilities/files/routes.js';
import { createFilesService } from './capabilities/files/service.js';
import { fileTools } from './capabilities/files/tools.js';
import { createFileWatcher } from './capabilities/files/watcher.js';
import { gatewayRoutes } from './capabilities/gateway/routes.js';
import { createGatewayService } from './capabilities/gateway/service.js';
import { createModelsService } from './capabilities/models/service.js';
import { modelsRoutes, modelsStatusSchema } from './capabilities/models/routes.js';
import { configRoutes } from './capabilities/config/routes.js';
import { createConfigService, type ConfigServiceImpl } from './capabilities/config/service.js';
import { historyRoutes } from './capabilities/history/routes.js';
import { createHistoryService, type HistoryService } from './capabilities/history/service.js';
import { homeRoutes } from './capabilities/home/routes.js';
import { createHomeService } from './capabilities/home/service.js';
import { notificationsRoutes } from './capabilities/notifications/routes.js';
import { createPresence } from './capabilities/push/presence.js';
import { pushRoutes } from './capabilities/push/routes.js';
import { createPushService, type PushService } from './capabilities/push/service.js';
import { floorRequest, type RequestFloor } from './capabilities/web/floor-request.js';
import { createNotificationsService, type NotificationsService } from './capabilities/notifications/service.js';
import { permissionsRoutes } from './capabilities/permissions/routes.js';
import { providerRoutes } from './capabilities/providers/routes.js';
import { reportRunFailures } from './capabilities/runs/failures.js';
import { runsRoutes } from './capabilities/runs/routes.js';
import { skillsRoutes } from './capabilities/skills/routes.js';
import { createSkillsService } from './capabilities/skills/service.js';
import { loadSkillTool } from './capabilities/skills/tool.js';
import { createUrlFloor, urlFloor, type UrlFloor } from './capabilities/web/floor.js';
import type { AllowedHost } from './capabilities/web/allow-hosts.js';
import { floorGet } from './capabilities/web/http-get.js';
import { secretsRoutes } from './capabilities/secrets/routes.js';
import { createSecretStore, type SecretsBackendChoice } from './capabilities/secrets/service.js';
import type { SecretStore } from './capabilities/secrets/types.js';
import { settingsRoutes } from './capabilities/settings/routes.js';
import { editorRoutes } from './capabilities/editor/routes.js';
import { createEditorService } from './capabilities/editor/service.js';
import { codeIndexRoutes, embeddingsKey } from './capabilities/codeindex/routes.js';
import { createCodeIndex } from './capabilities/codeindex/service.js';
import { workerEnv } from './capabilities/models/worker-env.js';
import { brainRoutes } from './capabilities/brain/routes.js';
import { runAgent } from './agent/index.js';
import { atlasRoutes } from './capabilities/atlas/routes.js';
import { createAtlasService } from './capabilities/atlas/service.js';
import { createSurveyor } from './capabilities/atlas/survey.js';
import { atlasTools, noteRead } from './capabilities/atlas/tools.js';
import { createBrainService } from './capabilities/brain/service.js';
import { createSettingsService, type SettingsServiceImpl } from './capabilities/settings/service.js';
import { shellRoutes } from './capabilities/shell/routes.js';
import { createLoginEnv } from './capabilities/shell/login-env.js';
import { createShellService } from './capabilities/shell/service.js';
import { shellTools } from './capabilities/shell/tools.js';
import { createWebService } from './capabilities/web/service.js';
import { browserRoutes } from './capabilities/browser/routes.js';
import { createBrowserService } from './capabilities/browser/service.js';
import { browserTools } from './capabilities/browser/tools.js';
import { browserSocket } from './http/sockets/browser.js';
import { webTools } from './capabilities/web/tools.js';
import { aboutRoutes } from './capabilities/system/about.js';
import { statusRoutes } from './capabilities/system/status.js';
import { pickFolderRoutes } from './capabilities/system/pick-folder.js';
import { toolsRoutes } from './capabilities/tools/routes.js';
import { gitRoutes } from './capabilities/git/routes.js';
import { git as runGit } from './capabilities/git/exec.js';
import { dashboardsRoutes } from './capabilities/dashboards/routes.js';
import { createDashboardsService, type DashboardsService } from './capabilities/dashboards/service.js';
import { dashboardTools } from './capabilities/dashboards/tools.js';
import { workRoutes } from './capabilities/work/routes.js';
import { createWorkService } from './capabilities/work/service.js';
import { workTools } from './capabilities/work/tools.js';
import { createGitService, type GitService } from './capabilities/git/service.js';

import { dbRoutes } from './capabilities/db/routes.js';
import { dbTools } from './capabilities/db/tools.js';

import { vaultsRoutes } from './capabilities/vaults/routes.js';
import { createVaultsService } from './capabilities/vaults/vaults.js';
import type { Clock } from './capabilities/workflows/clock.js';
import { createNodeServices } from './capabilities/workflows/node-services.js';
import { workflowsRoutes } from './capabilities/workflows/routes.js';
import { createWorkflowsService, type WorkflowsService } from './capabilities/workflows/service.js';
import { workflowTools } from './capabilities/workflows/tools.js';
import { relayRoutes } from './capabilities/relay/routes.js';
import { createRelayService, type RelayService } from './capabilities/relay/service.js';
import { Guard } from './http/guard.js';
import { loadMobileToken } from './http/mobile-token.js';
import { createServer } from './http/server.js';
import { createWebApp, wantsHtml } from './http/web-app.js';
import { eventsSocket } from './http/sockets/events.js';
import { termSocket } from './http/sockets/term.js';
import { attachSockets, type SocketHandler } from './http/sockets/upgrade.js';
import { Bus, type Emit } from './kernel/bus.js';
import { Fence } from './kernel/fence.js';
import { FencedReader } from './kernel/fenced-read.js';
import { HOME_LAYOUT, Home } from './kernel/home.js';
import { badRequest, describeError } from './kernel/errors.js';
import { LIMITS } from './kernel/limits.js';
import { onFirstUse } from './kernel/on-first-use.js';
import { Redactor } from './kernel/redact.js';
import { RunLedger } from './kernel/runs.js';
import { installResponseRedaction } from './http/redact-responses.js';
import { redactingSecrets } from './capabilities/secrets/redacting.js';
import { PermissionGate } from './permissions/gate.js';
import { ProvenanceStore } from './kernel/provenance.js';
import type { HiddenPaths } from './kernel/hidden.js';
import type { ToolContext } from './tools/types.js';
import { Masker } from './permissions/mask.js';
import { RuleStore } from './permissions/rules.js';
import { ensureShellParser } from './permissions/shell-parse.js';
import { createProviderService, type ProviderService } from './providers/service.js';
import { hardDenied, shellPermission } from './permissions/shell-policy.js';
import { warmSdk } from './providers/sdk.js';
import { createSandbox, type SandboxDeps } from './sandbox/sandbox.js';
import { ToolRegistry } from './tools/registry.js';
import { toolSearchTool } from './tools/tool-search.js';
import { engineVersion } from './kernel/version.js';
import { openPool, type Pool } from './pool/index.js';
import { pinDatabaseUrl } from './pool/url.js';

export interface EngineOptions {
  home: string;
  /** 0 picks a free port (tests). */
  port?: number;
  bind?: string;
  /** The completions gateway's port (ENGINE_GATEWAY_PORT, default 7778; 0 picks a free one). */
  gatewayPort?: number;
  /** Where operational log lines go (default: stderr). Never receives secrets. */
  log?: (line: string) => void;
  /** Asked to restart against another home (POST /api/home); the CLI exits with the restart code. */
  onRestart?: (home: string) => void;
  /** The folder holding the read-only user tier of skills (`~/<skills_dir>/skills`); tests point it at a temp dir. */
  skillsUserHome?: string;
  /** Replaces the URL floor for load_skill URLs (tests only: lets a loopback server serve a skill). */
  skillUrlFloor?: UrlFloor;
  /** Replaces the URL floor of browser_navigate (tests only: lets the browser reach a loopback fixture server). */
  browserUrlFloor?: UrlFloor;
  /** Files capability knobs for tests: rg path (null = the walk fallback), reveal command (null = none). */
  files?: { rg?: string | null; revealCommand?: string | null; watch?: boolean };
  /** Secret store backend: `auto` (default) uses the OS keychain when it answers a probe. */
  secretsBackend?: SecretsBackendChoice;
  /** Sandbox knobs for tests: the bwrap to use (a missing path makes it unavailable), the user's home, the egress proxy's floor. */
  sandbox?: Pick<SandboxDeps, 'bwrap' | 'userHome' | 'egressFloor' | 'egressBridge' | 'egressSession'>;
  /** Code index knobs for tests: counts every request sent to the embeddings endpoint. */
  index?: { onEmbedRequest?: () => void };
  /** The clock workflows time with (cron, waits, backoff, timeouts), the editor's completion deadline and the hold of ended runs before their push; tests inject a test clock. */
  clock?: Clock;
  /** The HOME the login shell's environment is read under (tests: a clean folder, so no developer's rc files run). */
  shellLoginHome?: string;
  /** Phone push knobs for tests: a floor for a loopback push service (allows http:), the presence idle time (the hold of ended runs runs on `clock`). */
  push?: { floor?: RequestFloor; presenceIdleMs?: number };
  /** Pool mode (docs/pool.md): the PostgreSQL this engine shares with others (ENGINE_DATABASE_URL, --database-url). A secret. */
  databaseUrl?: string;
  /** In a pool: false serves only (--no-worker); otherwise this engine executes queued runs too. */
  worker?: boolean;
  /** In a pool: runs this engine executes at once (ENGINE_CONCURRENCY, --concurrency; default LIMITS.poolConcurrency). */
  concurrency?: number;
  /** Private hosts the URL floor lets through (ENGINE_ALLOW_HOSTS, --allow-hosts; never from the API or settings). */
  allowHosts?: AllowedHost[];
}

export interface Engine {
  /** Model clients for the provider map (hot-swapped on config change). */
  providers: ProviderService;
  chat: ChatService;
  home: Home;
  bus: Bus;
  runs: RunLedger;
  tools: ToolRegistry;
  /** The multi-root fence: every virtual path (files, shell cwd, git) resolves through it. */
  fence: Fence;
  agents: AgentsService;
  /** Git routes' service; `git.checkpoints` is the checkpoints API (docs/git.md) for workflows. */
  git: GitService;
  settings: SettingsServiceImpl;
  secrets: SecretStore;
  config: ConfigServiceImpl;
  notifications: NotificationsService;
  history: HistoryService;
  workflows: WorkflowsService;
  dashboards: DashboardsService;
  push: PushService;
  /** The permission gate (registry default), its rule store and the secret masker. */
  permissions: { gate: PermissionGate; rules: RuleStore; masker: Masker };
  /** The phone relay (docs/relay.md). */
  relay: RelayService;
  /** Pool mode's database side (docs/pool.md); undefined for an embedded engine. */
  pool: Pool | undefined;
  app: FastifyInstance;
  url: string;
  port: number;
  bind: string;
  mobileToken: string;
  close(): Promise<void>;
}

export { defaultHome } from './kernel/home.js';

export async function startEngine(options: EngineOptions): Promise<Engine> {
  // The exit mask every outgoing text passes (src/kernel/redact.ts lists the exits); log lines too.
  const redactor = new Redactor();
  const rawLog = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const log = (line: string) => rawLog(redactor.text(line));
  const bind = options.bind ?? '127.0.0.1';
  const home = new Home(path.resolve(options.home));
  await home.ensure();

  const bus = new Bus(redactor);
  const emit: Emit = (kind, payload) => void bus.emit(kind, payload);
  const embeddingsConfigured = () => !!config.get().embeddings;
  // Pool mode (docs/pool.md): runs, workflows, gates, cron, notifications and rules live in the
  // shared database; without a URL nothing of it loads and the home holds everything.
  if (options.databaseUrl) pinDatabaseUrl(redactor, options.databaseUrl);
  const pool = options.databaseUrl
    ? await openPool({ url: options.databaseUrl, home, concurrency: options.worker === false ? 0 : (options.concurrency ?? LIMITS.poolConcurrency), version: engineVersion(), log }).catch((err) => {
        throw new Error(`cannot open the pool's database (ENGINE_DATABASE_URL): ${redactor.text(describeError(err))}`);
      })
    : undefined;
  const runs = new RunLedger(home, bus, pool?.runStore);
  if (pool) {
    runs.worker = pool.worker;
    runs.distinctIds();
  }
  const tools = new ToolRegistry();
  // Independent start-up reads run side by side (start-up time is measured in bench/startup).
  const [, mobileToken] = await Promise.all([runs.init(), loadMobileToken(home)]);
  const workflowPool = await pool?.join(runs, bus);

  let port = options.port ?? LIMITS.defaultEnginePort;
  const guard = new Guard(() => port, () => mobileToken);
  // The URL floor of web_fetch, load_skill, workflow http nodes, push and the sandbox's egress: the
  // private hosts the person starting the engine allowed pass, never onto the engine's own listeners.
  let gatewayPort: () => number | null = () => null;
  const floor = createUrlFloor({ allow: options.allowHosts, ownPorts: () => [port, gatewayPort()] });
  const webApp = createWebApp();
  const app = createServer({ guard, log, webApp, redactor });
  installResponseRedaction(app, redactor);
  const closers: Array<() => Promise<void> | void> = [];
  // Whether the person is at the workbench (its page reports over /events): no push while they are.
  const presence = createPresence({ idleMs: options.push?.presenceIdleMs, onChange: (active) => void bus.emit('presence.changed', { active }) });
  const sockets: SocketHandler[] = [eventsSocket(bus, presence)];

  // --- capabilities ---------------------------------------------------------------------------
  const [settings, storedSecrets, notifications] = await Promise.all([
    createSettingsService({ home, bus, log }),
    createSecretStore({ home, bus, log, backend: options.secretsBackend }),
    createNotificationsService({ home, bus, log, backend: pool?.notifications }),
  ]);
  const secrets = redactingSecrets(storedSecrets, redactor);
  redactor.setValues(await secrets.values());
  settingsRoutes(app, settings);
  secretsRoutes(app, secrets);
  const config = await createConfigService({ home, bus, secrets, log });
  closers.push(() => config.close());
  configRoutes(app, config);
  notificationsRoutes(app, notifications);
  closers.push(reportRunFailures({ bus, runs, notify: (input) => notifications.notify(input), log }));
  const history = createHistoryService({ home, bus, shelves: pool ? { workflow: pool.history } : undefined });
  historyRoutes(app, history);
  homeRoutes(app, createHomeService({ home, onRestart: options.onRestart }));

  const mounts = new MountStore(home, (): string => fence.roots()[0].path);
  await mounts.load();
  const fence: Fence = new Fence(home.path(HOME_LAYOUT.workspace), () => mounts.roots(), { protect: [home.root] });
  // The one way the engine reads a model-writable tree for anything a model can see (docs/security.md,
  // "The fenced reader"); what vaults hide from models is asked of the vaults, made below.
  const reader = new FencedReader(fence, { hidden: () => vaults.hidden.areas(), log });
  const watcher = createFileWatcher({ fence, emit, isOwnWrite: (p) => files.isOwnWrite(p), log });
  const files = createFilesService({
    home,
    fence,
    reader,
    mounts,
    emit,
    rg: options.files?.rg,
    revealCommand: options.files?.revealCommand,
    onMountsChanged: async () => {
      await mcp.mountsChanged();
      if (options.files?.watch !== false) await watcher.rearm();
    },
  });
  closers.push(() => watcher.close());
  filesRoutes(app, files);
  // The brain (issue 32): the provenance graph, kept from the bus, never from a scan of run logs.
  const brain = await createBrainService({ dir: home.path('brain'), runs: () => runs.all(), log, redact: (v) => bus.redactor.value(v) });
  bus.subscribe((e) => brain.onEvent(e));
  brainRoutes(app, brain);
  closers.push(() => brain.close());
  // The semantic index behind search_code (issue 32): kept from file events, built once embeddings exist.
  const codeIndex = createCodeIndex({
    dir: home.path('index'),
    roots: () => fence.roots(),
    reader,
    embeddings: () => config.get().embeddings,
    embeddingsKey: () => embeddingsKey(config, secrets),
    emit,
    log,
    onEmbedRequest: options.index?.onEmbedRequest,
    localModelDir: (repo) => models.store.get(repo),
    workerEnv: () => workerEnv(),
  });
  closers.push(() => codeIndex.close());
  bus.subscribe((e) => codeIndex.onEvent(e));
  codeIndexRoutes(app, codeIndex);
  // A vault's agentForbidden paths hold for every model tool, not only the vault tool (vaults are made below).
  const hidden: HiddenPaths = { areas: () => vaults.hidden.areas(), existing: () => vaults.hidden.existing() };
  // A skill's SKILL.md written by a model's file tool is the model's (src/kernel/provenance.ts).
  const afterWrite = (real: string, ctx: ToolContext) => skills.modelWrote(real, () => gate.authorOf(ctx));
  tools.register(...fileTools(files, { embeddingsConfigured, searchCode: (query) => codeIndex.answer(query), reader, afterWrite, grants: (real, written) => skills.grants(real, written) }));
  // Offered only by a tool-prompt budget that defers tools (src/tools/budget.ts); opt-in otherwise.
  tools.register(toolSearchTool);
  toolsRoutes(app, tools);
  // Permissions: every tool call passes this gate; secrets are masked by shape and by stored value.
  // Stored values live in the redactor alone (filled above, kept current as secrets change).
  const masker = new Masker(redactor.text);
  bus.subscribe((e) => void (e.kind === 'secrets.changed' && secrets.values().then((values) => redactor.setValues(values))));
  const permissionRules = new RuleStore(home, masker.mask, pool?.rules);
  const gate = new PermissionGate({ rules: permissionRules, mask: masker.mask });
  tools.setGate(gate);
  tools.setMask(masker.mask);
  permissionsRoutes(app, { rules: permissionRules, gate });
  const permissions = { gate, rules: permissionRules, masker };
  // Phone push (docs/push.md): every endpoint passes the URL floor, at subscribe and at each send.
  const pushFloor = options.push?.floor ?? floor;
  const push = await createPushService({
    home,
    bus,
    secrets,
    subject: () => settings.get().push.subject,
    run: (runId) => runs.record(runId),
    post: async (endpoint, init) => {
      const res = await floorRequest(endpoint, { floor: pushFloor, method: 'POST', ...init, timeoutMs: LIMITS.pushSendTimeoutMs, maxBytes: 4096 });
      return { status: res.status, body: res.body.toString('utf8') };
    },
    checkEndpoint: async (endpoint) => {
      await pushFloor.check(endpoint).catch((err: Error) => {
        throw badRequest(`subscription.endpoint cannot be pushed to: ${err.message}`);
      });
    },
    allowHttp: !!options.push?.floor,
    presence,
    mask: masker.mask,
    log,
    clock: options.clock,
  });
  closers.push(() => push.close());
  // Who made what runs or grants later: a person, or a model under its mode and rules (src/kernel/provenance.ts).
  const provenance = new ProvenanceStore(home);
  await provenance.init();
  bus.subscribe((e) => void (e.runId && /^run\.(completed|failed|stopped|interrupted)$/.test(e.kind) && gate.forgetRun(e.runId)));
  // Providers and chat (the agent loop lives in src/agent; agents plug in via chat.setAgentResolver).
  // Local models (issue 16): hub search, downloads, the worker that runs a loaded model (the `local` provider).
  const models = createModelsService({ home, emit, log, secret: (n) => secrets.get(n) });
  closers.push(() => models.close());
  const providers = createProviderService({ config, redactBody: redactor.json, local: models.worker });
  providerRoutes(app, providers);
  const chat = createChatService({ home, bus, runs, tools, providers, settings, gate, log });
  await chat.init();
  closers.push(() => chat.close());
  // The model SDK (~110 ms of CPU and 10-20 MB to load) is warmed once a client opens its chats with
  // a provider configured (or configures one after that), not at idle: an engine nobody chats with
  // does not hold it (bench/memory), and one being chatted with has it before the first turn.
  let chatOpened = false;
  const warmModels = () => void (chatOpened && providers.names().length && warmSdk().catch(() => undefined));
  config.onChange(warmModels);
  chatRoutes(app, chat, () => {
    if (chatOpened) return;
    chatOpened = true;
    setImmediate(warmModels); // after this answer is written
  });

  runsRoutes(app, runs);
  // MCP servers: their tools join the one registry; they connect after the engine listens.
  const mcp = await createMcpService({
    home,
    bus,
    tools,
    secrets,
    workspace: () => fence.root('workspace').path,
    mounts: () => mounts.list(),
    callbackBase: () => `http://127.0.0.1:${port}`,
    log,
  });
  closers.push(() => mcp.close());
  mcpRoutes(app, mcp);

  aboutRoutes(app, { wantsHtml, sendShell: webApp.sendShell });
  pickFolderRoutes(app);
  statusRoutes(app, {
    runs,
    tools,
    provider: () => ({ provider: providers.defaultName(), providers: providers.names() }),
    mcp: () => mcp.statusSummary(),
    embeddings: embeddingsConfigured,
    index: () => codeIndex.status(),
    sandbox: () => sandbox.statusNow() ?? sandbox.status(),
    pool: pool ? () => pool.status() : undefined,
  });

  // The OS sandbox under run_shell (src/sandbox, docs/security.md); probed once, with the warm-ups below.
  const sandbox = createSandbox({ settings: () => settings.get().sandbox, engineHome: home.root, log, egressFloor: floor, ...options.sandbox });
  closers.push(() => sandbox.close());

  // Shell, diagnostics, terminal and web. The web tools always get the engine's URL floor.
  // Commands run from one snapshot of the login shell's environment, never sourcing rc files per command.
  // The login shell runs in the sandbox (its profile may source what a command wrote), with vaults' hidden paths not there.
  const loginEnv = createLoginEnv({ log, home: options.shellLoginHome, confine: async (profileHome) => sandbox.confineLogin(profileHome, await hidden.existing()) });
  const shell = createShellService({ fence, home: home.root, permission: shellPermission, hardDenied, denylistReady: ensureShellParser, mask: masker.mask, sandbox, hidden, loginEnv });
  tools.register(...shellTools(shell, fence));
  shellRoutes(app, shell);
  sockets.push(termSocket({ cwd: () => fence.root('workspace').path, env: () => shell.env() }));
  tools.register(...webTools(createWebService({ floor })));
  // The browser bridge (issue 29): the paired extension's socket, its pairing routes, the 13 tools.
  const browser = createBrowserService({ home, secrets, emit });
  sockets.push(browserSocket(browser));
  browserRoutes(app, browser);
  // The browser keeps the strict floor: its extension refuses private pages itself (docs/browser.md).
  tools.register(...browserTools({ browser, floor: options.browserUrlFloor ?? urlFloor }));
  // Databases (issue 18): saved connections, drivers, the read-only policy for models.
  const db = onFirstUse(async () => (await import('./capabilities/db/facade.js')).createDb({ home, secrets, workspace: () => fence.root('workspace').path, mask: masker.mask, emit }));
  closers.push(async () => (await db.started())?.close());
  dbRoutes(app, db);
  tools.register(...dbTools(db));
  // agents, skills, memory, meta tools, reports (issue 6)
  const toolNames = { has: (n: string) => !!tools.get(n), names: () => tools.names(), groups: () => [...new Set(tools.all().map((t) => t.group))], members: (g: string) => tools.all().filter((t) => t.group === g).map((t) => t.name) };
  const skills = createSkillsService({ home, workspace: fence.root('workspace').path, reader, userHome: options.skillsUserHome, history: () => history, emit, provenance });
  const runnerDeps = { tools, runs, providers, settings };
  const memory = createMemoryService({
    home,
    agentScopes: async () => (await agents.list()).filter((a) => a.memory).map((a) => a.name),
    modelPass: createModelPass(runnerDeps),
    emit,
  });
  const agents = createAgentsService({
    home,
    tools: toolNames,
    history: () => history,
    emit,
    providerNames: () => providers.names(),
    promptBlocks: async (def, allow) => {
      const blocks: string[] = [];
      if (!allow || allow.includes('load_skill')) blocks.push(await skills.promptBlock(def.skills));
      if (def.memory) blocks.push(await memoryPromptBlock(memory, def.name));
      return blocks.filter(Boolean);
    },
  });
  const reports = createReportsService({ runs, providers: () => config.get().providers });
  const runSubagent = createSubagentRunner(runnerDeps);
  chat.setAgentResolver(agents.resolve);
  chat.setPromptBlocks(async () => [await skills.promptBlock()]);
  tools.register(
    delegateTool({ agents, runSubagent: () => runSubagent }),
    loadSkillTool({
      skills,
      fetch: (url, o) => floorGet(url, { floor: options.skillUrlFloor ?? floor, signal: o.signal, maxBytes: o.maxBytes, headers: { accept: 'text/markdown, text/plain;q=0.9, */*;q=0.5' } }),
      allowedSkills: async (agent) => (agent ? (await agents.find(agent))?.skills : undefined),
      takeOn: (runId, authority) => gate.takeOn(runId, authority),
    }),
    setPlanTool,
    memoryTool(memory),
    engineActivityTool(reports),
  );
  // Git as the engine runs it on a person's behalf (vault commits, board links): never walking up into the home.
  const gitAt = (args: string[], cwd: string) => runGit(args, { cwd, ceilings: [home.root], confine: sandbox.confineGit });
  // vaults (issue 17): mounted through the files capability, kept in step by its file events.
  const vaults = await createVaultsService({
    home,
    reader,
    emit,
    log,
    git: gitAt,
    subscribe: (listener) => bus.subscribe((e) => listener(e)),
    files: {
      mounts: () => files.mounts(),
      addMount: (body) => files.addMount(body),
      writeText: (virtual, content, e) => files.writeText(virtual, content, e),
      deleteEntry: (virtual, o, e) => files.deleteEntry(virtual, o, e),
      rename: (from, to) => files.op({ op: 'rename', path: from, to }),
    },
    runs,
    providers,
    tools,
    resolveAgent: (name) => agents.resolve(name),
    vaultOf: async (agent) => (agent ? (await agents.find(agent))?.vault : undefined),
  });
  closers.push(() => vaults.close());
  tools.register(vaults.tool);
  vaultsRoutes(app, vaults);
  history.registerAdapter('agent', agents.historyAdapter);
  history.registerAdapter('skill', skills.historyAdapter);
  // Git and checkpoints (issue 13): a run's first file-changing tool call snapshots every root first.
  // Editor helpers (issue 31): completion, apply, inline edit; nothing they do writes a file.
  const editor = createEditorService({
    config,
    providers,
    completions: () => settings.get().completions,
    reader,
    modelPass: createModelPass(runnerDeps),
    subscribe: (listener) => void bus.subscribe(listener),
    clock: options.clock,
  });
  editorRoutes(app, editor);
  // Atlas (issue 28): code maps from the code itself, surveyed by a model on top.
  const atlas = createAtlasService({ dir: home.path('atlas'), reader, emit, runs, log, hasModel: () => providers.names().length > 0, history: () => history, watching: () => options.files?.watch !== false });
  bus.subscribe((e) => atlas.onEvent(e));
  history.registerAdapter('atlas', atlas.historyAdapter);
  atlas.setModel(
    createSurveyor({
      archive: (id, ref, text) => atlas.archive(id, ref, text),
      runAgent: async (o) => {
        const client = await providers.resolve();
        const result = await runAgent({
          model: client,
          system: o.system,
          messages: [{ role: 'user', content: o.prompt }],
          tools,
          allowlist: new Set(o.tools),
          ctx: { signal: o.signal, emit: o.emit, runId: o.runId, agent: o.agent, attended: false, depth: 0 },
          maxTurns: settings.get().chatMaxTurns,
          compaction: { fraction: settings.get().compactFraction },
        });
        return { status: result.status, error: result.error };
      },
    }),
    createModelPass(runnerDeps),
  );
  bus.subscribe((e) => void (e.kind === 'file.read' && noteRead(e.runId, e.path)));
  atlasRoutes(app, atlas);
  tools.register(...atlasTools(atlas, reader));
  const git = createGitService({ home, fence, runs, emit, modelPass: createModelPass(runnerDeps), log, confine: sandbox.confineGit });
  await git.init();
  closers.push(() => git.close());
  tools.setBeforeWrite((ctx) => git.checkpoints.beforeWrite(ctx.runId!));
  gitRoutes(app, git);
  // Work boards (issue 17): files under <workspace>/.work/, kept in git with the code they track.
  const work = createWorkService({
    roots: () => fence.roots(),
    reader,
    emit,
    serialize: (key, work) => home.serialize(key, work),
    indexDir: home.path('work-index'),
    links: {
      runsFor: (workItem) => runs.runsForWorkItem(workItem),
      chatDir: () => home.path(HOME_LAYOUT.chat),
      roots: () => fence.roots(),
      git: gitAt,
    },
  });
  closers.push(() => work.store.flush());
  tools.register(...workTools(work));
  workRoutes(app, work);
  // Dashboards (issue 27): definitions, builds as runs, the widget catalog, the page as HTML.
  const dashboards = await createDashboardsService({
    ...runnerDeps,
    home,
    emit,
    log,
    clock: options.clock,
    mask: masker.mask,
    history: () => history,
    resolveAgent: (name) => agents.resolve(name),
    agentNames: () => agents.names(),
    modelPass: createModelPass(runnerDeps),
    provenance,
    designAuthor: () => gate.authorOf({ attended: false }),
    toolAuthor: (ctx) => gate.authorOf(ctx),
  });
  closers.push(() => dashboards.close());
  tools.register(...dashboardTools(dashboards));
  dashboardsRoutes(app, dashboards);
  history.registerAdapter('dashboard', dashboards.historyAdapter);
  history.registerAdapter('widget', dashboards.catalog.historyAdapter);
  chat.setDashboardResolver(dashboards.resolveForChat);
  chat.setAtlasResolver((id) => atlas.chatBlock(id));
  agentsRoutes(app, agents);
  skillsRoutes(app, skills);
  memoryRoutes(app, memory);
  reportsRoutes(app, reports);
  // The completions gateway: its own listener (started after the API listens), only /v1/*.
  const gateway = await createGatewayService({ config, providers, runs, secrets, guard, mask: masker.mask, emit, log, port: options.gatewayPort ?? LIMITS.defaultGatewayPort, local: models.gatewayModels });
  gatewayPort = () => gateway.status().port;
  modelsRoutes(app, models);
  gatewayRoutes(app, gateway, { schema: modelsStatusSchema, status: models.status });
  closers.push(() => gateway.close());

  // Workflows, runs, gates and triggers. Agent and command nodes are checkpointed first (git), and a
  // gate shows what the run changed since its first checkpoint.
  const workflows = createWorkflowsService({
    home,
    bus,
    runs,
    log,
    clock: options.clock,
    history: () => history,
    secret: (name) => secrets.get(name),
    provenance,
    authorOf: (ctx) => gate.authorOf(ctx),
    tools: { names: () => tools.names(), readOnly: (name) => tools.get(name)?.readOnly === true },
    services: {
      ...createNodeServices({
        tools,
        gate,
        resolveAgent: (name) => agents.resolve(name),
        resolveModel: (provider, model) => providers.resolve(provider, model),
        settings: () => settings.get(),
        shell,
        floor,
        secret: (name) => secrets.get(name),
        notify: (input) => notifications.notify(input),
        rules: () => permissionRules.get(),
      }),
      checkpoint: async (runId, nodeId) => {
        await git.checkpoints.snapshot({ runId, nodeId, reason: `before node ${nodeId}` }).catch((err) => log(`checkpoint before node ${nodeId} of ${runId} failed: ${describeError(err)}`));
      },
    },
    changes: async (runId) => (await git.checkpoints.runChanges(runId)).diff,
    watch: options.files?.watch,
    pool: workflowPool,
  });
  await workflows.init();
  closers.push(() => workflows.close());
  history.registerAdapter('workflow', workflows.store.historyAdapter());
  tools.register(...workflowTools(workflows));
  workflowsRoutes(app, workflows);

  // The phone relay (issue 30): an outbound connector to an MQTT broker; a phone's requests come
  // back in through these same routes, presenting the mobile token (docs/relay.md).
  const relay = await createRelayService({
    home,
    emit,
    log,
    inject: (request) => app.inject({ ...request, method: request.method as 'GET' }),
    mobileToken: () => mobileToken,
    subscribeEvents: (listener) => bus.subscribe((_e, json) => listener(json)),
    engineUrl: () => `http://${reachableHost(bind)}:${port}`,
    gates: () => workflows.gates.list().gates,
    permissions: () => gate.pending(),
  });
  closers.push(() => relay.close());
  relayRoutes(app, relay);
  // A phone's push channel through the relay is keyed by the paired device it came from.
  pushRoutes(app, push, (headers) => relay.deviceOf(headers)?.id);

  // --- listen ---------------------------------------------------------------------------------
  await app.ready();
  attachSockets(app.server, guard, sockets);
  await app.listen({ port, host: bind });
  // Listen first: arming the watcher takes ~0.8 s over 50 000 files and must not delay the first
  // 200 (bench/startup). startEngine still resolves once it is armed, so callers see a watching engine.
  const watching = options.files?.watch !== false ? watcher.rearm() : Promise.resolve();
  // Off the start path: these start once the first requests have been answered. The bash grammar
  // (15 ms to compile, 33 MB of wasm memory, ~4-6 MB of it resident) is not among them: it loads on
  // the first shell command checked (bench/memory); the model SDK loads when chat opens (above).
  const warmUp = setTimeout(() => {
    // A year of runs is parsed here, a batch a turn, unless a request reads the runs first (kernel/run-index.ts).
    runs.parseInBackground();
    config.onChange(() => codeIndex.start());
    codeIndex.start();
    // MCP servers are processes of their own (ten node servers take the CPU for half a second on two
    // cores): they start once the first requests have been answered, like the other warm-ups.
    void mcp.start().catch((err) => log(`mcp: start failed: ${describeError(err)}`));
    void sandbox.probe();
    void loginEnv.get();
  }, LIMITS.warmUpDelayMs);
  warmUp.unref();
  const address = app.server.address();
  if (address && typeof address === 'object') port = address.port;
  // The extension folder and its pairing.json name the port now listened on.
  await browser.start(port);
  await gateway.start();
  await watching;
  const hostForUrl = bind === '0.0.0.0' || bind === '::' || bind === '127.0.0.1' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;
  pool?.setUrl(`http://${reachableHost(bind)}:${port}`);

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearTimeout(warmUp);
    // A pool hands its workflow runs to another engine first; what is left stops here.
    await pool?.leave();
    await runs.stopAll(LIMITS.shutdownGraceMs);
    for (const s of sockets) s.close();
    for (const c of closers.reverse()) await c();
    await app.close();
    await runs.close();
    await pool?.close();
    await home.close();
  };

  return { home, bus, runs, tools, providers, chat, fence, git, settings, secrets, config, notifications, history, workflows, dashboards, push, permissions, agents, relay, pool, app, url: `http://${hostForUrl}:${port}`, port, bind, mobileToken, close };
}

/** The host a phone could load the engine's pages from: the bound address, or the first LAN address when bound to every interface. */
function reachableHost(bind: string): string {
  if (bind !== '0.0.0.0' && bind !== '::') return bind.includes(':') ? `[${bind}]` : bind;
  return Object.values(os.networkInterfaces()).flat().find((a) => a && !a.internal && a.family === 'IPv4')?.address ?? '127.0.0.1';
}
