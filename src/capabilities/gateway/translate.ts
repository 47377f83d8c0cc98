/**
 * Upstreams that do not speak chat completions (Anthropic; local models later) are driven through
 * the AI SDK and their answers re-encoded as `chat.completion` / `chat.completion.chunk`. Tools are
 * declared without an `execute`, so a tool call ends the step and goes back to the caller: tool
 * execution stays with the caller, never with the engine.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { toUsage } from '../../agent/loop.js';
import type { Usage } from '../../kernel/runs.js';
import type { ModelClient } from '../../providers/types.js';
import { loadAi } from '../../providers/sdk.js';
import { errorType, GatewayError, invalidRequest } from './errors.js';
import { toModelMessages } from './messages.js';
import type { ChatCompletionRequest, ToolChoice, ToolDefinition } from './types.js';
import { toOpenAI } from './usage.js';

type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export async function translated(body: ChatCompletionRequest, client: ModelClient, modelName: string, res: ServerResponse, signal: AbortSignal): Promise<{ usage?: Usage }> {
  const ai = await loadAi();
  const { system, messages } = toModelMessages(body.messages);
  const options = {
    model: client.model,
    system,
    messages,
    tools: toolsOf(body.tools, ai),
    toolChoice: toolChoiceOf(body.tool_choice),
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    stopSequences: body.stop == null ? undefined : Array.isArray(body.stop) ? body.stop : [body.stop],
    presencePenalty: body.presence_penalty ?? undefined,
    frequencyPenalty: body.frequency_penalty ?? undefined,
    seed: body.seed ?? undefined,
    // The caller owns retries, as it would against the upstream directly.
    maxRetries: 0,
    abortSignal: signal,
  };
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);

  if (body.stream !== true) {
    const result = await ai.generateText(options).catch((err) => Promise.reject(asGatewayError(err, client.provider)));
    const usage = toUsage(result.usage);
    const toolCalls = result.toolCalls.map((c) => ({ id: c.toolCallId, type: 'function' as const, function: { name: c.toolName, arguments: JSON.stringify(c.input ?? {}) } }));
    const answer = {
      id,
      object: 'chat.completion',
      created,
      model: modelName,
      choices: [{ index: 0, message: { role: 'assistant', content: result.text || (toolCalls.length ? null : ''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finishReason(result.finishReason), logprobs: null }],
      usage: toOpenAI(usage),
    };
    const text = JSON.stringify(answer);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return { usage };
  }

  const stream = ai.streamText({ ...options, onError: () => undefined });
  const chunk = (delta: Record<string, unknown>, finish: FinishReason | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelName, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(chunk({ role: 'assistant', content: '' }));
  };
  let usage: Usage | undefined;
  let toolIndex = 0;
  for await (const part of stream.fullStream) {
    switch (part.type) {
      case 'text-delta':
        start();
        if (part.text) res.write(chunk({ content: part.text }));
        break;
      case 'tool-call':
        start();
        res.write(chunk({ tool_calls: [{ index: toolIndex++, id: part.toolCallId, type: 'function', function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) } }] }));
        break;
      case 'finish':
        start();
        usage = toUsage(part.totalUsage);
        res.write(chunk({}, finishReason(part.finishReason)));
        break;
      case 'error': {
        const error = asGatewayError(part.error, client.provider);
        // Before the first byte the caller gets a real status; after it, OpenAI's in-stream error frame.
        if (!started) throw error;
        res.write(`data: ${JSON.stringify({ error: { message: error.message, type: error.type, code: error.code } })}\n\n`);
        break;
      }
      case 'abort':
        res.end();
        return { usage };
    }
  }
  start();
  if (body.stream_options?.include_usage && usage) {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelName, choices: [], usage: toOpenAI(usage) })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
  return { usage };
}

function toolsOf(tools: ToolDefinition[] | undefined, ai: Awaited<ReturnType<typeof loadAi>>) {
  if (!tools?.length) return undefined;
  const out: Record<string, any> = {};
  for (const [i, t] of tools.entries()) {
    if (t?.type !== 'function' || !t.function?.name) throw invalidRequest(`tools[${i}] must be {type: "function", function: {name, description?, parameters?}}`);
    out[t.function.name] = ai.tool({ description: t.function.description, inputSchema: ai.jsonSchema((t.function.parameters ?? { type: 'object', properties: {} }) as any) });
  }
  return out;
}

function toolChoiceOf(choice: ToolChoice | undefined) {
  if (choice === undefined) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (choice && typeof choice === 'object' && choice.type === 'function' && choice.function?.name) return { type: 'tool' as const, toolName: choice.function.name };
  throw invalidRequest('tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
}

function finishReason(reason: string | undefined): FinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'tool-calls') return 'tool_calls';
  if (reason === 'content-filter') return 'content_filter';
  return 'stop';
}

/** An upstream's refusal under its own status, in OpenAI's shape. */
function asGatewayError(err: unknown, provider: string): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { statusCode?: number; message?: string; name?: string };
  const status = typeof e?.statusCode === 'number' && e.statusCode >= 400 ? e.statusCode : 502;
  const message = `provider "${provider}" ${typeof e?.statusCode === 'number' ? `answered ${e.statusCode}` : 'failed'}${e?.message ? `: ${String(e.message).slice(0, 500)}` : ''}`;
  return new GatewayError(status, message, errorType(status), status === 502 ? 'upstream_error' : null);
}
