/**
 * The built-in price table, USD per million tokens, for common hosted models (list prices as published
 * by the vendors in 2025; check them before relying on a bill). A provider entry's `prices` in
 * engine.config.json overrides or extends it per model id. A model found nowhere is UNPRICED: reports
 * say so (cost null, tokens counted under `unpriced`) rather than pretending it was free; a local model
 * that really is free is priced by setting `prices: {"<model>": {"input": 0, "output": 0}}`.
 *
 * Token accounting assumed (the AI SDK's): `input` includes `cached` input tokens, and `output`
 * includes `reasoning` tokens. So cost = (input - cached) * input price + cached * cachedInput price
 * (the input price when no cached price is known) + output * output price.
 */
import type { ModelPrice } from '../config/types.js';
import type { Usage } from '../../kernel/runs.js';

export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  o3: { input: 2, output: 8, cachedInput: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
  // Anthropic
  'claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cachedInput: 1.5 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cachedInput: 0.08 },
};

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The price of a model id: an exact match first, then the longest table key the id starts with
 * followed by `-` (so dated ids such as `claude-sonnet-4-20250514` find `claude-sonnet-4`), after
 * dropping an `org/` prefix (OpenRouter-style ids).
 */
export function lookupPrice(model: string, table: PriceTable): ModelPrice | undefined {
  const candidates = [model, model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : undefined].filter(Boolean) as string[];
  for (const id of candidates) {
    if (table[id]) return table[id];
  }
  for (const id of candidates) {
    let best: string | undefined;
    for (const key of Object.keys(table)) if (id.startsWith(key + '-') && (!best || key.length > best.length)) best = key;
    if (best) return table[best];
  }
  return undefined;
}

/** USD for one usage at one price. */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cached, usage.input);
  const fresh = usage.input - cached;
  return (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.output * price.output) / 1_000_000;
}
