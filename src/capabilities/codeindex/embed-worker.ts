/**
 * The local embedder's worker: a forked process (never the engine's) that runs one downloaded
 * feature-extraction model with @huggingface/transformers from local files only, and answers
 * `{type: 'embed', id, texts}` with mean-pooled, normalised vectors. Like the chat model worker
 * (capabilities/models/model-worker.ts) it gets an allowlisted environment and ends with the engine.
 */
type In = { type: 'load'; dir: string; dtypes: string[] } | { type: 'embed'; id: string; texts: string[] };
type Out = { type: 'loaded' } | { type: 'load-failed'; error: string } | { type: 'embedded'; id: string; vectors: number[][] } | { type: 'error'; id: string; error: string };

const send = (m: Out) => process.send?.(m);
let extractor: ((texts: string[], opts: Record<string, unknown>) => Promise<{ tolist(): number[][] }>) | undefined;
let queue: Promise<void> = Promise.resolve();

async function load(dir: string, dtypes: string[]): Promise<void> {
  try {
    const tf = await import('@huggingface/transformers');
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    tf.env.useFSCache = false;
    tf.env.useBrowserCache = false;
    const failed: string[] = [];
    for (const dtype of dtypes) {
      try {
        extractor = (await tf.pipeline('feature-extraction', dir, { local_files_only: true, dtype: dtype as 'fp32' })) as unknown as typeof extractor;
        return void send({ type: 'loaded' });
      } catch (err) {
        failed.push(`${dtype}: ${(err as Error).message.split('\n')[0].slice(0, 200)}`);
      }
    }
    send({ type: 'load-failed', error: failed.join('; ') || 'no weights were downloaded' });
  } catch (err) {
    send({ type: 'load-failed', error: (err as Error).message.split('\n')[0].slice(0, 300) });
  }
}

async function embed(id: string, texts: string[]): Promise<void> {
  try {
    const out = await extractor!(texts, { pooling: 'mean', normalize: true });
    send({ type: 'embedded', id, vectors: out.tolist() });
  } catch (err) {
    send({ type: 'error', id, error: (err as Error).message.split('\n')[0].slice(0, 300) });
  }
}

process.on('message', (m: In) => {
  if (m.type === 'load') void load(m.dir, m.dtypes);
  else if (m.type === 'embed') queue = queue.then(() => embed(m.id, m.texts));
});
process.on('disconnect', () => process.exit(0));
