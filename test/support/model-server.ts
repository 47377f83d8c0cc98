/**
 * The one stand-in of the test suite: a scripted language-model server on loopback (port 0).
 * It speaks the providers' real wire formats, so the engine's real clients (the Vercel AI SDK)
 * talk to it unchanged:
 *   - OpenAI chat completions:  POST <any prefix>/chat/completions  (SSE when `stream: true`)
 *   - Anthropic messages:       POST <any prefix>/messages          (SSE when `stream: true`)
 * Each request consumes the next step of the script. A step is text, reasoning, tool calls, an
 * error status, or a hang (no answer until the client aborts), optionally with usage numbers and
 * a delay between chunks. Every request is recorded (path, headers, parsed body).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  usage?: ScriptUsage;
  /** Milliseconds between streamed chunks (default 0). */
  delayMs?: number;
  /** Characters of text per delta chunk (default: one word a chunk). */
  chunkChars?: number;
  /** Extra response headers (e.g. retry-after). */
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  path: string;
  format: 'openai' | 'anthropic';
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When the first byte of the answer was written (performance.now()), for latency benchmarks. */
  firstByteAt?: number;
}

export interface ModelServer {
  /** e.g. http://127.0.0.1:PORT/v1, a baseUrl for either provider type. */
  baseUrl: string;
  url: string;
  requests: RecordedRequest[];
  /** Appends steps to the script. */
  script(...steps: ScriptStep[]): void;
  /** Steps not yet consumed. */
  pending(): number;
  /** Resolves once `count` requests have arrived in total. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Connections currently hanging (a hang step in progress). */
  hanging(): number;
  close(): Promise<void>;
}

const DEFAULT_USAGE: Required<ScriptUsage> = { input: 10, output: 5, cached: 0, reasoning: 0 };

export async function startModelServer(initial: ScriptStep[] = []): Promise<ModelServer> {
  const queue: ScriptStep[] = [...initial];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const open = new Set<http.ServerResponse>();
  let hangingCount = 0;
  let counter = 0;

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
      const format = path.endsWith('/messages') ? 'anthropic' : path.endsWith('/chat/completions') ? 'openai' : undefined;
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

  const answer = async (format: 'openai' | 'anthropic', step: ScriptStep, body: any, res: http.ServerResponse, record: RecordedRequest, n: number) => {
    if (step.reset) {
      res.socket?.destroy();
      return;
    }
    if (step.error) {
      record.firstByteAt = performance.now();
      res.writeHead(step.error, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body ?? errorBody(format, `scripted error ${step.error}`)));
      return;
    }
    const model = String(body?.model ?? 'scripted-model');
    const usage = { ...DEFAULT_USAGE, ...step.usage };
    const streaming = body?.stream === true;
    if (!streaming) {
      if (step.hang) return hang(res);
      record.firstByteAt = performance.now();
      res.writeHead(200, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(format === 'openai' ? openaiWhole(step, model, usage, n) : anthropicWhole(step, model, usage, n)));
      return;
    }
    if (step.hang && !step.text && !step.reasoning && !step.toolCalls) return hang(res);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...step.headers });
    const frames = format === 'openai' ? openaiFrames(step, model, usage, n, body) : anthropicFrames(step, model, usage, n);
    const finalCount = step.hang ? frames.tail : 0;
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
    url,
    baseUrl: `${url}/v1`,
    requests,
    script: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    hanging: () => hangingCount,
    waitForRequests(count, timeoutMs = 10_000) {
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

function errorBody(format: 'openai' | 'anthropic', message: string): unknown {
  return format === 'openai'
    ? { error: { message, type: 'invalid_request_error', code: null } }
    : { type: 'error', error: { type: 'invalid_request_error', message } };
}

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

function openaiFrames(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number, body: any): Frames {
  const id = `chatcmpl-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const list: string[] = [frame([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }])];
  for (const piece of chunkText(step.reasoning ?? '', step.chunkChars)) {
    list.push(frame([{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }]));
  }
  for (const piece of chunkText(step.text ?? '', step.chunkChars)) {
    list.push(frame([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  (step.toolCalls ?? []).forEach((call, index) => {
    const callId = call.id ?? `call_${n}_${index}`;
    list.push(frame([{ index: 0, delta: { tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }]));
    for (const part of halves(argsText(call.args))) {
      list.push(frame([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] }, finish_reason: null }]));
    }
  });
  const finish = step.toolCalls?.length ? 'tool_calls' : 'stop';
  const tail: string[] = [frame([{ index: 0, delta: {}, finish_reason: finish }])];
  if (body?.stream_options?.include_usage !== false) {
    tail.push(frame([], { usage: openaiUsage(usage) }));
  }
  tail.push('data: [DONE]\n\n');
  return { list: [...list, ...tail], tail: tail.length };
}

function openaiUsage(usage: Required<ScriptUsage>) {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached },
    completion_tokens_details: { reasoning_tokens: usage.reasoning },
  };
}

function openaiWhole(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number) {
  const toolCalls = (step.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: argsText(c.args) } }));
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: step.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: openaiUsage(usage),
  };
}

function anthropicUsageStart(usage: Required<ScriptUsage>) {
  // Anthropic reports uncached input, cache reads and cache writes separately; their sum is the input.
  return { input_tokens: usage.input - usage.cached, cache_read_input_tokens: usage.cached, cache_creation_input_tokens: 0, output_tokens: 1 };
}

function anthropicFrames(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number): Frames {
  const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const list: string[] = [
    ev('message_start', {
      message: { id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: anthropicUsageStart(usage) },
    }),
  ];
  let index = 0;
  if (step.reasoning) {
    list.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const piece of chunkText(step.reasoning, step.chunkChars)) list.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
    list.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: `sig-${n}` } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  if (step.text) {
    list.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const piece of chunkText(step.text, step.chunkChars)) list.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const [i, call] of (step.toolCalls ?? []).entries()) {
    list.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${n}_${i}`, name: call.name, input: {} } }));
    for (const part of halves(argsText(call.args))) list.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
    list.push(ev('content_block_stop', { index }));
    index++;
  }
  const tail = [
    ev('message_delta', { delta: { stop_reason: step.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } }),
    ev('message_stop', {}),
  ];
  return { list: [...list, ...tail], tail: tail.length };
}

function anthropicWhole(step: ScriptStep, model: string, usage: Required<ScriptUsage>, n: number) {
  const content: unknown[] = [];
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
