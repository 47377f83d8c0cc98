/**
 * Request assembly: what a turn sends the model besides the conversation. It resolves the turn's
 * agent and provider, builds the system prompt, and keeps the tools the model is shown within the
 * tool-prompt budget (a share of the model's window, `toolBudgetShare`; src/tools/budget.ts): all of
 * them when they fit, else a compact core, tool_search and what it found (docs/local-models.md).
 */
import type { RunAgentOptions } from '../../agent/index.js';
import { notFound } from '../../kernel/errors.js';
import type { ProviderService } from '../../providers/service.js';
import { charEstimate } from '../../providers/tokens.js';
import type { ModelClient } from '../../providers/types.js';
import { ToolBudget, type ToolPlan } from '../../tools/budget.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AppSettings } from '../settings/types.js';
import type { SendInput } from './input.js';
import { DEFAULT_CHAT_SYSTEM } from './prompt.js';
import type { SessionWindow } from './session.js';
import type { ResolveAgent, ResolvedAgent } from './types.js';
import type { DashboardTurn, ResolveDashboard } from '../dashboards/types.js';

export interface RequestDeps {
  tools: ToolRegistry;
  providers: ProviderService;
  settings: { get(): Pick<AppSettings, 'chatMaxTurns' | 'compactFraction' | 'toolBudgetShare'> };
  resolveAgent?: ResolveAgent;
  /** Extra system-prompt blocks of a turn that names no agent (the workspace skills). */
  promptBlocks?: () => Promise<string[]>;
}

/** What a turn runs as: its agent (if named) and the model client it resolved to. */
export interface ResolvedTurn {
  agent?: ResolvedAgent;
  client: ModelClient;
  /** The dashboard the turn reads and publishes into (`dashboard` in POST /api/chat). */
  dashboard?: string;
  /** The atlas the turn is about (`atlas` in POST /api/chat). */
  atlas?: string;
}

/** What a turn about an atlas gets: a block for the system prompt and the tools that read the map. */
export type ResolveAtlas = (id: string) => Promise<{ block: string; tools: string[] }>;

/** The parts of the agent loop's options that come from the request, not from the session. */
export type TurnRequest = Pick<RunAgentOptions, 'model' | 'system' | 'tools' | 'allowlist' | 'maxTurns' | 'settings' | 'compaction'>;

export type RequestBuilder = ReturnType<typeof createRequestBuilder>;

export function createRequestBuilder(deps: RequestDeps) {
  let resolveAgent = deps.resolveAgent;
  let promptBlocks = deps.promptBlocks;
  let resolveDashboard: ResolveDashboard | undefined;
  let resolveAtlas: ResolveAtlas | undefined;
  const openAtlas: ResolveAtlas = (id) => (resolveAtlas ? resolveAtlas(id) : Promise.reject(notFound(`unknown atlas "${id}"; atlases are not available`)));
  const openDashboard: ResolveDashboard = (id) => (resolveDashboard ? resolveDashboard(id) : Promise.reject(notFound(`unknown dashboard "${id}"; dashboards are not available`)));

  async function resolve(input: SendInput): Promise<ResolvedTurn> {
    let agent: ResolvedAgent | undefined;
    if (input.agent) {
      if (!resolveAgent) throw notFound(`unknown agent "${input.agent}"; no agents are defined (PUT /api/agents/<name> creates one)`);
      agent = await resolveAgent(input.agent);
    }
    // An agent's own provider and model win over the session's pick (a model id belongs to its provider).
    const client = await deps.providers.resolve(agent?.provider ?? input.provider, agent?.model ?? (agent?.provider ? undefined : input.model));
    if (input.dashboard) await openDashboard(input.dashboard); // an unknown one is the caller's 404 now
    if (input.atlas) await openAtlas(input.atlas);
    return { agent, client, dashboard: input.dashboard, atlas: input.atlas };
  }

  /** The system prompt, tools (one budget for the turn) and limits of a turn's agent loop, and the window note. */
  async function build({ agent, client, dashboard: dashboardId, atlas: atlasId }: ResolvedTurn, runId: string): Promise<{ request: TurnRequest; window: SessionWindow; detach?: () => void }> {
    const settings = deps.settings.get();
    // A dashboard turn: its block joins the system prompt, its tools the allowlist, and its run is attached (publish goes there).
    const dashboard: DashboardTurn | undefined = dashboardId ? await openDashboard(dashboardId) : undefined;
    const atlas = atlasId ? await openAtlas(atlasId) : undefined;
    const allowlist = agent?.tools ? new Set([...agent.tools, ...(dashboard?.tools ?? []), ...(atlas?.tools ?? [])]) : undefined;
    const budget = Math.floor(settings.toolBudgetShare * client.contextWindow);
    // A dashboard archives what its data tools answer: its wrapper runs the batches, the registry answers the rest.
    const registry = dashboard
      ? { visible: (a?: ReadonlySet<string>) => deps.tools.visible(a), get: (n: string) => deps.tools.get(n), all: () => deps.tools.all(), runBatch: dashboard.attach(runId, deps.tools).runBatch }
      : deps.tools;
    const tools = new ToolBudget({ registry, budget, count: client.countTokens ?? charEstimate, core: agent?.tools });
    const request: TurnRequest = {
      model: client,
      system: [agent?.system ?? (await plainSystem()), dashboard?.block, atlas?.block].filter(Boolean).join('\n\n'),
      tools,
      allowlist,
      maxTurns: agent?.maxTurns ?? settings.chatMaxTurns,
      settings: agent?.settings,
      compaction: { fraction: settings.compactFraction },
    };
    return { request, window: windowNote(client, await tools.plan(allowlist), budget), ...(dashboard ? { detach: () => dashboard.detach(runId) } : {}) };
  }

  /**
   * The window the turn runs in and what its first request carries of the tools: when they do not
   * all fit the budget, a note saying how many wait behind tool_search; a warning only when even the
   * compact core does not fit.
   */
  function windowNote(client: ModelClient, plan: ToolPlan, budget: number): SessionWindow {
    const note: SessionWindow = {
      contextWindow: client.contextWindow,
      contextWindowSource: client.contextWindowSource ?? 'config',
      toolTokens: plan.tokens,
      toolBudget: budget,
      tokenizer: plan.estimated ? 'estimate' : (client.tokenizer ?? 'estimate'),
    };
    if (plan.mode === 'budgeted') {
      note.deferredTools = plan.deferred;
      note.note =
        `the tool definitions take about ${plan.allTokens} tokens, more than the ${budget}-token budget (toolBudgetShare of this model's ${client.contextWindow}-token window); ` +
        `${plan.tools.length - 1} are sent in short form with tool_search, which finds the other ${plan.deferred}`;
    }
    if (plan.tokens > budget) {
      note.warning =
        `even the short tool list takes about ${plan.tokens} tokens, more than the ${budget}-token budget of this model's ${client.contextWindow}-token window; ` +
        'use a model with a larger window, raise the server\'s context size or toolBudgetShare, or run an agent with fewer tools';
    }
    return note;
  }

  /** The system prompt of a turn without an agent: the default prompt plus the blocks an agent's prompt gets too (skills). */
  async function plainSystem(): Promise<string> {
    const blocks = promptBlocks ? (await promptBlocks()).filter(Boolean) : [];
    return [DEFAULT_CHAT_SYSTEM, ...blocks].join('\n\n');
  }

  return {
    resolve,
    build,
    setAgentResolver: (fn: ResolveAgent) => {
      resolveAgent = fn;
    },
    setPromptBlocks: (fn: () => Promise<string[]>) => {
      promptBlocks = fn;
    },
    setDashboardResolver: (fn: ResolveDashboard) => {
      resolveDashboard = fn;
    },
    setAtlasResolver: (fn: ResolveAtlas) => {
      resolveAtlas = fn;
    },
  };
}
