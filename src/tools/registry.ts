/**
 * The one tool registry, built-in and MCP alike. Every call goes the seed's way:
 * coerce -> validate -> allowlist -> gate -> run -> clip, with `tool.call` / `tool.result` events.
 */
import { conflict, describeError, isEngineError } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import { clipResult } from './clip.js';
import { coerceArgs, validateArgs } from './coerce.js';
import {
  allowAllGate,
  type AnyTool,
  type CallOutcome,
  type Gate,
  type PermissionRequest,
  type ToolCall,
  type ToolContext,
} from './types.js';

export interface ToolDescriptor {
  name: string;
  description: string;
  source: string;
  group: string;
  available: boolean;
  /** The JSON Schema of the arguments (what a model is given). */
  parameters: Record<string, unknown>;
}

/** Per-call options beyond the tool context. */
export interface CallOptions {
  /** Exact tool names this caller may use (an agent's `tools:`); undefined means all. */
  allowlist?: ReadonlySet<string>;
  /** Replaces the registry's gate for this call (a chat session's mode-aware gate, a subagent's parent gate). */
  gate?: Gate;
}

export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private gate: Gate = allowAllGate;
  private mask: (text: string) => string = (t) => t;
  private beforeWrite: ((ctx: ToolContext) => Promise<AfterWrite>) | undefined;

  register(...tools: AnyTool[]): void {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw conflict(`a tool named "${tool.name}" is already registered`);
      this.tools.set(tool.name, tool);
    }
  }

  /** Removes tools (an MCP server disconnecting). */
  unregister(...names: string[]): void {
    for (const name of names) this.tools.delete(name);
  }

  /** The default permission gate for calls that bring none. */
  setGate(gate: Gate): void {
    this.gate = gate;
  }

  /**
   * Called once a call that may change files (any tool not marked readOnly) has passed the gate and
   * before it runs, for calls that belong to a run: the checkpoints take their snapshot here. What it
   * answers runs when the call has ended, however it ended (a checkpoint is kept only if a root changed).
   */
  setBeforeWrite(hook: (ctx: ToolContext) => Promise<AfterWrite>): void {
    this.beforeWrite = hook;
  }

  /** Masks secret-shaped text in tool arguments before they reach an event. */
  setMask(mask: (text: string) => string): void {
    this.mask = mask;
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  all(): AnyTool[] {
    return [...this.tools.values()];
  }

  isAvailable(tool: AnyTool): boolean {
    try {
      return tool.available ? tool.available() : true;
    } catch {
      return false;
    }
  }

  describe(): ToolDescriptor[] {
    return this.all().map((t) => ({
      name: t.name,
      description: clipText(t.description, LIMITS.toolDescriptionChars),
      source: t.source ?? 'built-in',
      group: t.group,
      available: this.isAvailable(t),
      parameters: t.parameters,
    }));
  }

  /** The tools a model may be shown: in the allowlist and available now. */
  visible(allowlist?: ReadonlySet<string>): AnyTool[] {
    return this.all().filter((t) => (allowlist ? allowlist.has(t.name) : !t.optIn) && this.isAvailable(t));
  }

  /**
   * Runs one model batch: consecutive read-only calls run together, four at a time; every other
   * call runs alone, in order. Outcomes come back in call order.
   */
  async runBatch(calls: ToolCall[], ctx: Omit<ToolContext, 'callId'>, options: CallOptions = {}): Promise<CallOutcome[]> {
    const outcomes: CallOutcome[] = new Array(calls.length);
    let i = 0;
    while (i < calls.length) {
      if (!this.isReadOnly(calls[i].name)) {
        outcomes[i] = await this.call(calls[i], ctx, options);
        i++;
        continue;
      }
      let j = i;
      while (j < calls.length && this.isReadOnly(calls[j].name)) j++;
      await mapLimit(calls.slice(i, j), LIMITS.parallelReadOnlyTools, async (call, k) => {
        outcomes[i + k] = await this.call(call, ctx, options);
      });
      i = j;
    }
    return outcomes;
  }

  /** Only built-in tools may run concurrently; an MCP tool runs serially whatever it declares (seed 001 §1). */
  private isReadOnly(name: string): boolean {
    const tool = this.tools.get(name);
    return tool?.readOnly === true && (tool.source ?? 'built-in') === 'built-in';
  }

  /** One call, never throwing: every failure comes back as a teaching error text. */
  async call(call: ToolCall, base: Omit<ToolContext, 'callId'>, options: CallOptions = {}): Promise<CallOutcome> {
    const ctx: ToolContext = { ...base, callId: call.callId };
    const started = Date.now();
    ctx.emit('tool.call', { callId: call.callId, tool: call.name, args: this.maskValue(call.args), agent: ctx.agent });
    const finish = (text: string, isError: boolean, out: Pick<CallOutcome, 'image' | 'diff'> = {}): CallOutcome => {
      const diff = out.diff ? this.mask(out.diff) : undefined;
      ctx.emit('tool.result', {
        callId: call.callId,
        tool: call.name,
        ok: !isError,
        result: this.mask(clipText(text, LIMITS.toolEventResultChars)),
        durationMs: Date.now() - started,
        ...(diff ? { diff } : {}),
      });
      return { callId: call.callId, name: call.name, text, isError, ...(out.image ? { image: out.image } : {}), ...(diff ? { diff } : {}) };
    };
    try {
      const out = await this.execute(call, ctx, options);
      return finish(out.text, false, out);
    } catch (err) {
      if (err instanceof ToolRefusal || isEngineError(err)) return finish(describeError(err), true);
      if (ctx.signal.aborted) return finish(`Tool "${call.name}" was stopped before it finished.`, true);
      return finish(`Tool "${call.name}" failed: ${describeError(err)}`, true);
    }
  }

  private async execute(call: ToolCall, ctx: ToolContext, options: CallOptions): Promise<{ text: string; image?: CallOutcome['image']; diff?: string }> {
    const tool = this.tools.get(call.name);
    if (!tool) {
      const names = this.visible(options.allowlist).map((t) => t.name);
      throw new ToolRefusal(`Unknown tool "${call.name}". Call one of the tools you were given: ${names.join(', ') || '(none)'}.`);
    }
    if (options.allowlist ? !options.allowlist.has(tool.name) : tool.optIn) {
      throw new ToolRefusal(`Tool "${tool.name}" is not available to this agent (not in its allowlist)`);
    }
    if (!this.isAvailable(tool)) throw new ToolRefusal(tool.unavailableReason ?? `Tool "${tool.name}" is not available right now.`);
    if (typeof call.args === 'string') {
      throw new ToolRefusal(
        `Invalid arguments for tool "${tool.name}": the arguments must be one JSON object (got ${JSON.stringify(call.args.slice(0, 200))}). Call it again with a JSON object.`,
      );
    }
    const args = coerceArgs(call.args, tool.parameters);
    const invalid = validateArgs(tool.name, args, tool.parameters);
    if (invalid) throw new ToolRefusal(invalid);
    const request: PermissionRequest =
      typeof tool.permission === 'function' ? await tool.permission(args, ctx) : { class: tool.permission, key: tool.name };
    if (request.hardDeny) throw new ToolRefusal(request.hardDeny);
    const decision = await (options.gate ?? this.gate).check(tool, request, args, ctx);
    if (!decision.allow) throw new ToolRefusal(decision.reason);
    if (ctx.signal.aborted) throw new ToolRefusal(`Tool "${tool.name}" was stopped before it started.`);
    const afterWrite = !tool.readOnly && tool.checkpoint !== false && ctx.runId && this.beforeWrite ? await this.beforeWrite(ctx) : undefined;
    let result: Awaited<ReturnType<AnyTool['run']>>;
    try {
      result = await tool.run(args, ctx);
    } finally {
      await afterWrite?.();
    }
    const out = typeof result === 'string' ? { text: result } : result;
    if (out.isError) throw new ToolRefusal(out.unclipped ? out.text : clipResult(out.text));
    return { text: out.unclipped ? out.text : clipResult(out.text), image: out.image, diff: out.diff };
  }

  private maskValue(value: unknown): unknown {
    if (typeof value === 'string') return this.mask(value);
    try {
      return JSON.parse(this.mask(JSON.stringify(value))) as unknown;
    } catch {
      return value;
    }
  }
}

/** What runs once a file-changing call has ended (setBeforeWrite). */
type AfterWrite = (() => Promise<void>) | void;

/** `text` cut to at most `max` characters, an ellipsis marking the cut. */
const clipText = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);

/** A refusal or failure whose message is already a teaching sentence for the model. */
export class ToolRefusal extends Error {}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
