/**
 * Learns a local model server's context window from the server itself, for a provider entry that
 * does not set `contextWindow`. Each server says it in its own place:
 *   Ollama     POST <root>/api/show {model}   -> `parameters` "num_ctx N" (the window it runs with)
 *                                                or model_info["<arch>.context_length"]
 *   LM Studio  GET  <root>/api/v0/models      -> data[id = model].loaded_context_length / max_context_length
 *   llama.cpp  GET  <root>/props              -> default_generation_settings.n_ctx (or n_ctx)
 * The three are asked side by side with a short timeout; a server that answers none keeps the
 * default window. `<root>` is the baseUrl without its trailing /v1.
 */
import { LIMITS } from '../kernel/limits.js';

export interface LearnedWindow {
  tokens: number;
  /** Which server said it: ollama, lmstudio or llama.cpp. */
  source: 'ollama' | 'lmstudio' | 'llama.cpp';
}

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(LIMITS.contextWindowProbeMs) });
  if (!res.ok) throw new Error(`${res.status}`);
  return res.json();
}

async function ollama(root: string, model: string): Promise<number | undefined> {
  const info = await json(`${root}/api/show`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) });
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(String(info?.parameters ?? ''));
  if (numCtx) return positive(Number(numCtx[1]));
  const entries = Object.entries((info?.model_info ?? {}) as Record<string, unknown>);
  return positive(entries.find(([k]) => k.endsWith('.context_length'))?.[1]);
}

async function lmStudio(root: string, model: string): Promise<number | undefined> {
  const list = await json(`${root}/api/v0/models`);
  const entry = (Array.isArray(list?.data) ? list.data : []).find((m: { id?: unknown }) => m?.id === model);
  return positive(entry?.loaded_context_length) ?? positive(entry?.max_context_length);
}

async function llamaCpp(root: string): Promise<number | undefined> {
  const props = await json(`${root}/props`);
  return positive(props?.default_generation_settings?.n_ctx) ?? positive(props?.n_ctx);
}

export async function learnContextWindow(baseUrl: string, model: string): Promise<LearnedWindow | undefined> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const asks: Array<[LearnedWindow['source'], Promise<number | undefined>]> = [
    ['ollama', ollama(root, model)],
    ['lmstudio', lmStudio(root, model)],
    ['llama.cpp', llamaCpp(root)],
  ];
  const answers = await Promise.allSettled(asks.map(([, p]) => p));
  for (let i = 0; i < asks.length; i++) {
    const a = answers[i];
    if (a.status === 'fulfilled' && a.value) return { tokens: a.value, source: asks[i][0] };
  }
  return undefined;
}
