/** Shapes of engine.config.json and the config service other capabilities consume (types only). */

import type { ProviderConfig, ProviderType } from '../../providers/types.js';

// The provider entries are declared below the capabilities, where the providers layer reads them.
export { PROVIDER_TYPES } from '../../providers/types.js';
export type { ModelPrice, ProviderConfig, ProviderType } from '../../providers/types.js';

export interface EmbeddingsConfig {
  /** An OpenAI-compatible endpoint (`<baseUrl>/embeddings`); absent for a local model. */
  baseUrl?: string;
  /** The endpoint's model, or with `local` the downloaded model's repo id. */
  model: string;
  name?: string;
  /** Embed with a downloaded feature-extraction model in a worker process: no endpoint, no key. */
  local?: boolean;
}

export interface EngineConfig {
  providers: ProviderConfig[];
  defaultProvider: string | null;
  /** The semantic index endpoint behind search_code; unset means "not configured". */
  embeddings?: EmbeddingsConfig | null;
  /** The completions gateway's section: `{bind: "local" | "network"}` (docs/gateway.md). */
  api?: Record<string, unknown>;
}

/** The secret holding the embeddings endpoint's key (`embeddings.newKey` in PUT /api/config). */
export const EMBEDDINGS_SECRET = 'embeddings.key';

/** The secret-store name that holds a provider's key. */
export const providerSecretName = (providerName: string) => `provider.${providerName}.key`;

export interface ConfigService {
  /** The current config, frozen: it is replaced on every change, never mutated. */
  get(): Readonly<EngineConfig>;
  /** Called after every change, from PUT /api/config or from an edit of the file on disk. */
  onChange(listener: (config: Readonly<EngineConfig>) => void): () => void;
  /** The provider's key from the secret store, if one is stored. */
  providerKey(providerName: string): Promise<string | undefined>;
  /**
   * The provider's key, for a request to `baseUrl`: throws (400, a sentence) when the key was stored
   * for another URL, so a stored key only ever goes where it was stored for.
   */
  providerKeyFor(providerName: string, type: ProviderType, baseUrl: string | undefined): Promise<string | undefined>;
}
