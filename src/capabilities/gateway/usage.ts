/** Token usage between OpenAI's wire shape and the run ledger's. */
import type { Usage } from '../../kernel/runs.js';
import type { CompletionUsage } from './types.js';

export function fromOpenAI(u: Partial<CompletionUsage> | null | undefined): Usage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  return {
    input: num(u.prompt_tokens),
    output: num(u.completion_tokens),
    cached: num(u.prompt_tokens_details?.cached_tokens),
    reasoning: num(u.completion_tokens_details?.reasoning_tokens),
  };
}

export function toOpenAI(u: Usage): CompletionUsage {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
