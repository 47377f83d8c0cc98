/**
 * The ONE model<->tool loop, used by chat, delegate, workflow agent nodes and builds: a model step
 * (streamed), the tool calls of that step batched through the registry (read-only four at a time,
 * the rest serially, results in call order, the permission gate per call), again, until the model
 * answers without tools, `maxTurns` is reached or the signal fires.
 *
 * Tools are handed to the SDK WITHOUT `execute`: the SDK only reports the calls and we run them
 * through the registry, so a garbled call (unknown name, bad JSON) becomes a teaching error as
 * the tool result, never a crash.
 */
import type { LanguageModelUsage, ModelMessage, TextStreamPart, ToolSet } from 'ai';
import { isEngineError } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import { emptyUsage, type Usage } from '../kernel/runs.js';
import { withExtraBody } from '../providers/extra-body.js';
import { providerErrorSentence, withRetry } from '../providers/retry.js';
import { loadAi } from '../providers/sdk.js';
import type { ModelClient } from '../providers/types.js';
import type { AnyTool, CallOutcome, ToolCall } from '../tools/types.js';
import { compactionCut, estimateTokens, summarise, summaryMessage } from './compaction.js';
import type { AgentResult, AgentStatus, GenerationSettings, RunAgentOptions } from './types.js';

interface StepOutcome {
  text: string;
  reasoning: string;
  reasoningMeta?: Record<string, any>;
  calls: ToolCall[];
  usage?: Usage;
  aborted: boolean;
}

export async function runAgent(o: RunAgentOptions): Promise<AgentResult> {
  const { ctx } = o;
  const messages: ModelMessage[] = [...o.messages];
  const added: ModelMessage[] = [];
  const usage = emptyUsage();
  const window = o.compaction?.window ?? o.model.contextWindow;
  let turns = 0;
  let text = '';
  /** Text streamed by the step in progress (reset when its message is pushed). */
  let stepText = '';
  // The context size measured by the provider at the last step, and how many messages it covered.
  let measured: { tokens: number; count: number } | undefined;

  const push = (m: ModelMessage) => {
    messages.push(m);
    added.push(m);
    o.onMessage?.(m);
  };
  const done = (status: AgentStatus, error?: string): AgentResult => ({ status, text, messages, added, usage, turns, error });
  const contextTokens = () =>
    measured ? measured.tokens + estimateTokens(messages.slice(measured.count)) : estimateTokens(messages, o.system);

  try {
    for (;;) {
      if (ctx.signal.aborted) return done('stopped');
      if (turns >= o.maxTurns) return done('max_turns');
      const visible = await o.tools.visible(o.allowlist);
      // The tool definitions count against the window too (when a budget counted them).
      // A measured size already holds the tools of the step it measured.
      const toolTokens = o.tools.lastTokens?.() ?? 0;
      const requestTokens = () => contextTokens() + (measured ? 0 : toolTokens);
      if (o.compaction && requestTokens() > o.compaction.fraction * window) {
        const compacted = await compact(o, messages, contextTokens(), usage);
        if (compacted) {
          messages.splice(0, messages.length, ...compacted);
          measured = undefined;
        }
        if (ctx.signal.aborted) return done('stopped');
      }
      // Never let the server cut the conversation silently: a request that cannot fit is refused with a sentence.
      if (o.tools.lastTokens && requestTokens() + reserve(window) > window) {
        return done('failed', overflowSentence(requestTokens() - toolTokens, toolTokens, window));
      }
      turns++;
      let streamed = false;
      stepText = '';
      const step = await withRetry(
        () =>
          modelStep(o, messages, visible, {
            onDelta: (t) => {
              streamed = true;
              stepText += t;
              o.onDelta?.(t);
            },
            onReasoning: (t) => {
              streamed = true;
              o.onReasoning?.(t);
            },
          }),
        { signal: ctx.signal, emit: ctx.emit, provider: o.model.provider, model: o.model.modelId, canRetry: () => !streamed },
      );
      text = step.text;
      if (step.usage) countUsage(o, usage, step.usage);
      // A stopped step keeps its partial text but drops half-streamed tool calls.
      const calls = step.aborted ? [] : step.calls;
      stepText = '';
      if (step.text || calls.length) push(assistantMessage(o.model, step, calls));
      if (step.usage) {
        measured = { tokens: step.usage.input + step.usage.output, count: messages.length };
        o.onContext?.(measured.tokens, window);
      } else {
        o.onContext?.(contextTokens(), window);
      }
      if (step.aborted || ctx.signal.aborted) return done('stopped');
      if (!calls.length) return done('completed');

      const outcomes = await o.tools.runBatch(
        calls,
        { signal: ctx.signal, emit: ctx.emit, runId: ctx.runId, agent: ctx.agent, attended: ctx.attended, depth: ctx.depth ?? 0, sessionId: ctx.sessionId, authors: ctx.authors },
        { allowlist: o.allowlist, gate: o.gate },
      );
      push({
        role: 'tool',
        content: outcomes.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.callId,
          toolName: r.name,
          output: toolOutput(r),
        })),
      });
      if (ctx.signal.aborted) return done('stopped');
    }
  } catch (err) {
    // A step that failed after streaming text keeps it, as a stopped step does: the user saw it.
    if (stepText) {
      text = stepText;
      push({ role: 'assistant', content: [{ type: 'text', text: stepText }] });
    }
    if (ctx.signal.aborted) return done('stopped');
    return done('failed', isEngineError(err) ? err.message : providerErrorSentence(o.model.provider, err));
  }
}

/** Tokens kept free for the reply when deciding whether a request fits. */
const reserve = (window: number) => Math.min(LIMITS.windowReserveTokens, Math.floor(window / 8));

function overflowSentence(conversation: number, tools: number, window: number): string {
  return (
    `this request would not fit the model's ${window}-token context window (about ${conversation} tokens of conversation and ${tools} of tool definitions, ` +
    'and nothing older is left to summarise); start a new session or send a shorter message, or use a model with a larger window'
  );
}

/** One streamed model step. Throws a provider failure (so withRetry can decide), never on abort. */
async function modelStep(
  o: RunAgentOptions,
  messages: ModelMessage[],
  visible: AnyTool[],
  cb: { onDelta(t: string): void; onReasoning(t: string): void },
): Promise<StepOutcome> {
  const { jsonSchema, streamText, tool } = await loadAi();
  const tools: ToolSet = {};
  for (const t of visible) tools[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.parameters as any) });
  const s = o.settings ?? {};
  const out: StepOutcome = { text: '', reasoning: '', calls: [], aborted: false };
  return withExtraBody(s.extraBody, async () => {
    const result = streamText({
      model: o.model.model,
      system: o.system,
      messages,
      tools: visible.length ? tools : undefined,
      maxRetries: 0,
      abortSignal: o.ctx.signal,
      temperature: s.temperature,
      topP: s.topP,
      maxOutputTokens: s.maxTokens,
      seed: s.seed,
      providerOptions: providerOptions(o.model, s),
      // Failures arrive as stream parts and are rethrown below; the SDK must not log them itself.
      onError: () => undefined,
    });
    try {
      for await (const part of result.fullStream) {
        if (!handlePart(part)) break;
      }
    } catch (err) {
      // An abort can surface as a thrown AbortError; the partial reply is kept.
      if (!o.ctx.signal.aborted) throw err;
    }
    if (o.ctx.signal.aborted) out.aborted = true;
    return out;
  });

  /** Folds one stream part into the outcome; false ends the stream. Throws a provider failure. */
  function handlePart(part: TextStreamPart<ToolSet>): boolean {
    switch (part.type) {
      case 'text-delta':
        out.text += part.text;
        cb.onDelta(part.text);
        break;
      case 'reasoning-delta':
        out.reasoning += part.text;
        if (part.providerMetadata) out.reasoningMeta = part.providerMetadata;
        cb.onReasoning(part.text);
        break;
      case 'reasoning-end':
        if (part.providerMetadata) out.reasoningMeta = part.providerMetadata;
        break;
      case 'tool-call':
        out.calls.push({ callId: part.toolCallId, name: part.toolName, args: toArgs(part.input) });
        break;
      case 'finish-step':
        out.usage = toUsage(part.usage);
        break;
      case 'abort':
        out.aborted = true;
        return false;
      case 'error':
        if (o.ctx.signal.aborted) {
          out.aborted = true;
          return false;
        }
        throw part.error;
    }
    return true;
  }
}

/** What the registry gets: a JSON object, or the raw text of anything else (it answers with a teaching error). */
function toArgs(input: unknown): ToolCall['args'] {
  if (input && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  if (input === undefined || input === null || input === '') return {};
  return typeof input === 'string' ? input : JSON.stringify(input);
}

/** The AI SDK's usage in the ledger's shape (also the gateway's, for upstreams it translates). */
export function toUsage(u: LanguageModelUsage | undefined): Usage {
  return {
    input: u?.inputTokens ?? 0,
    output: u?.outputTokens ?? 0,
    cached: u?.inputTokenDetails?.cacheReadTokens ?? u?.cachedInputTokens ?? 0,
    reasoning: u?.outputTokenDetails?.reasoningTokens ?? u?.reasoningTokens ?? 0,
  };
}

/** Adds one model call's usage to the loop's total and emits it as `token.usage`. */
function countUsage(o: RunAgentOptions, total: Usage, u: Usage, purpose?: 'compaction'): void {
  total.input += u.input;
  total.output += u.output;
  total.cached += u.cached;
  total.reasoning += u.reasoning;
  const { ctx, model } = o;
  ctx.emit('token.usage', { ...u, model: model.modelId, provider: model.provider, agent: ctx.agent, sessionId: ctx.sessionId, ...(purpose ? { purpose } : {}) });
}

function assistantMessage(model: ModelClient, step: StepOutcome, calls: ToolCall[]): ModelMessage {
  const content: any[] = [];
  // Anthropic wants a signed thinking block back with tool use; other providers need no reasoning echoed.
  if (step.reasoning && model.type === 'anthropic' && step.reasoningMeta?.anthropic?.signature) {
    content.push({ type: 'reasoning', text: step.reasoning, providerOptions: step.reasoningMeta });
  }
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const c of calls) content.push({ type: 'tool-call', toolCallId: c.callId, toolName: c.name, input: typeof c.args === 'string' ? {} : c.args });
  return { role: 'assistant', content };
}

/** `effort` has no portable option: each provider takes it its own way. */
function providerOptions(model: ModelClient, s: GenerationSettings): Record<string, any> | undefined {
  if (!s.effort) return undefined;
  switch (model.type) {
    case 'openai':
      return { openai: { reasoningEffort: s.effort } };
    case 'openai-compatible':
      return { [model.provider]: { reasoningEffort: s.effort } };
    case 'anthropic':
      return { anthropic: { effort: s.effort } };
  }
}

/** Summarises the older turns; returns the new conversation, or undefined when nothing can be cut. */
async function compact(o: RunAgentOptions, messages: ModelMessage[], tokensBefore: number, usage: Usage): Promise<ModelMessage[] | undefined> {
  const cut = compactionCut(messages, o.compaction?.keepTurns ?? LIMITS.compactKeepTurns);
  if (cut <= 0) return undefined;
  const { ctx } = o;
  const summary = await withRetry(() => summarise(o.model.model, messages.slice(0, cut), ctx.signal), {
    signal: ctx.signal,
    emit: ctx.emit,
    provider: o.model.provider,
    model: o.model.modelId,
  });
  countUsage(o, usage, toUsage(summary.usage), 'compaction');
  if (ctx.signal.aborted || !summary.text) return undefined;
  const next = [summaryMessage(summary.text), ...messages.slice(cut)];
  o.onCompacted?.({ summary: summary.text, replaced: cut, tokensBefore, tokensAfter: estimateTokens(next, o.system) }, next);
  return next;
}

/** A tool's outcome as the model gets it: an error, text, or text with an image (browser_screenshot). */
function toolOutput(r: CallOutcome) {
  if (r.isError) return { type: 'error-text' as const, value: r.text };
  if (!r.image) return { type: 'text' as const, value: r.text };
  return { type: 'content' as const, value: [{ type: 'text' as const, text: r.text }, { type: 'image-data' as const, data: r.image.data, mediaType: r.image.mediaType }] };
}
