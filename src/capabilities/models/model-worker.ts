/**
 * The model worker: a forked process (never the engine process) that runs one model with
 * @huggingface/transformers from local files only. It speaks src/capabilities/models/worker-protocol.ts
 * over the IPC channel: one load, then generations one at a time, each streamed token by token
 * (a streamer object whose put() sees every token: the text streamer only fires at word boundaries) and stoppable
 * between tokens.
 */
import type { ChatMessageIn, FromWorker, ToWorker } from './worker-protocol.js';

const send = (m: FromWorker) => process.send?.(m);

type Tf = typeof import('@huggingface/transformers');
let tf: Tf;
let tokenizer: any;
let model: any;
let busy: Promise<void> = Promise.resolve();
let contextLength: number | null = null;
const stops = new Map<string, { interrupt(): void }>();
/** Stops that arrived while their generation still waited its turn. */
const early = new Set<string>();

async function load(dir: string, dtypes: string[]): Promise<void> {
  const started = performance.now();
  tf = await import('@huggingface/transformers');
  tf.env.allowRemoteModels = false;
  tf.env.allowLocalModels = true;
  tf.env.useFSCache = false;
  tf.env.useBrowserCache = false;
  const failed: { dtype: string; error: string }[] = [];
  try {
    tokenizer = await tf.AutoTokenizer.from_pretrained(dir, { local_files_only: true });
  } catch (err) {
    return void send({ type: 'load-failed', error: `the tokenizer did not load: ${(err as Error).message}`, failed });
  }
  for (const dtype of dtypes) {
    try {
      model = await tf.AutoModelForCausalLM.from_pretrained(dir, {
        dtype: dtype as any,
        local_files_only: true,
        progress_callback: (p: any) => send({ type: 'progress', status: String(p?.status ?? ''), file: p?.file, progress: typeof p?.progress === 'number' ? p.progress : undefined }),
      });
      const template = String(tokenizer.chat_template ?? '');
      const cfg = model.config ?? {};
      contextLength = Number(cfg.max_position_embeddings ?? cfg.n_positions ?? 0) || null;
      return void send({
        type: 'loaded', dtype, ms: Math.round(performance.now() - started), failed,
        templateHasTools: /\btools\b/.test(template),
        contextLength,
      });
    } catch (err) {
      failed.push({ dtype, error: (err as Error).message.split('\n')[0].slice(0, 300) });
    }
  }
  send({ type: 'load-failed', error: `no dtype loaded (${failed.map((f) => `${f.dtype}: ${f.error}`).join('; ')})`, failed });
}

async function generate(m: Extract<ToWorker, { type: 'generate' }>): Promise<void> {
  const started = performance.now();
  let firstTokenMs: number | null = null;
  const stopper = new tf.InterruptableStoppingCriteria();
  stops.set(m.id, stopper);
  if (early.delete(m.id)) stopper.interrupt();
  try {
    const prompt = tokenizer.apply_chat_template(m.messages as ChatMessageIn[], { tokenize: false, add_generation_prompt: true, ...(m.tools?.length ? { tools: m.tools } : {}) }) as string;
    const inputs = tokenizer(prompt, { add_special_tokens: false });
    const inputTokens = inputs.input_ids.dims[1] as number;
    const generated: bigint[] = [];
    // Incremental decode (as text-generation servers do): decode a short window, not the whole reply, per token.
    let prefix = 0;
    let read = 0;
    const dec = (ids: bigint[]): string => (ids.length ? tokenizer.decode(ids, { skip_special_tokens: true }) : '');
    const eos = new Set<bigint>([...[tokenizer.eos_token_id, ...[model.generation_config?.eos_token_id ?? []].flat()].filter((x) => x !== undefined && x !== null).map((x: any) => BigInt(x))]);
    // generate() calls put() with the prompt, then once per step with the new token, then end(). Not a
    // TextStreamer: it decodes its own growing word cache at every token (for a callback we do not
    // use), a third decode per token beside the two of the window below.
    let prompted = false;
    const streamer = {
      end: () => undefined,
      put: ([tokens]: bigint[][]) => {
        if (!prompted) return void (prompted = true);
        if (firstTokenMs === null) firstTokenMs = performance.now() - started;
        generated.push(...tokens);
        const before = dec(generated.slice(prefix, read));
        const now = dec(generated.slice(prefix));
        // A multi-byte character waits for its last token.
        if (now.length > before.length && !now.endsWith('\uFFFD')) {
          send({ type: 'token', id: m.id, text: now.slice(before.length) });
          prefix = read;
          read = generated.length;
        }
      },
    };
    const sample = m.temperature !== undefined && m.temperature > 0;
    await model.generate({
      ...inputs,
      max_new_tokens: m.maxTokens ?? Math.max(1, (contextLength ?? inputTokens + 2048) - inputTokens),
      do_sample: sample,
      ...(sample ? { temperature: m.temperature, ...(m.topP !== undefined ? { top_p: m.topP } : {}) } : {}),
      streamer,
      stopping_criteria: [stopper],
    });
    const text = dec(generated);
    const rest = dec(generated.slice(prefix)).slice(dec(generated.slice(prefix, read)).length);
    if (rest) send({ type: 'token', id: m.id, text: rest });
    const last = generated.at(-1);
    const finish = (stopper as any).interrupted ? 'aborted' : last !== undefined && eos.has(last) ? 'stop' : 'length';
    send({
      type: 'done', id: m.id, text, inputTokens, outputTokens: generated.length, finish,
      ms: performance.now() - started, firstTokenMs, rssBytes: process.memoryUsage().rss,
    });
  } catch (err) {
    send({ type: 'error', id: m.id, error: (err as Error).message.split('\n')[0] });
  } finally {
    stops.delete(m.id);
  }
}

process.on('message', (m: ToWorker) => {
  if (m.type === 'load') void load(m.dir, m.dtypes);
  else if (m.type === 'generate') busy = busy.then(() => generate(m));
  else if (m.type === 'count') {
    // Counting needs only the tokenizer: it answers at once, between the tokens of a generation.
    try {
      send({ type: 'counted', id: m.id, counts: m.texts.map((t) => (tokenizer.encode(t, { add_special_tokens: false }) as unknown[]).length) });
    } catch (err) {
      send({ type: 'error', id: m.id, error: (err as Error).message.split('\n')[0] });
    }
  }
  else if (m.type === 'stop') {
    const s = stops.get(m.id);
    if (s) s.interrupt();
    else early.add(m.id);
  }
});
// The engine gone means this process has no one to answer: end with it.
process.on('disconnect', () => process.exit(0));
