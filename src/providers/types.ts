/**
 * What the providers layer works with, declared here below the capabilities: the provider entries
 * of engine.config.json (the config capability re-exports them), what it needs of the config
 * service, the ready client it hands out, and the local model worker's request and result.
 */
import type { LanguageModel } from 'ai';

export type ProviderType = 'openai-compatible' | 'openai' | 'anthropic' | 'local';
/** `local`: a downloaded model (model = the repo, org/name) run by the engine's model worker, no key (docs/local-models.md). */
export const PROVIDER_TYPES: readonly ProviderType[] = ['openai-compatible', 'openai', 'anthropic', 'local'];

export interface ModelPrice {
  /** USD per million tokens. */
  input: number;
  output: number;
  cachedInput?: number;
}

export interface ProviderConfig {
  type: ProviderType;
  /** The API root as the vendor's own SDK takes it, e.g. http://127.0.0.1:11434/v1 */
  baseUrl?: string;
  model: string;
  /** What defaultProvider and POST /api/chat `provider` refer to; defaults to the type. */
  name: string;
  /** The model's context window in tokens, for compaction (default documented in the README). */
  contextWindow?: number;
  /** Overrides of the built-in price table, by model id. */
  prices?: Record<string, ModelPrice>;
}

/** What the provider service reads of the config (the config capability's ConfigService is one). */
export interface ProviderConfigSource {
  get(): Readonly<{ providers: ProviderConfig[]; defaultProvider: string | null }>;
  onChange(listener: () => void): () => void;
  /** The provider's key for a request to `baseUrl` (throws a 400 sentence when it was stored for another URL). */
  providerKeyFor(providerName: string, type: ProviderType, baseUrl: string | undefined): Promise<string | undefined>;
}

export interface ModelClient {
  /** The provider's name in the config (what defaultProvider and POST /api/chat `provider` name). */
  provider: string;
  type: ProviderType;
  /** The model id sent to the provider. */
  modelId: string;
  /** The AI SDK model; a turn keeps the one it started with even when the config changes. */
  model: LanguageModel;
  /** The model's context window in tokens, for compaction. */
  contextWindow: number;
  /** Where the window comes from: the provider entry, the server (learned), or the default. */
  contextWindowSource?: 'config' | 'server' | 'default';
  /** Token counts of texts for this model (providers/tokens.ts); absent: a 4-characters-a-token estimate. */
  countTokens?: (texts: string[]) => Promise<number[]>;
  /** What countTokens counts with: the local model's own tokenizer, or the cl100k BPE estimate. */
  tokenizer?: 'model' | 'cl100k';
}

/** A chat-template message as the local model worker takes it. */
export interface ChatMessageIn { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; tool_calls?: unknown[]; name?: string }
export interface GenerateRequest { messages: ChatMessageIn[]; tools?: unknown[]; maxTokens?: number; temperature?: number; topP?: number }
export interface GenerateResult { text: string; inputTokens: number; outputTokens: number; finish: 'stop' | 'length' | 'aborted' }
