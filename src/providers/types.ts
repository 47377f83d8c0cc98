/** What the agent loop and its callers hold of a provider: a ready client and what it is. */
import type { LanguageModel } from 'ai';
import type { ProviderType } from '../capabilities/config/types.js';

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
}
