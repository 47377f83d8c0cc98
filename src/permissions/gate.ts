/**
 * The permission gate every tool call passes (seed 001 §5). The registry has already refused a
 * `hardDeny`; the gate decides the rest, in this order:
 *   deny rule on any key > protectedPath (only an allow rule for its own key, else a prompt that
 *   no chat mode skips; refused unattended) > forcePrompt (a fresh prompt; chat `allow` mode allows it) >
 *   allow rules covering every key > session mode `allow` > the class default.
 * Class defaults (seed table): attended, `code`/`delete`/`unknown` prompt and `other` is allowed;
 * unattended, `code` takes the configured unattended default and everything else is allowed.
 * A prompt is `permission.requested`, ended by `permission.resolved` (a person answered, or the chat
 * mode moved to `allow`) or `permission.denied` (stopped, or denied without a person).
 */
import { notFound, badRequest } from '../kernel/errors.js';
import { LIMITS } from '../kernel/limits.js';
import type { Emit } from '../kernel/bus.js';
import type { AnyTool, Decision, Gate, PermissionClass, PermissionRequest, ToolContext } from '../tools/types.js';
import { joinAuthorities, type Authority, type ModelAuthor } from '../kernel/provenance.js';
import { authorRefusal, modelAuthor } from './authorship.js';
import { broaderOf, decide, ruleKeyProblem, type RuleDecision, type RuleStore } from './rules.js';

export type SessionMode = 'ask' | 'allow';

export interface PendingPrompt {
  runId?: string;
  callId: string;
  tool: string;
  class: PermissionClass;
  /** The narrow key offered first. */
  key: string;
  /** The broader key offered after (shell: the program key). */
  broaderKey?: string;
  /** Every literal key of the call that no allow rule covers yet: what `always` may persist, each shown on the prompt. */
  keys: string[];
  /** Masked text a person reads. */
  display: string;
  /** Why a fresh prompt was forced, when it was. */
  reason?: string;
  /** A protected-path prompt: only a person's answer ends it (a chat's `allow` mode does not). */
  protectedPath?: boolean;
  sessionId?: string;
  agent?: string;
  requestedAt: number;
}

export interface ResolveInput {
  runId: string;
  callId: string;
  decision: RuleDecision;
  scope?: 'once' | 'always';
  /** Which offered key `always` persists: the narrow key (default) or the broader one. */
  key?: string;
  /**
   * The prompt's keys the person was shown (a client lists `keys` from the prompt): `always` saves
   * these and nothing else. Absent, it saves the chosen key alone, the one key every prompt shows.
   */
  keys?: string[];
}

interface Waiter {
  prompt: PendingPrompt;
  emit: Emit;
  answering: boolean;
  settle(decision: Decision): void;
}

export interface PermissionGateOptions {
  rules: RuleStore;
  /** Masks secret-shaped text before it reaches a prompt or an event. */
  mask?: (text: string) => string;
}

const waiterId = (runId: string | undefined, callId: string) => `${runId ?? ''}\u0000${callId}`;

export class PermissionGate implements Gate {
  private readonly waiters = new Map<string, Waiter>();
  /** Model-authored things a run took on midway (a skill it loaded), by run id, until the run ends. */
  private readonly taken = new Map<string, Authority[]>();
  private modeLookup: (sessionId: string) => SessionMode | undefined = () => undefined;
  private readonly rules: RuleStore;
  private readonly mask: (text: string) => string;

  constructor(options: PermissionGateOptions) {
    this.rules = options.rules;
    this.mask = options.mask ?? ((t) => t);
  }

  /** How the gate reads a chat session's permission mode; re-read on every call and on release. */
  setModeLookup(fn: (sessionId: string) => SessionMode | undefined): void {
    this.modeLookup = fn;
  }

  async check(tool: AnyTool, request: PermissionRequest, args: Record<string, unknown>, ctx: ToolContext): Promise<Decision> {
    const keys = request.keys?.length ? request.keys : [request.key];
    if (ctx.signal.aborted) return this.denyWithoutPrompt(ctx, tool, request.key, stoppedReason(request.key));
    const file = await this.rules.get();

    for (const key of keys) {
      if (decide(file.rules, key) === 'deny') {
        return this.denyWithoutPrompt(ctx, tool, key, `Permission denied for ${key} by a saved rule; do not retry the same call. Choose another approach or ask the user to change the rule.`);
      }
    }
    // Unattended under something a model wrote: decided as its author would have been (authorship.ts).
    const authors = ctx.attended ? undefined : joinAuthorities(ctx.authors, ctx.runId ? this.taken.get(ctx.runId) : undefined);
    if (authors) {
      const refusal = authorRefusal(authors, tool.name, request, keys, file.rules);
      if (refusal) return this.denyWithoutPrompt(ctx, tool, request.key, refusal, { authored: true });
    }
    const mode = this.mode(ctx);
    const unmatched = keys.filter((k) => decide(file.rules, k) !== 'allow');

    if (request.protectedPath) {
      if (decide(file.rules, request.key) === 'allow') return { allow: true };
      if (!ctx.attended) {
        return this.denyWithoutPrompt(
          ctx,
          tool,
          request.key,
          `Permission denied for ${request.key}: ${request.protectedPath}. Nobody is watching this run, so it is refused; do not retry the same call. A person can allow it with a rule for ${request.key} at /api/permissions.`,
        );
      }
      return this.prompt(tool, request, [request.key], args, ctx);
    }

    if (request.forcePrompt) {
      if (mode === 'allow') return { allow: true };
      if (!ctx.attended) return this.unattended(ctx, tool, request.key, file.unattended);
      return this.prompt(tool, request, unmatched, args, ctx);
    }
    if (unmatched.length === 0) return { allow: true };
    if (mode === 'allow') return { allow: true };
    if (request.class === 'other') return { allow: true };
    if (!ctx.attended) {
      return request.class === 'code' ? this.unattended(ctx, tool, unmatched[0], file.unattended) : { allow: true };
    }
    return this.prompt(tool, request, unmatched, args, ctx);
  }

  /** Answers a waiting prompt; `always` persists the rule(s) before the call is unblocked. */
  async resolve(input: ResolveInput): Promise<void> {
    const waiter = this.waiters.get(waiterId(input.runId || undefined, input.callId));
    if (!waiter || waiter.answering) {
      throw notFound(
        `no permission prompt is waiting for call "${input.callId}" in run "${input.runId}"; it was answered already, stopped, or never asked. GET /api/permissions/pending lists the waiting prompts`,
      );
    }
    const { prompt } = waiter;
    const offered = [prompt.key, ...(prompt.broaderKey ? [prompt.broaderKey] : [])];
    const chosen = input.key === undefined ? prompt.key : offered.find((k) => k === input.key || this.mask(k) === input.key);
    if (chosen === undefined) {
      throw badRequest(`key must be one of the offered keys: ${offered.map((k) => `"${this.mask(k)}"`).join(' or ')}`);
    }
    const shown = (input.keys ?? []).map((k) => {
      const key = prompt.keys.find((p) => p === k || this.mask(p) === k);
      if (key === undefined) throw badRequest(`keys must list only the prompt's keys (${prompt.keys.map((p) => `"${this.mask(p)}"`).join(', ')}); "${this.mask(k)}" is not one of them`);
      return key;
    });
    const scope = input.scope ?? 'once';
    const rules = scope === 'always' ? this.savableRules(prompt, chosen, shown, input.decision) : [];
    waiter.answering = true;
    if (scope === 'always') {
      try {
        await this.rules.add(...rules);
      } catch (err) {
        waiter.answering = false;
        throw err;
      }
    }
    const shownKey = this.mask(chosen);
    waiter.emit('permission.resolved', { callId: prompt.callId, tool: prompt.tool, decision: input.decision, scope, key: shownKey });
    waiter.settle(
      input.decision === 'allow'
        ? { allow: true }
        : { allow: false, reason: `Permission denied for ${shownKey} by the user; do not retry the same call. Ask the user what to do instead.` },
    );
  }

  /** Re-reads the mode of a session's blocked prompts: `allow` releases them (seed 001 §5 rule 6). */
  releaseSession(sessionId: string): void {
    if (this.modeLookup(sessionId) !== 'allow') return;
    for (const waiter of [...this.waiters.values()]) {
      if (waiter.prompt.sessionId !== sessionId || waiter.answering || waiter.prompt.protectedPath) continue;
      waiter.answering = true;
      waiter.emit('permission.resolved', { callId: waiter.prompt.callId, tool: waiter.prompt.tool, decision: 'allow', scope: 'once', key: waiter.prompt.key, by: 'mode' });
      waiter.settle({ allow: true });
    }
  }

  /** The author a call stamps on what it saves: its run, its session's mode and the rules in force now. */
  async authorOf(ctx: Pick<ToolContext, 'runId' | 'sessionId' | 'attended' | 'authors'>): Promise<ModelAuthor> {
    const file = await this.rules.get();
    return modelAuthor(ctx, file.rules, ctx.sessionId ? this.modeLookup(ctx.sessionId) : undefined);
  }

  /** A run follows something a model wrote from now on (a loaded skill): its later calls are gated as that author too. */
  takeOn(runId: string, authority: Authority[]): void {
    const joined = joinAuthorities(this.taken.get(runId), authority);
    if (joined) this.taken.set(runId, joined);
  }

  /** The run ended. */
  forgetRun(runId: string): void {
    this.taken.delete(runId);
  }

  /** Every prompt waiting on a person, oldest first. */
  pending(): PendingPrompt[] {
    return [...this.waiters.values()].filter((w) => !w.answering).map((w) => this.shown(w.prompt));
  }

  private mode(ctx: ToolContext): SessionMode | undefined {
    if (!ctx.sessionId) return undefined;
    try {
      return this.modeLookup(ctx.sessionId);
    } catch {
      return undefined;
    }
  }

  /** The prompt as a person (and every event, listing and log) sees it: keys masked like the text. */
  private shown(prompt: PendingPrompt): PendingPrompt {
    return { ...prompt, key: this.mask(prompt.key), broaderKey: prompt.broaderKey && this.mask(prompt.broaderKey), keys: prompt.keys.map(this.mask) };
  }

  // `always` saves only what the person was shown (issue 38 §3): the chosen key (the narrow key, or
  // the broader key in its place) and the other keys the client says its card listed. Keys naming a
  // command only known at run time are never saved; a key holding a secret refuses `always` outright.
  private savableRules(prompt: PendingPrompt, chosen: string, shown: string[], decision: RuleDecision) {
    const chosenKeys = decision === 'deny' ? [chosen] : [chosen, ...shown.filter((k) => k !== prompt.key)];
    const secret = chosenKeys.find((k) => ruleKeyProblem(k, this.mask) === 'holds a secret-shaped value');
    if (secret) {
      throw badRequest(`scope "always" would save the rule ${this.mask(secret)}, which holds a secret-shaped value; answer with scope "once", or write a rule without the secret at POST /api/permissions/rule`);
    }
    const literal = chosenKeys.filter((k) => !ruleKeyProblem(k));
    if (!literal.length) {
      throw badRequest(`scope "always" has no rule to save: ${this.mask(chosen)} names a command only known when the shell runs it; answer with scope "once"`);
    }
    return [...new Set(literal)].map((key) => ({ key, decision }));
  }

  private unattended(ctx: ToolContext, tool: AnyTool, key: string, fallback: RuleDecision): Decision {
    if (fallback === 'allow') return { allow: true };
    return this.denyWithoutPrompt(
      ctx,
      tool,
      key,
      `Permission denied for ${key}: nobody is watching this run and the unattended default is deny; do not retry the same call. A person can allow it with a rule at /api/permissions.`,
    );
  }

  private denyWithoutPrompt(ctx: ToolContext, tool: AnyTool, key: string, reason: string, extra?: Record<string, unknown>): Decision {
    ctx.emit('permission.denied', { callId: ctx.callId, tool: tool.name, key: this.mask(key), reason: this.mask(reason), ...extra });
    return { allow: false, reason: this.mask(reason) };
  }

  private prompt(tool: AnyTool, request: PermissionRequest, unmatched: string[], args: Record<string, unknown>, ctx: ToolContext): Promise<Decision> {
    const key = unmatched[0] ?? request.key;
    const broaderKey = key === request.key ? request.broaderKey : broaderOf(key);
    const prompt: PendingPrompt = {
      runId: ctx.runId,
      callId: ctx.callId,
      tool: tool.name,
      class: request.class,
      key,
      broaderKey: broaderKey && broaderKey !== key ? broaderKey : undefined,
      // Only literal keys are listed: the list is exactly what `always` saves.
      keys: (unmatched.length ? unmatched : [request.key]).filter((k) => ruleKeyProblem(k) === undefined),
      display: this.mask(request.display ?? callDisplay(request.key, args)),
      reason: request.forcePrompt || request.protectedPath ? this.mask((request.forcePrompt || request.protectedPath)!) : undefined,
      protectedPath: request.protectedPath ? true : undefined,
      sessionId: ctx.sessionId,
      agent: ctx.agent,
      requestedAt: Date.now(),
    };
    const id = waiterId(ctx.runId, ctx.callId);
    if (this.waiters.has(id)) {
      return Promise.resolve({ allow: false, reason: `Call "${ctx.callId}" is already waiting for permission; use a new call id.` });
    }
    return new Promise<Decision>((resolve) => {
      const onAbort = () => {
        if (waiter.answering) return;
        waiter.answering = true;
        ctx.emit('permission.denied', { callId: ctx.callId, tool: tool.name, key: this.mask(key), reason: 'stopped' });
        waiter.settle({ allow: false, reason: stoppedReason(key) });
      };
      const waiter: Waiter = {
        prompt,
        emit: ctx.emit,
        answering: false,
        settle: (decision) => {
          ctx.signal.removeEventListener('abort', onAbort);
          this.waiters.delete(id);
          resolve(decision);
        },
      };
      this.waiters.set(id, waiter);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const shown = this.shown(prompt);
      ctx.emit('permission.requested', {
        callId: prompt.callId,
        tool: prompt.tool,
        class: prompt.class,
        key: shown.key,
        broaderKey: shown.broaderKey,
        keys: shown.keys,
        display: prompt.display,
        reason: prompt.reason,
        protectedPath: prompt.protectedPath,
        sessionId: prompt.sessionId,
        agent: prompt.agent,
      });
      // The mode may have moved to `allow` between the check above and this prompt.
      if (ctx.sessionId && this.mode(ctx) === 'allow') this.releaseSession(ctx.sessionId);
    });
  }
}

/**
 * What a prompt shows for a tool that writes no display of its own (MCP tools, the vault tool ...):
 * the key and the arguments the call will run with, so a person approves what runs, not a name.
 */
export function callDisplay(key: string, args: Record<string, unknown>): string {
  if (!args || !Object.keys(args).length) return key;
  const text = JSON.stringify(args, null, 2);
  const max = LIMITS.promptDisplayChars;
  return `${key}\n${text.length > max ? `${text.slice(0, max)}\n[clipped: ${text.length} characters of arguments, the first ${max} shown]` : text}`;
}

function stoppedReason(key: string): string {
  return `Permission for ${key} was not given: the run was stopped while the call waited (stopped).`;
}
