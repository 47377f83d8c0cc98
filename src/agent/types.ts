/** The contract of the one model<->tool loop (src/agent/loop.ts). */
import type { ModelMessage } from 'ai';
import type { Emit } from '../kernel/bus.js';
import type { Authority } from '../kernel/provenance.js';
import type { Usage } from '../kernel/runs.js';
import type { ModelClient } from '../providers/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AnyTool, Gate } from '../tools/types.js';

export type { ModelMessage };

/** Generation settings an agent definition may carry; they pass through to the provider. */
export interface GenerationSettings {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Reasoning effort (low | medium | high ...), mapped to each provider's own option. */
  effort?: string;
  /** Merged into the provider request body as is. */
  extraBody?: Record<string, unknown>;
}

/** Who the loop runs for: the same fields a tool call's context carries. */
export interface AgentContext {
  signal: AbortSignal;
  /** Run-scoped emit (a run's `run.emit`) so usage, retries and tool events land in the run log. */
  emit: Emit;
  runId?: string;
  agent?: string;
  /** Is a human watching? Decides whether the gate prompts. */
  attended: boolean;
  /** Delegation depth: 0 for a top-level turn. */
  depth?: number;
  sessionId?: string;
  /** Model-authored things the loop runs under (ToolContext.authors). */
  authors?: Authority[];
}

export interface CompactionOptions {
  /** Fraction (0-1) of the window at which older turns are summarised. */
  fraction: number;
  /** The window in tokens (default: the model client's contextWindow). */
  window?: number;
  /** Most recent turns kept whole (default LIMITS.compactKeepTurns). */
  keepTurns?: number;
}

export interface CompactionInfo {
  /** The summary that replaced the older messages. */
  summary: string;
  /** How many messages of the conversation were summarised (they were the first ones). */
  replaced: number;
  /** Estimated context tokens before and after. */
  tokensBefore: number;
  tokensAfter: number;
}

/** Where the loop gets each step's tools and runs their calls: the registry, or a per-turn budget over it (tools/budget.ts). */
export interface ToolSource {
  visible(allowlist?: ReadonlySet<string>): AnyTool[] | Promise<AnyTool[]>;
  runBatch: ToolRegistry['runBatch'];
  /** Tokens the tool definitions of the last `visible` take in the request (counted by a budget; absent: not counted). */
  lastTokens?(): number;
}

export interface RunAgentOptions {
  model: ModelClient;
  system?: string;
  /** The conversation so far, ending with the new user message. Not mutated. */
  messages: ModelMessage[];
  tools: ToolSource;
  /** Exact tool names the model is shown and may call; undefined means every available tool. */
  allowlist?: ReadonlySet<string>;
  /** The permission gate for this loop's calls (a chat session's mode-aware gate, a parent's gate). */
  gate?: Gate;
  ctx: AgentContext;
  /** Most model steps before the loop stops (status `max_turns`). */
  maxTurns: number;
  settings?: GenerationSettings;
  compaction?: CompactionOptions;
  /** Streamed reply text. */
  onDelta?(text: string): void;
  /** Streamed reasoning text. */
  onReasoning?(text: string): void;
  /** Every message the loop appends to the conversation (assistant steps, tool results), in order. */
  onMessage?(message: ModelMessage): void;
  /** The conversation was compacted; `messages` is the conversation from now on. */
  onCompacted?(info: CompactionInfo, messages: ModelMessage[]): void;
  /** Estimated context size after each step. */
  onContext?(tokens: number, window: number): void;
}

export type AgentStatus = 'completed' | 'stopped' | 'max_turns' | 'failed';

export interface AgentResult {
  status: AgentStatus;
  /** The final assistant text (of the last step), partial when stopped. */
  text: string;
  /** The whole conversation after the loop (compaction applied), for the next turn. */
  messages: ModelMessage[];
  /** Messages this loop appended, in order (also delivered through onMessage). */
  added: ModelMessage[];
  usage: Usage;
  /** Model steps taken. */
  turns: number;
  /** The sentence that failed the loop (status `failed`). */
  error?: string;
}
