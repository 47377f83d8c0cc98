/**
 * Request assembly: what a turn sends the model besides the conversation. It resolves the turn's
 * agent and provider, builds the system prompt, picks the tools the model is shown and measures
 * them against the model's window.
 */
import type { RunAgentOptions } from '../../agent/index.js';
import { notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { ProviderService } from '../../providers/service.js';
import type { ModelClient } from '../../providers/types.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AppSettings } from '../settings/types.js';
import type { SendInput } from './input.js';
import { DEFAULT_CHAT_SYSTEM } from './prompt.js';
import type { SessionWindow } from './session.js';
import type { ResolveAgent, ResolvedAgent } from './types.js';

export interface RequestDeps {
  tools: ToolRegistry;
  providers: ProviderService;
  settings: { get(): Pick<AppSettings, 'chatMaxTurns' | 'compactFraction'> };
  resolveAgent?: ResolveAgent;
  /** Extra system-prompt blocks of a turn that names no agent (the workspace skills). */
  promptBlocks?: () => Promise<string[]>;
}

/** What a turn runs as: its agent (if named) and the model client it resolved to. */
export interface ResolvedTurn {
  agent?: ResolvedAgent;
  client: ModelClient;
}

/** The parts of the agent loop's options that come from the request, not from the session. */
export type TurnRequest = Pick<RunAgentOptions, 'model' | 'system' | 'tools' | 'allowlist' | 'maxTurns' | 'settings' | 'compaction'>;

export type RequestBuilder = ReturnType<typeof createRequestBuilder>;

export function createRequestBuilder(deps: RequestDeps) {
  let resolveAgent = deps.resolveAgent;
  let promptBlocks = deps.promptBlocks;

  async function resolve(input: SendInput): Promise<ResolvedTurn> {
    let agent: ResolvedAgent | undefined;
    if (input.agent) {
      if (!resolveAgent) throw notFound(`unknown agent "${input.agent}"; no agents are defined (PUT /api/agents/<name> creates one)`);
      agent = await resolveAgent(input.agent);
    }
    const client = await deps.providers.resolve(agent?.provider ?? input.provider, agent?.model);
    return { agent, client };
  }

  /** The system prompt, tools and limits of a turn's agent loop. */
  async function build({ agent, client }: ResolvedTurn): Promise<TurnRequest> {
    const settings = deps.settings.get();
    return {
      model: client,
      system: agent?.system ?? (await plainSystem()),
      tools: deps.tools,
      allowlist: agent?.tools ? new Set(agent.tools) : undefined,
      maxTurns: agent?.maxTurns ?? settings.chatMaxTurns,
      settings: agent?.settings,
      compaction: { fraction: settings.compactFraction },
    };
  }

  /**
   * The window the turn runs in and, when the tool definitions alone fill more than a quarter of
   * it, a warning (a small local model offered every tool has little room left for the work).
   */
  function windowNote({ agent, client }: ResolvedTurn): SessionWindow {
    const tools = deps.tools.visible(agent?.tools ? new Set(agent.tools) : undefined);
    const toolTokens = Math.ceil(tools.reduce((n, t) => n + JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }).length, 0) / 4);
    const note: SessionWindow = { contextWindow: client.contextWindow, contextWindowSource: client.contextWindowSource ?? 'config', toolTokens };
    if (toolTokens > LIMITS.toolDefinitionsWarnFraction * client.contextWindow) {
      const where = note.contextWindowSource === 'server' ? 'as the server reports it' : note.contextWindowSource === 'default' ? 'the default; set contextWindow on the provider if it is smaller' : 'from the provider entry';
      note.warning =
        `the ${tools.length} tool definitions alone take about ${toolTokens} tokens, more than a quarter of this model's ${client.contextWindow}-token context window (${where}); ` +
        'use a model with a larger window, raise the server\'s context size, or run an agent with fewer tools';
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
    windowNote,
    setAgentResolver: (fn: ResolveAgent) => {
      resolveAgent = fn;
    },
    setPromptBlocks: (fn: () => Promise<string[]>) => {
      promptBlocks = fn;
    },
  };
}
