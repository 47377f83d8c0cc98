/**
 * The one stand-in of the test suite: a scripted language-model server on loopback (port 0).
 * It speaks the providers' real wire formats, so the engine's real clients (the Vercel AI SDK)
 * talk to it unchanged:
 *   - OpenAI chat completions:  POST <any prefix>/chat/completions  (SSE when `stream: true`)
 *   - Anthropic messages:       POST <any prefix>/messages          (SSE when `stream: true`)
 *   - OpenAI legacy completions: POST <any prefix>/completions       (fill-in-the-middle; whole answers)
 * Each request consumes the next step of the script. A step is text, reasoning, tool calls, an
 * error status, or a hang (no answer until the client aborts), optionally with usage numbers and
 * a delay between chunks. Every request is recorded (path, headers, parsed body).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { patience } from './patience.js';

export interface ScriptUsage {
  /** Total input tokens, cached ones included. */
  input?: number;
  output?: number;
  /** Input tokens read from the provider's cache (part of `input`). */
  cached?: number;
  /** Reasoning tokens (part of `output`; OpenAI format only carries them). */
  reasoning?: number;
}

export interface ScriptToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (to script garbled arguments). */
  args: Record<string, unknown> | string;
  id?: string;
}

export interface ScriptStep {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptToolCall[];
  /** Answer with this HTTP status and `body` instead of a completion. */
  error?: number;
  body?: unknown;
  /** Never finish: after any text/reasoning given, keep the connection open until the client aborts. */
  hang?: boolean;
  /** Drop the connection without answering (a reset, as a crashing proxy does). */
  reset?: boolean;
  /**
   * Fail inside a 200 stream after the step's text/reasoning, as the APIs do when overloaded
   * mid-answer: Anthropic `event: error` ({type: 'error', error: {type, message}}), OpenAI a
   * `data: {"error": {...}}` frame. `type` defaults to overloaded_error / server_error.
   */
  streamError?: { message: string; type?: string };
  usage?: ScriptUsage;
  /** Milliseconds between streamed chunks (default 0). */
  delayMs?: number;
  /** Characters of text per delta chunk (default: one word a chunk). */
  chunkChars?: number;
  /** The finish reason of a legacy completions answer (default `stop`; `length` when cut by max_tokens). */
  finishReason?: 'stop' | 'length';
  /** Extra response headers (e.g. retry-after). */
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  path: string;
  format: Format;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When the first byte of the answer was written (performance.now()), for latency benchmarks. */
  firstByteAt?: number;
}

export interface ModelServer {
  /** e.g. http://127.0.0.1:PORT/v1, a baseUrl for either provider type. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): void;
  /** Resolves once `count` requests have arrived in total; `timeoutMs` (quiet-machine ms, scaled by test/support/patience.ts) only bounds a hang. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Connections currently hanging (a hang step in progress). */
  hanging(): number;
  /**
   * Answers the context-window endpoints of a local server flavour (none by default, as a hosted
   * API): Ollama `POST /api/show`, LM Studio `GET /api/v0/models`, llama.cpp `GET /props`.
   * Requests to them are counted in `infoRequests`, not in `requests`.
   */
  advertise(flavour: 'ollama' | 'lmstudio' | 'llama.cpp' | undefined, contextWindow?: number): void;
  infoRequests: string[];
  close(): Promise<void>;
}

type Format = 'openai' | 'anthropic' | 'completions';

const DEFAULT_USAGE: Required<ScriptUsage> = { input: 10, output: 5, cached: 0, reasoning: 0 };

export async function startModelServer(): Promise<ModelServer> {
  const queue: ScriptStep[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const open = new Set<http.ServerResponse>();
  let hangingCount = 0;
  let counter = 0;
  let advertised: { flavour: 'ollama' | 'lmstudio' | 'llama.cpp'; tokens: number } | undefined;
  const infoRequests: string[] = [];

  /** The local servers' own info routes (beside the /v1 API); undefined when this is not one of them. */
  const info = (method: string, path: string, body: any): unknown => {
    const a = advertised;
    if (!a) return undefined;
    if (a.flavour === 'ollama' && method === 'POST' && path === '/api/show') {
      return { modelfile: '', parameters: 'stop "<|eot|>"', details: { family: 'llama' }, model_info: { 'general.architecture': 'llama', 'llama.context_length': a.tokens, 'llama.embedding_length': 4096 }, model: body?.model };
    }
    if (a.flavour === 'lmstudio' && method === 'GET' && path === '/api/v0/models') {
      return { object: 'list', data: [{ id: 'other-model', max_context_length: 999 }, { id: 'scripted-model', object: 'model', type: 'llm', state: 'loaded', max_context_length: a.tokens }] };
    }
    if (a.flavour === 'llama.cpp' && method === 'GET' && path === '/props') {
      return { default_generation_settings: { n_ctx: a.tokens, temperature: 0.8 }, total_slots: 1 };
    }
    return undefined;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const path = (req.url ?? '').split('?')[0];
      if (/^\/(api\/show|api\/v0\/models|props)$/.test(path)) infoRequests.push(`${req.method} ${path}`);
      const about = info(req.method ?? '', path, body);
      if (about !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(about));
        return;
      }
      const format: Format | undefined = path.endsWith('/messages') ? 'anthropic' : path.endsWith('/chat/completions') ? 'openai' : path.endsWith('/completions') ? 'completions' : undefined;
      if (!format || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `scripted model server: no route ${req.method} ${path}` } }));
        return;
      }
      const record: RecordedRequest = { path, format, headers: req.headers, body };
      requests.push(record);
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const step = queue.shift() ?? { error: 400, body: errorBody(format, 'scripted model server: the script has no step left') };
      open.add(res);
      res.on('close', () => open.delete(res));
      void answer(format, step, body, res, record, ++counter).catch(() => res.destroy());
    });
  });

  const answer = async (format: Format, step: ScriptStep, body: any, res: http.ServerResponse, record: RecordedRequest, n: number) => {
    if (step.reset) {
      res.socket?.destroy();
      return;
    }
    if (step.error) {
      record.firstByteAt = performance.now();
      res.writeHead(step.error, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body ?? errorBody(format, `scripted error ${step.error}`, step.error)));
      return;
    }
    const model = String(body?.model ?? 'scripted-model');
    const usage = { ...DEFAULT_USAGE, ...step.usage };
    const streaming = body?.stream === true;
    if (!streaming) {
      if (step.hang) return hang(res);
      record.firstByteAt = performance.now();
      res.writeHead(200, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(format === 'openai' ? openaiWhole(step, model, usage, n) : format === 'completions' ? completionsWhole(step, model, usage, n) : anthropicWhole(step, model, usage, n)));
      return;
    }
    if (format === 'completions') throw new Error('the scripted legacy completions route answers whole responses only');
    if (step.hang && !step.text && !step.reasoning && !step.toolCalls) return hang(res);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...step.headers });
    const frames = format === 'openai' ? openaiFrames(step, model, usage, n, body) : anthropicFrames(step, model, usage, n);
    if (step.streamError) frames.list.splice(frames.list.length - frames.tail, frames.tail, streamErrorFrame(format, step.streamError));
    const finalCount = step.hang && !step.streamError ? frames.tail : 0;
    const upTo = frames.list.length - finalCount;
    for (let i = 0; i < upTo; i++) {
      if (res.destroyed) return;
      if (i > 0 && step.delayMs) await sleep(step.delayMs);
      if (i === 0) record.firstByteAt = performance.now();
      res.write(frames.list[i]);
    }
    if (step.hang) return hang(res);
    res.end();
  };

  const hang = (res: http.ServerResponse) => {
    hangingCount++;
    res.on('close', () => hangingCount--);
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${url}/v1`,
    requests,
    script: (...steps) => void queue.push(...steps),
    hanging: () => hangingCount,
    infoRequests,
    advertise(flavour, contextWindow = 8192) {
      advertised = flavour ? { flavour, tokens: contextWindow } : undefined;
    },
    waitForRequests(count, quietMs = 30_000) {
      const timeoutMs = patience(quietMs);
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the model server got ${requests.length} of ${count} requests within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests)) });
      });
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The error body each API sends (OpenAI `{error: {message, type, param, code}}`; Anthropic `{type: 'error', error: {type, message}}`). */
/** A legacy `/v1/completions` answer (what llama.cpp, vLLM, LM Studio and Ollama serve for FIM). */
function completionsWhole(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number): unknown {
  return {
    id: `cmpl-${n}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, text: step.text ?? '', finish_reason: step.finishReason ?? 'stop', logprobs: null }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function errorBody(format: Format, message: string, status = 400): unknown {
  if (format === 'openai') return { error: { message, type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } };
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message }, request_id: 'req_scripted' };
}

function streamErrorFrame(format: Format, e: { message: string; type?: string }): string {
  if (format === 'openai') return `data: ${JSON.stringify({ error: { message: e.message, type: e.type ?? 'server_error', param: null, code: null } })}\n\n`;
  return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: e.type ?? 'overloaded_error', message: e.message } })}\n\n`;
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunkText(text: string, chunkChars?: number): string[] {
  if (!text) return [];
  if (chunkChars) {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += chunkChars) out.push(text.slice(i, i + chunkChars));
    return out;
  }
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function argsText(args: ScriptToolCall['args']): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** Splits a tool's argument text in two, so arguments arrive streamed as real providers send them. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const mid = Math.floor(text.length / 2);
  return [text.slice(0, mid), text.slice(mid)];
}

interface Frames {
  list: string[];
  /** How many trailing frames finish the answer (withheld by a hang step). */
  tail: number;
}

/**
 * OpenAI chat-completions SSE as the API sends it: `data: <chunk>` frames, each a
 * `chat.completion.chunk` with one choice (`delta`, `logprobs: null`, `finish_reason`), then
 * `data: [DONE]`. The usage chunk (empty `choices`) comes only when the request asked for it with
 * `stream_options.include_usage: true`; every chunk then carries `usage: null` until it. Reasoning
 * streams as `reasoning_content` (DeepSeek, vLLM, llama.cpp: what openai-compatible servers send).
 */
function openaiFrames(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number, body: any): Frames {
  const id = `chatcmpl-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const withUsage = body?.stream_options?.include_usage === true;
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_scripted', choices, ...(withUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  const list: string[] = [frame(choice({ role: 'assistant', content: '', refusal: null }))];
  for (const piece of chunkText(step.reasoning ?? '', step.chunkChars)) list.push(frame(choice({ reasoning_content: piece })));
  for (const piece of chunkText(step.text ?? '', step.chunkChars)) list.push(frame(choice({ content: piece })));
  (step.toolCalls ?? []).forEach((call, index) => {
    const callId = call.id ?? `call_${n}_${index}`;
    list.push(frame(choice({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] })));
    for (const part of halves(argsText(call.args))) list.push(frame(choice({ tool_calls: [{ index, function: { arguments: part } }] })));
  });
  const tail: string[] = [frame(choice({}, step.toolCalls?.length ? 'tool_calls' : 'stop'))];
  if (withUsage) tail.push(frame([], { usage: openaiUsage(usage) }));
  tail.push('data: [DONE]\n\n');
  return { list: [...list, ...tail], tail: tail.length };
}

function openaiUsage(usage: Required<ScriptUsage>) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function openaiWhole(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number) {
  const toolCalls = (step.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: argsText(c.args) } }));
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_scripted',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: step.text ?? null, refusal: null, ...(step.reasoning ? { reasoning_content: step.reasoning } : {}), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: openaiUsage(usage),
  };
}

/** Anthropic reports uncached input, cache reads and cache writes separately; their sum is the input. */
function anthropicInputUsage(usage: Required<ScriptUsage>) {
  return { input_tokens: usage.input - usage.cached, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cached };
}

function anthropicUsageStart(usage: Required<ScriptUsage>) {
  return { ...anthropicInputUsage(usage), cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 }, output_tokens: 1, service_tier: 'standard' };
}

/**
 * Anthropic messages SSE as the API sends it: `event: <type>` + `data: <json with the same type>`;
 * message_start (a Message with empty content and the input usage), then per content block
 * content_block_start / content_block_delta... / content_block_stop (a `ping` after the first
 * block opens, as the API does), then message_delta (stop_reason and the cumulative usage) and
 * message_stop. Thinking blocks end with a signature_delta; a tool_use block's input streams as
 * input_json_delta, starting with an empty partial_json. Anthropic has no separate count of
 * thinking tokens: they are part of output_tokens.
 */
function anthropicFrames(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number): Frames {
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const list: string[] = [
    ev('message_start', {
      message: { model, id: `msg_${n}`, type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, usage: anthropicUsageStart(usage) },
    }),
  ];
  let index = 0;
  const ping = () => {
    if (index === 0) list.push(ev('ping', {}));
  };
  if (step.reasoning) {
    list.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    ping();
    for (const piece of chunkText(step.reasoning, step.chunkChars)) list.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
    list.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: `sig-${n}` } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  if (step.text) {
    list.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    ping();
    for (const piece of chunkText(step.text, step.chunkChars)) list.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const [i, call] of (step.toolCalls ?? []).entries()) {
    list.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: {} } }));
    list.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
    ping();
    for (const part of halves(argsText(call.args))) list.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  const tail = [
    ev('message_delta', { delta: { stop_reason: step.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { ...anthropicInputUsage(usage), output_tokens: usage.output } }),
    ev('message_stop', {}),
  ];
  return { list: [...list, ...tail], tail: tail.length };
}

function anthropicWhole(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number) {
  const content: unknown[] = [];
  if (step.reasoning) content.push({ type: 'thinking', thinking: step.reasoning, signature: `sig-${n}` });
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const [i, call] of (step.toolCalls ?? []).entries()) {
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: typeof call.args === 'string' ? {} : call.args });
  }
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: step.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { ...anthropicUsageStart(usage), output_tokens: usage.output },
  };
}
