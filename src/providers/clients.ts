/** Builds a real AI SDK client for one provider entry of the config. */
import { LIMITS } from '../kernel/limits.js';
import { extraBodyFetch } from './extra-body.js';
import { loadVendors } from './sdk.js';
import { bpeCounter, cachedCounter } from './tokens.js';
import type { ModelClient, ProviderConfig, ProviderType } from './types.js';
import { localLanguageModel, type LocalRuntime } from './local.js';

// The SDK's console warnings (unknown model ids, compatibility modes) are noise in a daemon's log.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** Placeholder key for servers that take none (local models); never a real secret. */
const NO_KEY = 'no-key';

export interface ClientSpec {
  type: ProviderType;
  name: string;
  baseUrl?: string;
  model: string;
  contextWindow?: number;
}

/**
 * `baseUrl` is the API root as the vendors' own SDKs take it: OpenAI-style roots end in /v1
 * (http://127.0.0.1:11434/v1); the Anthropic SDK takes the host (https://api.anthropic.com) and
 * adds /v1 itself. Both spellings are accepted for Anthropic.
 */
export function anthropicBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/**
 * `redactBody` is the engine's exit mask (src/kernel/redact.ts) for what a model request carries:
 * messages, tool results and prompts are JSON in the request body and pass it before they leave.
 */
export async function buildClient(spec: ClientSpec, key: string | undefined, redactBody?: (json: string) => string, local?: LocalRuntime): Promise<ModelClient> {
  if (spec.type === 'local') {
    if (!local) throw new Error(`provider "${spec.name}" (local) needs the engine's local models, which this engine does not run`);
    const countTokens = local.countTokens ? cachedCounter((texts) => local.countTokens!(spec.model, texts)) : bpeCounter;
    return { provider: spec.name, type: spec.type, modelId: spec.model, model: localLanguageModel(local, spec.model), contextWindow: spec.contextWindow ?? LIMITS.defaultContextWindow, countTokens, tokenizer: local.countTokens ? 'model' : 'cl100k' };
  }
  const { createAnthropic, createOpenAI, createOpenAICompatible } = await loadVendors();
  const fetch: typeof globalThis.fetch = redactBody
    ? (input, init) => extraBodyFetch(input, init && typeof init.body === 'string' ? { ...init, body: redactBody(init.body) } : init)
    : extraBodyFetch;
  const baseURL = spec.baseUrl?.replace(/\/+$/, '') || undefined;
  let model: ModelClient['model'];
  switch (spec.type) {
    case 'openai-compatible': {
      if (!baseURL) throw new Error(`provider "${spec.name}" (openai-compatible) needs a baseUrl, e.g. http://127.0.0.1:11434/v1`);
      model = createOpenAICompatible({ name: spec.name, baseURL, apiKey: key, includeUsage: true, fetch })(spec.model);
      break;
    }
    case 'openai':
      // The chat-completions API: what every OpenAI-compatible server speaks too.
      model = createOpenAI({ baseURL, apiKey: key ?? NO_KEY, fetch }).chat(spec.model);
      break;
    case 'anthropic':
      model = createAnthropic({ baseURL: baseURL ? anthropicBaseUrl(baseURL) : undefined, apiKey: key ?? NO_KEY, fetch })(spec.model);
      break;
    default:
      throw new Error(`unknown provider type "${String(spec.type)}"; use openai-compatible, openai, anthropic or local`);
  }
  return { provider: spec.name, type: spec.type, modelId: spec.model, model, contextWindow: spec.contextWindow ?? LIMITS.defaultContextWindow, countTokens: bpeCounter, tokenizer: 'cl100k' };
}

/** A provider's name in the config: its `name`, or its type when it has none. */
export const providerName = (p: ProviderConfig): string => p.name || p.type;

export const specOf = (p: ProviderConfig): ClientSpec => ({ type: p.type, name: providerName(p), baseUrl: p.baseUrl, model: p.model, contextWindow: p.contextWindow });
