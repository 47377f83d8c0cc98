/**
 * What a model authors never outranks its author (docs/security.md). Two halves, both used by the
 * permission gate (src/kernel/provenance.ts says what is recorded and how a capability adopts it):
 *
 * - `modelAuthor`: the author a tool call stamps on what it saves: its run, the chat's permission
 *   mode (`ask` whenever nobody watches) and the rules in force. A call that itself runs under
 *   model-authored things (a model-written workflow's agent saving another) passes on no more than
 *   they had: `ask`, and only the allow rules every one of them also had.
 * - `authorRefusal`: an unattended call under model-authored things is decided as if each author
 *   were asking: allowed when the author's mode was `allow`, the call is `other`, or a rule the author
 *   had and still in force allows every key; otherwise it would have prompted the author, and nobody
 *   is here to answer, so it fails with a sentence naming the tool, why, and what a person can do.
 */
import type { Authority, ModelAuthor } from '../kernel/provenance.js';
import type { PermissionRequest, ToolContext } from '../tools/types.js';
import { decide, type PermissionRule } from './rules.js';

export function modelAuthor(ctx: Pick<ToolContext, 'runId' | 'sessionId' | 'attended' | 'authors'>, rules: readonly PermissionRule[], mode: 'ask' | 'allow' | undefined): ModelAuthor {
  const inherited = ctx.authors ?? [];
  const kept = rules.filter((r) => r.decision === 'deny' || inherited.every((a) => decide(a.author.rules, r.key) === 'allow'));
  return {
    by: 'model',
    runId: ctx.runId,
    sessionId: ctx.sessionId,
    mode: ctx.attended && mode === 'allow' && inherited.every((a) => a.author.mode === 'allow') ? 'allow' : 'ask',
    rules: kept.map((r) => ({ key: r.key, decision: r.decision })),
    at: new Date().toISOString(),
  };
}

const WHY: Record<string, string> = {
  code: 'it runs code or changes data',
  delete: 'it deletes',
  unknown: 'the engine cannot tell what it does',
  other: 'it needs an approval',
};

const WHERE: Record<string, string> = {
  workflow: 'review it and save it with PUT /api/workflows/<id> (the workbench does this), or run it by hand',
  agent: 'review the agent and save it with PUT /api/agents/<name>, or run it by hand',
  skill: 'review the skill and save it with PUT /api/skills/<name>, or run it by hand',
};

/** The refusal for an unattended call under model-authored things, or undefined when every author could have made it without a prompt. */
export function authorRefusal(
  authorities: readonly Authority[],
  tool: string,
  request: PermissionRequest,
  keys: readonly string[],
  current: readonly PermissionRule[],
): string | undefined {
  for (const { kind, id, author } of authorities) {
    // A rule counts only when the author had it and it still holds: a person's later rule is not the author's.
    const allowed = (key: string) => decide(author.rules, key) === 'allow' && decide(current, key) === 'allow';
    let ok: boolean;
    if (request.protectedPath) ok = allowed(request.key);
    else if (request.forcePrompt) ok = author.mode === 'allow';
    else ok = keys.every(allowed) || author.mode === 'allow' || request.class === 'other';
    if (ok) continue;
    const why = request.protectedPath ?? request.forcePrompt ?? WHY[request.class];
    const where = (WHERE[kind] ?? `review it (${kind} "${id}") and save it yourself, or run it by hand`).replace('<id>', id).replace('<name>', id);
    return `a model wrote ${kind} "${id}"; ${tool} (${request.key}) needs a person's approval (${why}) and nobody is watching this run, so it is refused. A person can ${where}.`;
  }
  return undefined;
}
