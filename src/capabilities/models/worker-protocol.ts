/** Messages between the engine and a model worker process (over the fork IPC channel). */
import type { ChatMessageIn } from '../../providers/types.js';

export type { ChatMessageIn };

export type ToWorker =
  | { type: 'load'; dir: string; dtypes: string[] }
  | { type: 'generate'; id: string; messages: ChatMessageIn[]; tools?: unknown[]; /** Unset: up to the model's context length. */
      maxTokens?: number; temperature?: number; topP?: number }
  | { type: 'stop'; id: string }
  /** Token counts of texts with the model's own tokenizer (the prompt budget). */
  | { type: 'count'; id: string; texts: string[] };

export type FromWorker =
  | { type: 'progress'; file?: string; progress?: number; status: string }
  | { type: 'loaded'; dtype: string; ms: number; failed: { dtype: string; error: string }[]; templateHasTools: boolean; contextLength: number | null }
  | { type: 'load-failed'; error: string; failed: { dtype: string; error: string }[] }
  | { type: 'token'; id: string; text: string }
  | { type: 'done'; id: string; text: string; inputTokens: number; outputTokens: number; finish: 'stop' | 'length' | 'aborted'; ms: number; firstTokenMs: number | null; rssBytes: number }
  | { type: 'counted'; id: string; counts: number[] }
  | { type: 'error'; id: string; error: string };
