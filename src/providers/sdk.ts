/**
 * The Vercel AI SDK and its vendor packages are megabytes of JavaScript that only a model call
 * needs. They load on first use (and are warmed in the background once the engine listens), so an
 * engine start answers its first request without paying for them.
 */
import { lazyRequire } from '../kernel/lazy-require.js';

type Ai = typeof import('ai');
type Vendors = {
  createOpenAICompatible: typeof import('@ai-sdk/openai-compatible').createOpenAICompatible;
  createOpenAI: typeof import('@ai-sdk/openai').createOpenAI;
  createAnthropic: typeof import('@ai-sdk/anthropic').createAnthropic;
};

const requireAi = lazyRequire<Ai>('ai');
const requireCompatible = lazyRequire<typeof import('@ai-sdk/openai-compatible')>('@ai-sdk/openai-compatible');
const requireOpenAI = lazyRequire<typeof import('@ai-sdk/openai')>('@ai-sdk/openai');
const requireAnthropic = lazyRequire<typeof import('@ai-sdk/anthropic')>('@ai-sdk/anthropic');

/** Set by the first load, for isApiCallError (which must not load the SDK itself). */
let loadedAi: Ai | undefined;

// Promises (the packages load synchronously, each once, through lazyRequire): a package that fails
// to load is a rejection, which every caller and warmSdk already handle.
export function loadAi(): Promise<Ai> {
  return Promise.resolve().then(() => (loadedAi = requireAi()));
}

export function loadVendors(): Promise<Vendors> {
  return Promise.resolve().then(() => ({
    createOpenAICompatible: requireCompatible().createOpenAICompatible,
    createOpenAI: requireOpenAI().createOpenAI,
    createAnthropic: requireAnthropic().createAnthropic,
  }));
}

/** Loads everything a model call needs; the engine calls it after it starts listening. */
export function warmSdk(): Promise<unknown> {
  return Promise.all([loadAi(), loadVendors()]);
}

/**
 * Is this the SDK's API call error? Such an error can only come from an SDK call, so the SDK is
 * loaded by the time one is asked about; before that nothing is one.
 */
export function isApiCallError(err: unknown): err is InstanceType<Ai['APICallError']> {
  return !!loadedAi && loadedAi.APICallError.isInstance(err);
}
