/**
 * The `local` provider type: an AI SDK language model (specification v3) backed by the model
 * worker (src/capabilities/models/worker-host.ts). `model` is the downloaded repo (org/name); no
 * key. Replies stream token by token, an abort stops between tokens, usage counts real tokens, and
 * Hermes / Qwen `<tool_call>` blocks become tool calls when the request carries tools.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { ToolCallSplitter } from './tool-calls.js';
import type { ChatMessageIn, GenerateRequest, GenerateResult } from './types.js';

/** What the provider needs of the engine's local models. */
export interface LocalRuntime {
  generate(repo: string, req: GenerateRequest, onToken: (t: string) => void, signal?: AbortSignal): Promise<GenerateResult>;
  /** Token counts with the model's own tokenizer. */
  countTokens?(repo: string, texts: string[]): Promise<number[]>;
}

const usageOf = (r: GenerateResult): LanguageModelV3Usage => ({
  inputTokens: { total: r.inputTokens, noCache: r.inputTokens, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: r.outputTokens, text: r.outputTokens, reasoning: 0 },
});

function partText(p: any): string {
  if (p.type === 'text' || p.type === 'reasoning') return p.text;
  return '';
}

/** A message's text parts as one text: separate parts stay separate words and lines (a caller's ["Hello", "world"] is not "Helloworld"). */
const joinParts = (texts: string[]) => texts.filter((t) => t).join('\n');

function toolOutput(o: any): string {
  if (!o) return '';
  if (o.type === 'text' || o.type === 'error-text') return String(o.value);
  if (o.type === 'json' || o.type === 'error-json') return JSON.stringify(o.value);
  if (o.type === 'execution-denied') return `denied${o.reason ? `: ${o.reason}` : ''}`;
  if (o.type === 'content') return joinParts((o.value ?? []).map((v: any) => (v.type === 'text' ? v.text : '')));
  return JSON.stringify(o.value ?? o);
}

/** The AI SDK prompt as chat-template messages (tool calls as `tool_calls`, results as `tool` turns). */
export function templateMessages(options: LanguageModelV3CallOptions): ChatMessageIn[] {
  const out: ChatMessageIn[] = [];
  for (const m of options.prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else if (m.role === 'user') out.push({ role: 'user', content: joinParts(m.content.map(partText)) });
    else if (m.role === 'assistant') {
      const calls = m.content.filter((p) => p.type === 'tool-call') as any[];
      out.push({
        role: 'assistant',
        content: joinParts(m.content.map(partText)),
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.toolCallId, type: 'function', function: { name: c.toolName, arguments: typeof c.input === 'string' ? safeJson(c.input) : c.input } })) } : {}),
      });
    } else if (m.role === 'tool') {
      for (const r of m.content) if (r.type === 'tool-result') out.push({ role: 'tool', name: r.toolName, content: toolOutput(r.output) });
    }
  }
  return out;
}

const safeJson = (s: string) => {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

function requestOf(options: LanguageModelV3CallOptions): GenerateRequest {
  const tools = (options.tools ?? []).filter((t) => t.type === 'function').map((t: any) => ({ type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema } }));
  return {
    messages: templateMessages(options),
    ...(tools.length && options.toolChoice?.type !== 'none' ? { tools } : {}),
    ...(options.maxOutputTokens ? { maxTokens: options.maxOutputTokens } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.topP !== undefined ? { topP: options.topP } : {}),
  };
}

const finishOf = (r: GenerateResult, calls: number) => ({ unified: calls ? 'tool-calls' : r.finish === 'length' ? 'length' : r.finish === 'aborted' ? 'other' : 'stop', raw: r.finish }) as const;

export function localLanguageModel(runtime: LocalRuntime, repo: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'local',
    modelId: repo,
    supportedUrls: {},
    async doGenerate(options) {
      const req = requestOf(options);
      const content: LanguageModelV3Content[] = [];
      let text = '';
      const splitter = new ToolCallSplitter({
        text: (t) => (text += t),
        call: (c) => content.push({ type: 'tool-call', toolCallId: `call_${randomUUID().slice(0, 8)}`, toolName: c.name, input: JSON.stringify(c.arguments) }),
      });
      const r = await runtime.generate(repo, req, req.tools ? (t) => splitter.push(t) : (t) => (text += t), options.abortSignal);
      splitter.end();
      const calls = content.length;
      if (text) content.unshift({ type: 'text', text });
      return { content, finishReason: finishOf(r, calls) as any, usage: usageOf(r), warnings: [] };
    },
    async doStream(options) {
      const req = requestOf(options);
      let controller!: ReadableStreamDefaultController<LanguageModelV3StreamPart>;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({ start: (c) => void (controller = c) });
      const textId = 'txt-0';
      let open = false;
      let calls = 0;
      const text = (delta: string) => {
        if (!delta) return;
        if (!open) controller.enqueue({ type: 'text-start', id: textId });
        open = true;
        controller.enqueue({ type: 'text-delta', id: textId, delta });
      };
      const splitter = new ToolCallSplitter({
        text,
        call: (c) => {
          calls++;
          const id = `call_${randomUUID().slice(0, 8)}`;
          const input = JSON.stringify(c.arguments);
          controller.enqueue({ type: 'tool-input-start', id, toolName: c.name });
          controller.enqueue({ type: 'tool-input-delta', id, delta: input });
          controller.enqueue({ type: 'tool-input-end', id });
          controller.enqueue({ type: 'tool-call', toolCallId: id, toolName: c.name, input });
        },
      });
      controller.enqueue({ type: 'stream-start', warnings: [] });
      controller.enqueue({ type: 'response-metadata', modelId: repo, timestamp: new Date() });
      runtime.generate(repo, req, req.tools ? (t) => splitter.push(t) : text, options.abortSignal).then(
        (r) => {
          splitter.end();
          if (open) controller.enqueue({ type: 'text-end', id: textId });
          controller.enqueue({ type: 'finish', usage: usageOf(r), finishReason: finishOf(r, calls) as any });
          controller.close();
        },
        (err) => {
          controller.enqueue({ type: 'error', error: err });
          controller.close();
        },
      );
      return { stream };
    },
  };
}
