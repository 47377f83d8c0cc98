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

let ai: Promise<Ai> | undefined;
let loadedAi: Ai | undefined;
let vendors: Promise<Vendors> | undefined;

export function loadAi(): Promise<Ai> {
  return (ai ??= Promise.resolve().then(() => (loadedAi = requireAi())));
}

export function loadVendors(): Promise<Vendors> {
  return (vendors ??= Promise.resolve().then(() => [requireCompatible(), requireOpenAI(), requireAnthropic()] as const).then(
    ([compatible, openai, anthropic]) => ({
      createOpenAICompatible: compatible.createOpenAICompatible,
      createOpenAI: openai.createOpenAI,
      createAnthropic: anthropic.createAnthropic,
    }),
  ));
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
