/**
 * The provider map -> model clients. Clients are built lazily per provider and dropped when the
 * config changes (hot swap): a caller keeps the client it resolved, so a turn in flight finishes on
 * the client it started with while the next turn gets the new one.
 */
import { badRequest, describeError, isEngineError } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import { buildClient, providerName, specOf } from './clients.js';
import { learnContextWindow } from './context-window.js';
import { providerErrorSentence } from './retry.js';
import { loadAi } from './sdk.js';
import { PROVIDER_TYPES, type ModelClient, type ProviderConfig, type ProviderConfigSource, type ProviderType } from './types.js';
import type { LocalRuntime } from './local.js';

export interface TestProviderInput {
  type: ProviderType;
  baseUrl?: string;
  model: string;
  newKey?: string;
  name?: string;
}

export type TestProviderAnswer = { ok: true; model: string; reply?: string; latencyMs: number } | { ok: false; error: string };

export interface ProviderService {
  /** The client for a provider name, or the default provider when none is named. */
  resolve(name?: string | null, modelOverride?: string): Promise<ModelClient>;
  /** The default provider's name, or null when none is configured. */
  defaultName(): string | null;
  /** Every configured provider's name (its `name`, or its type). */
  names(): string[];
  /** A real minimal completion against a provider that may not be saved yet. */
  test(input: unknown): Promise<TestProviderAnswer>;
}

export function createProviderService(deps: { config: ProviderConfigSource; redactBody?: (json: string) => string; local?: LocalRuntime }): ProviderService {
  // name -> built client for the current config; cleared on every config change.
  let cache = new Map<string, Promise<ModelClient>>();
  deps.config.onChange(() => {
    cache = new Map();
  });

  const entries = (config = deps.config.get()): ProviderConfig[] => config.providers ?? [];

  const defaultName = (): string | null => {
    const config = deps.config.get();
    const list = entries(config);
    if (config.defaultProvider && list.some((p) => providerName(p) === config.defaultProvider)) return config.defaultProvider;
    return list.length ? providerName(list[0]) : null;
  };

  const resolve = async (name?: string | null, modelOverride?: string): Promise<ModelClient> => {
    const wanted = name || defaultName();
    if (!wanted) throw badRequest('no model provider is configured; add one with PUT /api/config {providers: [{type, baseUrl, model}], defaultProvider}');
    const entry = entries().find((p) => providerName(p) === wanted);
    if (!entry) throw badRequest(`unknown provider "${wanted}"; configured providers: ${entries().map(providerName).join(', ') || '(none)'}`);
    const key = modelOverride ? `${wanted}\u0000${modelOverride}` : wanted;
    let client = cache.get(key);
    if (!client) {
      const current = cache;
      client = (async () => {
        const spec = { ...specOf(entry), ...(modelOverride ? { model: modelOverride } : {}) };
        try {
          // A local model takes no key: none is looked up, none can leak to it.
          const built = await buildClient(spec, spec.type === 'local' ? undefined : await deps.config.providerKeyFor(spec.name, spec.type, spec.baseUrl), deps.redactBody, deps.local);
          if (entry.contextWindow) return { ...built, contextWindowSource: 'config' as const };
          // A local server knows the window it runs with; ask once per client (the cache keeps it).
          const learned = entry.type === 'openai-compatible' && spec.baseUrl ? await learnContextWindow(spec.baseUrl, spec.model).catch(() => undefined) : undefined;
          return learned ? { ...built, contextWindow: learned.tokens, contextWindowSource: 'server' as const } : { ...built, contextWindowSource: 'default' as const };
        } catch (err) {
          current.delete(key);
          throw badRequest(describeError(err));
        }
      })();
      current.set(key, client);
    }
    return client;
  };

  const test = async (input: unknown): Promise<TestProviderAnswer> => {
    const problem = checkTestInput(input);
    if (problem) return { ok: false, error: problem };
    const { type, baseUrl, model, newKey, name } = input as TestProviderInput;
    const label = name || type;
    const started = performance.now();
    try {
      // A stored key only goes to the URL it was stored with; another baseUrl needs its own newKey.
      let key = newKey;
      if (!key) {
        try {
          key = await deps.config.providerKeyFor(label, type, baseUrl);
        } catch (err) {
          if (isEngineError(err)) return { ok: false, error: err.message };
          throw err;
        }
      }
      const client = await buildClient({ type, name: label, baseUrl, model }, key, deps.redactBody, deps.local);
      const { generateText } = await loadAi();
      const result = await generateText({
        model: client.model,
        prompt: 'Reply with the single word: ok',
        maxOutputTokens: LIMITS.testProviderMaxTokens,
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(LIMITS.testProviderTimeoutMs),
      });
      return { ok: true, model: result.response?.modelId || model, reply: result.text, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      if ((err as Error)?.name === 'TimeoutError') return { ok: false, error: `provider "${label}" did not answer within ${LIMITS.testProviderTimeoutMs / 1000} s` };
      return { ok: false, error: providerErrorSentence(label, err) };
    }
  };

  return { resolve, defaultName, names: () => entries().map(providerName), test };
}

function checkTestInput(input: unknown): string | undefined {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return 'send {type, baseUrl, model, newKey?, name?}';
  const i = input as Record<string, unknown>;
  if (!PROVIDER_TYPES.includes(i.type as ProviderType)) return `type must be one of ${PROVIDER_TYPES.join(', ')}`;
  if (typeof i.model !== 'string' || !i.model.trim()) return 'model must be a non-empty string (the model id the provider serves)';
  if (i.baseUrl !== undefined && i.baseUrl !== null && typeof i.baseUrl !== 'string') return 'baseUrl must be a string such as http://127.0.0.1:11434/v1';
  if (i.type === 'openai-compatible' && !i.baseUrl) return 'an openai-compatible provider needs a baseUrl such as http://127.0.0.1:11434/v1';
  if (typeof i.baseUrl === 'string' && i.baseUrl && !/^https?:\/\//.test(i.baseUrl)) return 'baseUrl must start with http:// or https://';
  if (i.newKey !== undefined && typeof i.newKey !== 'string') return 'newKey must be a string';
  if (i.name !== undefined && typeof i.name !== 'string') return 'name must be a string';
  return undefined;
}
