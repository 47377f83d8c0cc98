/**
 * Embeddings from an OpenAI-compatible `POST <baseUrl>/embeddings` (OpenAI, Ollama, LM Studio,
 * llama.cpp, vLLM, TEI): inputs batched, each batch retried on 429, 5xx and dropped connections
 * with backoff (honouring `retry-after`), the key read from the secret store and sent only to the
 * configured URL.
 */
export interface Embedder {
  /** The model's identity: vectors of another model never mix with these. */
  id: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export const BATCH_INPUTS = 64;
const BATCH_CHARS = 200_000;
const TRIES = 4;

export function httpEmbedder(opts: { baseUrl: string; model: string; key: () => Promise<string | undefined>; onRequest?: () => void }): Embedder {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const request = async (input: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const key = await opts.key();
    let wait = 500;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        opts.onRequest?.();
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify({ model: opts.model, input }),
          signal,
        });
      } catch (err) {
        if (signal?.aborted || attempt >= TRIES) throw new Error(`the embeddings endpoint ${url} could not be reached: ${(err as Error).message}`);
        await sleep(wait, signal);
        wait *= 2;
        continue;
      }
      if ((res.status === 429 || res.status >= 500) && attempt < TRIES) {
        await res.body?.cancel();
        const after = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 30_000) : wait, signal);
        wait *= 2;
        continue;
      }
      const text = await res.text();
      if (!res.ok) throw new Error(`the embeddings endpoint answered ${res.status}: ${said(text)}`);
      const json = JSON.parse(text) as { data?: Array<{ index?: number; embedding?: number[] }> };
      const data = [...(json.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      if (data.length !== input.length || data.some((d) => !Array.isArray(d.embedding))) throw new Error(`the embeddings endpoint answered ${data.length} vectors for ${input.length} inputs`);
      return data.map((d) => Float32Array.from(d.embedding!));
    }
  };
  return {
    id: `${opts.baseUrl}|${opts.model}`,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (const batch of batches(texts)) out.push(...(await request(batch, signal)));
      return out;
    },
  };
}

function* batches(texts: string[]): Generator<string[]> {
  let batch: string[] = [];
  let chars = 0;
  for (const t of texts) {
    if (batch.length && (batch.length >= BATCH_INPUTS || chars + t.length > BATCH_CHARS)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push(t);
    chars += t.length;
  }
  if (batch.length) yield batch;
}

function said(text: string): string {
  try {
    const j = JSON.parse(text);
    return String(j?.error?.message ?? j?.error ?? text).slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
