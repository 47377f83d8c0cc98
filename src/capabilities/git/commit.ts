/**
 * Commits, and the two model passes over a diff: a suggested commit message and a review. Each
 * pass is its own run in the ledger (source `git`), so its spend shows in the reports.
 */
import { badRequest, conflict, describeError, EngineError, isEngineError, serverError } from '../../kernel/errors.js';
import { firstLine } from './exec.js';
import { workDiff } from './diff.js';
import { assertWritableRepo, homeExcludeSpec, inRepo, resolveTarget, type RepoContext, type RepoTarget } from './repo.js';
import { LIMITS } from '../../kernel/limits.js';

export type ModelPass = (req: { system: string; prompt: string; source: string; title: string }) => Promise<string>;

const MESSAGE_CHARS = 64 * 1024;

/** What a commit includes: the index when anything is staged, else every change (like VS Code's smart commit). */
export async function commit(ctx: RepoContext, rootParam: string | undefined, message: unknown): Promise<{ sha: string; committed: 'staged' | 'all' }> {
  if (typeof message !== 'string' || !message.trim()) throw badRequest('send {"message": "what this commit does"}; the message must not be empty');
  if (message.length > MESSAGE_CHARS) throw badRequest(`the commit message is longer than ${MESSAGE_CHARS} characters; shorten it`);
  const target = await resolveTarget(ctx, rootParam);
  await assertWritableRepo(ctx, target);
  const staged = (await inRepo(ctx, target, ['diff', '--cached', '--quiet', '--no-ext-diff'])).code === 1;
  if (!staged) {
    const add = await inRepo(ctx, target, ['add', '-A', '--', '.', ...homeExcludeSpec(ctx, target)]);
    if (add.code !== 0) throw new EngineError(409, `git could not stage the changes of "${target.name}": ${firstLine(add.stderr)}`);
    const any = (await inRepo(ctx, target, ['diff', '--cached', '--quiet', '--no-ext-diff'])).code === 1;
    if (!any) throw conflict(`nothing to commit in "${target.name}": the work tree matches the last commit`);
  }
  const r = await inRepo(ctx, target, ['-c', 'user.useConfigOnly=true', 'commit', '--quiet', '--no-verify', '--cleanup=whitespace', '-F', '-'], { input: message });
  if (r.code !== 0) {
    const err = r.stderr;
    if (/Author identity unknown|Please tell me who you are|no email was given|no name was given|empty ident name/i.test(err)) {
      throw conflict(
        `git does not know who is committing in "${target.name}": set an identity with git config --global user.name "Your Name" and git config --global user.email "you@example.com" (or without --global, inside the repository), then commit again`,
      );
    }
    if (/unmerged files|unresolved conflict/i.test(err)) throw conflict(`"${target.name}" has unresolved merge conflicts; resolve them (GET /api/git/status lists them under "conflicted") and commit again`);
    throw new EngineError(409, `git commit failed in "${target.name}": ${firstLine(err)}`);
  }
  const sha = (await inRepo(ctx, target, ['rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
  return { sha, committed: staged ? 'staged' : 'all' };
}

/** The diff a model pass is shown: staged changes when there are any, else every change; clipped with a note. */
async function diffForModel(ctx: RepoContext, target: RepoTarget): Promise<{ text: string; mode: string }> {
  const d = await workDiff(ctx, target, 'auto');
  if (!d.diff.trim()) throw conflict(`"${target.name}" has no changes to describe; change, stage or add files first`);
  let text = d.diff;
  if (text.length > LIMITS.gitModelDiffChars) text = text.slice(0, LIMITS.gitModelDiffChars) + `\n[diff cut at ${LIMITS.gitModelDiffChars} characters]`;
  if (d.omitted?.length) text += `\n[${d.omitted.length} more files changed: ${d.omitted.map((f) => f.path).join(', ')}]`;
  return { text, mode: d.mode === 'staged' ? 'the staged changes' : 'all changes in the work tree' };
}

/** A provider failure is the provider's sentence (500, as for memory consolidation), never a bare "internal error". */
async function ask(pass: ModelPass, req: Parameters<ModelPass>[0]): Promise<string> {
  try {
    return await pass(req);
  } catch (err) {
    if (isEngineError(err)) throw err;
    throw serverError(`the model could not answer (${describeError(err)}); check the provider with POST /api/test-provider and try again`);
  }
}

const SUGGEST_SYSTEM =
  'You write git commit messages. Answer with the message only: a subject line of at most 72 characters in the imperative mood ("Add", "Fix"), then, if the change needs it, a blank line and a short body saying what changed and why. No code fences, no quotes, no preamble.';

const REVIEW_SYSTEM =
  'You review a code change like a careful senior engineer. List concrete problems (bugs, security issues, missing error handling or tests, unclear names) with the file and line they concern, most serious first, then at most three suggestions. If you find no problems, say so in one sentence. Be brief; use markdown bullet points.';

export async function suggestMessage(ctx: RepoContext, pass: ModelPass, rootParam: string | undefined): Promise<{ message: string }> {
  const target = await resolveTarget(ctx, rootParam);
  const { text, mode } = await diffForModel(ctx, target);
  const answer = await ask(pass, { system: SUGGEST_SYSTEM, prompt: `Write the commit message for ${mode} of this repository:\n\n${text}`, source: 'git', title: `commit message for ${target.name}` });
  const message = answer.trim().replace(/^```[a-z]*\n?/, '').replace(/\n?```$/, '').trim();
  if (!message) throw new EngineError(502, 'the model answered with an empty commit message; try again');
  return { message };
}

export async function review(ctx: RepoContext, pass: ModelPass, rootParam: string | undefined): Promise<{ review: string }> {
  const target = await resolveTarget(ctx, rootParam);
  const { text, mode } = await diffForModel(ctx, target);
  const answer = await ask(pass, { system: REVIEW_SYSTEM, prompt: `Review ${mode} of this repository:\n\n${text}`, source: 'git', title: `review of ${target.name}` });
  return { review: answer.trim() };
}
