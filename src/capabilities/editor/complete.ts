/**
 * `POST /api/complete` (seed 000 §4.19): ghost text at the cursor. Always status 200: a refusal or
 * failure is `{text: null, reason}`.
 *
 * Where the fill comes from:
 *   - an `openai-compatible` provider (llama.cpp, vLLM, Ollama, LM Studio) gets a real FIM request on
 *     its legacy `/completions` endpoint: the model family's own template when the model id names a
 *     known family (fim.ts), else the OpenAI-style `suffix` parameter. A server that answers 404,
 *     405 or 501 there is remembered as chat-only;
 *   - every other provider (hosted chat APIs, the local worker) gets a hole-filler prompt through
 *     the AI SDK: the code with a {{FILL_HERE}} hole, answered between <COMPLETION> tags.
 * A new request for the same path cancels the one in flight (an editor asks at every keystroke),
 * and the deadline (15 s) cancels the model request itself, not only our wait for it.
 */
import type { ConfigService, ProviderConfig } from '../config/types.js';
import type { CompletionsSettings } from '../settings/types.js';
import type { ProviderService } from '../../providers/service.js';
import { providerName } from '../../providers/clients.js';
import { loadAi } from '../../providers/sdk.js';
import { describeError } from '../../kernel/errors.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { providerErrorSentence } from '../../providers/retry.js';
import { cutPrefix, cutSuffix, languageOf, snippetsBlock, type RecentFiles } from './context.js';
import { fimTemplateFor } from './fim.js';
import { COMPLETE_MAX_TOKENS, postprocess } from './postprocess.js';
import type { CompleteAnswer } from './types.js';

export interface CompleterDeps {
  config: ConfigService;
  providers: ProviderService;
  settings: () => CompletionsSettings;
  /** The file being edited is judged, and recent files are read, through it: nothing a model may not see reaches the model. */
  reader: Pick<FencedReader, 'readText' | 'allowed'>;
  recent: RecentFiles;
  deadlineMs: number;
  /** Called with a listener for changes of the secret store (a provider key may have changed). */
  onSecretsChanged: (listener: () => void) => void;
}

interface Fill {
  text: string;
  cutByLimit: boolean;
}

const HOLE_SYSTEM = [
  'You are a code completion engine inside an editor.',
  'The user sends a file with a hole marked {{FILL_HERE}}. Answer with exactly the code that belongs in the hole, between <COMPLETION> and </COMPLETION>.',
  'Never repeat the code before or after the hole, never explain, never use code fences. An empty completion is fine when nothing belongs there.',
].join(' ');

export function createCompleter(deps: CompleterDeps) {
  const inFlight = new Map<string, AbortController>();
  // Providers whose /completions endpoint answered "no such route": asked by chat from then on.
  const chatOnly = new Set<string>();
  // Keys by provider: reading one from the secret store costs more than the whole hop (an editor
  // asks at every pause in typing), so each is read once, until the config or a secret changes.
  let keys = new Map<string, Promise<string | undefined>>();
  const forget = () => {
    keys = new Map();
    chatOnly.clear();
  };
  deps.config.onChange(forget);
  deps.onSecretsChanged(forget);
  const keyOf = (entry: ProviderConfig): Promise<string | undefined> => {
    const name = providerName(entry);
    let key = keys.get(name);
    if (!key) {
      const mine = (key = deps.config.providerKeyFor(name, entry.type, entry.baseUrl));
      key.catch(() => keys.get(name) === mine && keys.delete(name));
      keys.set(name, key);
    }
    return key;
  };

  return async function complete(body: unknown): Promise<CompleteAnswer> {
    const input = checkInput(body);
    if (typeof input === 'string') return { text: null, reason: input };
    const settings = deps.settings();
    if (!settings.enabled) return { text: null, reason: 'completions are turned off; turn them on with PUT /api/settings {"completions": {"enabled": true}}' };
    // The prefix and suffix are the file's own text: a file a model may not see is refused before any model is asked.
    const judged = await deps.reader.allowed(input.path);
    if (!judged.ok) return { text: null, reason: judged.reason };

    inFlight.get(input.path)?.abort();
    const mine = new AbortController();
    inFlight.set(input.path, mine);
    const deadline = AbortSignal.timeout(deps.deadlineMs);
    const signal = AbortSignal.any([mine.signal, deadline]);
    deps.recent.touch(input.path);
    try {
      const entry = providerEntry(deps.config, settings.provider);
      if (typeof entry === 'string') return { text: null, reason: entry };
      const lang = languageOf(input.path);
      const prefix = (await snippets(deps, input.path, lang)) + cutPrefix(input.prefix);
      const suffix = cutSuffix(input.suffix);
      const name = providerName(entry);
      let fill: Fill | undefined;
      if (entry.type === 'openai-compatible' && entry.baseUrl && !chatOnly.has(name)) {
        fill = await fimRequest(entry, await keyOf(entry), prefix, suffix, signal);
        if (!fill) chatOnly.add(name);
      }
      fill ??= await holeFill(deps.providers, name, input.path, lang, prefix, suffix, signal);
      return { text: postprocess(fill.text, { suffix: input.suffix, cutByLimit: fill.cutByLimit }) };
    } catch (err) {
      if (deadline.aborted) return { text: null, reason: `the model did not answer within ${deps.deadlineMs / 1000} s` };
      if (mine.signal.aborted) return { text: null, reason: 'a newer completion request for this file replaced this one' };
      return { text: null, reason: describeError(err) };
    } finally {
      if (inFlight.get(input.path) === mine) inFlight.delete(input.path);
    }
  };
}

function checkInput(body: unknown): { path: string; prefix: string; suffix: string } | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'send {path, prefix, suffix}: the file path and the text before and after the cursor';
  const b = body as Record<string, unknown>;
  if (typeof b.path !== 'string' || !b.path.trim()) return 'path must be the file being edited, such as src/index.ts';
  if (typeof b.prefix !== 'string') return 'prefix must be a string: the text before the cursor';
  if (b.suffix !== undefined && typeof b.suffix !== 'string') return 'suffix must be a string: the text after the cursor';
  return { path: b.path, prefix: b.prefix, suffix: (b.suffix as string | undefined) ?? '' };
}

function providerEntry(config: ConfigService, wanted: string | null): ProviderConfig | string {
  const c = config.get();
  const list = c.providers ?? [];
  if (!list.length) return 'no model provider is configured; add one with PUT /api/config';
  const name = wanted ?? c.defaultProvider ?? providerName(list[0]);
  return list.find((p) => providerName(p) === name) ?? `completions name the provider "${name}", which is not configured; change completions.provider in PUT /api/settings`;
}

async function snippets(deps: CompleterDeps, current: string, lang: string): Promise<string> {
  const found: Array<{ path: string; content: string }> = [];
  for (const other of deps.recent.others(current)) {
    const file = await deps.reader.readText(other);
    if (file.ok) found.push({ path: other, content: file.text });
    else deps.recent.forget(other); // deleted, moved, out of the fence or hidden from models since
  }
  return snippetsBlock(lang, found);
}

/** A FIM request on the server's legacy completions endpoint; undefined when the server has none. */
async function fimRequest(entry: ProviderConfig, key: string | undefined, prefix: string, suffix: string, signal: AbortSignal): Promise<Fill | undefined> {
  const name = providerName(entry);
  const template = fimTemplateFor(entry.model);
  const body = template
    ? { model: entry.model, prompt: template.prompt(prefix, suffix), max_tokens: COMPLETE_MAX_TOKENS, temperature: 0.2, stop: template.stop, stream: false }
    : { model: entry.model, prompt: prefix, suffix, max_tokens: COMPLETE_MAX_TOKENS, temperature: 0.2, stream: false };
  const res = await fetch(`${entry.baseUrl!.replace(/\/+$/, '')}/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
    signal,
  });
  if (res.status === 404 || res.status === 405 || res.status === 501) {
    await res.body?.cancel();
    return undefined;
  }
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`provider "${name}" answered its completions endpoint with something that is not JSON (status ${res.status})`);
  }
  if (!res.ok) throw new Error(`provider "${name}" refused the completion (${res.status}): ${json?.error?.message ?? text.slice(0, 200)}`);
  const choice = json?.choices?.[0];
  if (typeof choice?.text !== 'string') throw new Error(`provider "${name}" answered a completion without choices[0].text`);
  return { text: choice.text, cutByLimit: choice.finish_reason === 'length' };
}

/** The hole-filler prompt for a chat model (Continue's approach): code with a hole, answer in tags. */
async function holeFill(providers: ProviderService, name: string, file: string, lang: string, prefix: string, suffix: string, signal: AbortSignal): Promise<Fill> {
  const client = await providers.resolve(name);
  const { generateText } = await loadAi();
  try {
    const result = await generateText({
      model: client.model,
      system: HOLE_SYSTEM,
      prompt: `<QUERY path="${file}" language="${lang}">\n${prefix}{{FILL_HERE}}${suffix}\n</QUERY>\n<COMPLETION>`,
      maxOutputTokens: COMPLETE_MAX_TOKENS,
      temperature: 0.2,
      maxRetries: 0,
      abortSignal: signal,
    });
    const text = result.text.replace(/^\s*<COMPLETION>\n?/, '');
    return { text, cutByLimit: result.finishReason === 'length' };
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error(providerErrorSentence(name, err));
  }
}
