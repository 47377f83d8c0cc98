/**
 * Token counts for the prompt budget. A local model counts with its own tokenizer (the model
 * worker's); every other provider with a BPE estimate: OpenAI's cl100k_base ranks from js-tiktoken
 * (pure JavaScript, the ranks ship in the package, nothing is downloaded). Anthropic's and most
 * open-weight tokenizers are not published as BPE ranks; cl100k is within a few per cent on English
 * and JSON, which is what tool definitions are (docs/local-models.md).
 *
 * The ranks cost ~70 MB of heap and a second to load, so counts are cached by text (tool
 * definitions repeat on every step and every turn), the encoder loads on the first count that is
 * not cached and is let go after a minute unused.
 */
import { lazyRequire } from '../kernel/lazy-require.js';
import { LIMITS } from '../kernel/limits.js';

/** Token counts of texts, in order. */
export type TokenCounter = (texts: string[]) => Promise<number[]>;

type Lite = typeof import('js-tiktoken/lite');
const requireLite = lazyRequire<Lite>('js-tiktoken/lite');
const requireRanks = lazyRequire<{ default: unknown }>('js-tiktoken/ranks/cl100k_base');

let encoder: InstanceType<Lite['Tiktoken']> | undefined;
let releaseTimer: NodeJS.Timeout | undefined;
const cache = new Map<string, number>();

function encoderNow(): InstanceType<Lite['Tiktoken']> {
  clearTimeout(releaseTimer);
  releaseTimer = setTimeout(() => (encoder = undefined), LIMITS.tokenizerIdleMs);
  releaseTimer.unref();
  if (!encoder) {
    const { Tiktoken } = requireLite();
    const ranks = requireRanks();
    encoder = new Tiktoken((ranks.default ?? ranks) as ConstructorParameters<Lite['Tiktoken']>[0]);
  }
  return encoder;
}

/** Counts with cl100k_base; cached by text. */
export function bpeCount(text: string): number {
  let n = cache.get(text);
  if (n === undefined) {
    n = encoderNow().encode(text, [], []).length;
    if (cache.size >= LIMITS.tokenCountCacheEntries) cache.delete(cache.keys().next().value!);
    cache.set(text, n);
  }
  return n;
}

export const bpeCounter: TokenCounter = async (texts) => texts.map(bpeCount);

/** A counter that asks `count` once per text it has not seen (a local model's tokenizer over IPC). */
export function cachedCounter(count: TokenCounter): TokenCounter {
  const seen = new Map<string, number>();
  return async (texts) => {
    const missing = [...new Set(texts.filter((t) => !seen.has(t)))];
    if (missing.length) {
      const counts = await count(missing);
      if (seen.size + missing.length > LIMITS.tokenCountCacheEntries) seen.clear();
      missing.forEach((t, i) => seen.set(t, counts[i]));
    }
    return texts.map((t) => seen.get(t)!);
  };
}

/** Four characters a token: for a client that has no counter (a documented rough estimate). */
export const charEstimate: TokenCounter = async (texts) => texts.map((t) => Math.ceil(t.length / 4));
