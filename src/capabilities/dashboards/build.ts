/**
 * A build: a normal ledger run (source `dashboard`) driving the one agent loop as the definition's
 * agent or the default dashboard agent, its tools narrowed to the definition's (read-only data tools
 * by default) plus the two dashboard tools, every result archived. Published widgets collect in the
 * build; the page is replaced only when the build ends well, so a failed build keeps the previous
 * document and records why.
 */
import { runAgent } from '../../agent/index.js';
import type { Authority } from '../../kernel/provenance.js';
import { describeError } from '../../kernel/errors.js';
import type { LiveRun, RunLedger } from '../../kernel/runs.js';
import type { ProviderService } from '../../providers/service.js';
import type { ModelClient } from '../../providers/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ResolvedAgent } from '../chat/types.js';
import { readSourceIndex, SourceArchive } from './archive.js';
import { buildTask, DEFAULT_DASHBOARD_SYSTEM } from './prompts.js';
import type { BuildOutcome, DashboardDefinition, DashboardDocument, Widget, WidgetType } from './types.js';

/** Read-only data tools a build may call when its definition names none. */
export const DEFAULT_BUILD_TOOLS = ['read_file', 'grep', 'glob', 'db_query', 'db_schema', 'web_fetch', 'vault', 'engine_activity'];
export const DASHBOARD_TOOLS: ReadonlySet<string> = new Set(['publish_dashboard', 'dashboard_source']);

/** A build in flight: what it has published so far. */
export interface Build {
  dashboard: string;
  run: LiveRun;
  archive: SourceArchive;
  widgets: Widget[];
  title?: string;
  subtitle?: string;
  published: boolean;
}

export interface BuildDeps {
  runs: RunLedger;
  tools: ToolRegistry;
  providers: ProviderService;
  settings: { get(): { chatMaxTurns: number; compactFraction: number } };
  resolveAgent?: (name: string) => Promise<ResolvedAgent>;
  /** The secret mask for what lands in the home's files (archives, the page). */
  mask: (text: string) => string;
}

/** A build whose run has started: the agent it runs as and the model client it talks to. */
export interface StartedBuild {
  build: Build;
  agent?: ResolvedAgent;
  client: ModelClient;
  /** A refresh of a definition a model wrote runs gated as that model (src/kernel/provenance.ts). */
  authors?: Authority[];
}

/** Starts the run (throws the provider's or agent's sentence before anything starts). */
export async function startBuildRun(deps: BuildDeps, id: string, def: DashboardDefinition, sourcesDir: string): Promise<StartedBuild> {
  const agent = def.agent && deps.resolveAgent ? await deps.resolveAgent(def.agent) : undefined;
  const client = await deps.providers.resolve(agent?.provider, agent?.model);
  const run = deps.runs.start({ source: 'dashboard', agent: agent?.name, model: client.modelId, provider: client.provider, title: `dashboard ${id}: ${def.name}` });
  const build: Build = { dashboard: id, run, archive: new SourceArchive(`${sourcesDir}/${run.id}`, run.id, deps.mask), widgets: [], published: false };
  return { build, agent, client };
}

/** The names the build's agent may call: the definition's tools (or the defaults) within its agent's allowlist. */
export function buildAllowlist(def: DashboardDefinition, agent: ResolvedAgent | undefined, registered: (name: string) => boolean): Set<string> {
  const wanted = (def.tools ?? DEFAULT_BUILD_TOOLS).filter((t) => registered(t) && (!agent?.tools || agent.tools.includes(t)));
  return new Set([...wanted, ...DASHBOARD_TOOLS]);
}

/** Runs the build to its end and answers the outcome and, when it ended well, the new page. */
export async function executeBuild(
  deps: BuildDeps,
  started: StartedBuild,
  ctx: { def: DashboardDefinition; types: WidgetType[]; previous?: DashboardDocument; sourcesDir: string },
): Promise<{ outcome: BuildOutcome; document?: DashboardDocument }> {
  const { build, agent, client } = started;
  const { run } = build;
  const { def } = ctx;
  const at = () => new Date().toISOString();
  let status: BuildOutcome['status'] = 'failed';
  let error: string | undefined;
  try {
    build.widgets = ctx.previous?.widgets ?? [];
    const last = ctx.previous ? await readSourceIndex(ctx.sourcesDir, ctx.previous.runId) : [];
    const settings = deps.settings.get();
    const result = await runAgent({
      model: client,
      system: agent?.system ?? DEFAULT_DASHBOARD_SYSTEM,
      messages: [{ role: 'user', content: buildTask(def, ctx.types, last, ctx.previous) }],
      tools: build.archive.wrap(deps.tools, DASHBOARD_TOOLS),
      allowlist: buildAllowlist(def, agent, (n) => !!deps.tools.get(n)),
      ctx: { signal: run.signal, emit: run.emit, runId: run.id, agent: agent?.name, attended: false, depth: 0, ...(started.authors?.length ? { authors: started.authors } : {}) },
      maxTurns: agent?.maxTurns ?? settings.chatMaxTurns,
      settings: agent?.settings,
      compaction: { fraction: settings.compactFraction },
    });
    if (result.status === 'stopped') status = 'stopped';
    else if (result.status === 'failed') error = `the build's model failed: ${result.error ?? 'no reason given'}; the previous page is kept`;
    else if (!build.published) error = `the build ended without publishing a widget${result.text ? ` (the model answered: "${result.text.slice(0, 200)}")` : ''}; the previous page is kept`;
    else status = 'completed';
  } catch (err) {
    if (run.signal.aborted) status = 'stopped';
    else error = `the build failed: ${describeError(err)}; the previous page is kept`;
  }
  await build.archive.flushed();
  const outcome: BuildOutcome = { runId: run.id, status, at: at(), ...(error ? { error } : {}) };
  if (status !== 'completed') return { outcome };
  const document: DashboardDocument = { title: build.title ?? def.name, ...(build.subtitle ? { subtitle: build.subtitle } : {}), builtAt: at(), runId: run.id, widgets: build.widgets };
  return { outcome, document };
}
