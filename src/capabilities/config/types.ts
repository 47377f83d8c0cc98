/** Shapes of engine.config.json and the config service other capabilities consume (types only). */

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
