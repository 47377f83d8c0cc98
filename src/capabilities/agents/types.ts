/** Agent definitions (seed 000 §2, §4.8) and what other capabilities may know of them. Types only. */

export const EFFORT_VALUES = ['minimal', 'low', 'medium', 'high'] as const;
export type Effort = (typeof EFFORT_VALUES)[number];

/** The fields of a definition that tune each model request (the loop's generation settings). */
export const GENERATION_FIELDS = ['temperature', 'topP', 'maxTokens', 'seed', 'effort', 'extraBody'] as const;

/** The stored definition: `agents/<name>.md` frontmatter plus the body as `system`. */
export interface AgentDefinition {
  /** The file name without `.md`; the agent's identity. */
  name: string;
  description: string;
  /** The system prompt (the markdown body). */
  system: string;
  /** A model id (used with the default provider) or the name of a configured provider. */
  model?: string;
  /** Exact tool names; undefined means every registered tool. */
  tools?: string[];
  maxTurns?: number;
  memory?: boolean;
  /** A vault mount name; adds the `vault` tool. */
  vault?: string;
  group?: string | null;
  /** Skills this agent may load by name; undefined means all. */
  skills?: string[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  effort?: Effort;
  extraBody?: Record<string, unknown>;
  /** Things the engine adjusted or ignored when reading a hand-written file (never written back). */
  warnings?: string[];
}

/** One row of GET /api/agents: the seed's fields, no more (details and warnings are on GET /api/agents/<name>). */
export interface AgentSummary {
  name: string;
  description: string;
  memory: boolean;
  vault: string | null;
  group: string | null;
  model: string | null;
  tools: string[] | null;
}

/** What a chat turn, a delegate call or a workflow node runs an agent with. */
export interface ResolvedAgent {
  name: string;
  description: string;
  /** The full system prompt: the body, then the skills block and the memory block when they apply. */
  system: string;
  /** Exact names the model is offered and may call; undefined means every registered tool. */
  tools?: string[];
  /** The model id to use, when the definition names one. */
  model?: string;
  /** The provider name to use, when `model` names a configured provider. */
  provider?: string;
  maxTurns?: number;
  memory: boolean;
  vault?: string;
  skills?: string[];
  settings: GenerationSettings;
}

export type GenerationSettings = Pick<AgentDefinition, (typeof GENERATION_FIELDS)[number]>;

export interface AgentOrder {
  groups: string[];
  agents: string[];
}

/** The history store as this capability uses it (structurally the history service). */
export interface HistoryRecorder {
  record(kind: string, name: string, content: string, note?: string): Promise<unknown> | unknown;
}
