/**
 * `POST /api/inline-edit` (seed 000 §4.1): `{code, instruction, lang?, path?}` -> `{code}`, the
 * replacement code only. `path` names the file the code comes from: a file outside the fence or a
 * note a vault hides from models is refused (403) before the model is asked. The model's answer is unwrapped from its fence and stripped of prose around it; an
 * answer with no code at all is a 502 with the model's own first words, never prose returned as
 * code (an editor would paste it over the selection).
 */
import { EngineError, badRequest } from '../../kernel/errors.js';
import { orThrow, type FencedReader } from '../../kernel/fenced-read.js';
import type { ModelPass } from './apply.js';
import type { InlineEditAnswer } from './types.js';

const SYSTEM = [
  'You edit code as instructed.',
  'Answer with the complete replacement for the code you are given, in one fenced code block, and nothing else.',
  'Keep its indentation; change only what the instruction asks.',
].join(' ');

const FENCE = /```[^\n`]*\n([\s\S]*?)\n?```/;

export async function inlineEdit(pass: ModelPass | undefined, reader: Pick<FencedReader, 'allowed'>, body: unknown): Promise<InlineEditAnswer> {
  const input = checkInput(body);
  if (input.path !== undefined) orThrow(await reader.allowed(input.path));
  if (!pass) throw badRequest('no model provider is configured; add one with PUT /api/config');
  const answer = await pass({
    system: SYSTEM,
    prompt: `Instruction: ${input.instruction}\n\nCode${input.lang ? ` (${input.lang})` : ''}:\n\`\`\`${input.lang ?? ''}\n${input.code}\n\`\`\``,
    source: 'editor',
    title: `inline edit: ${input.instruction.slice(0, 60)}`,
  });
  const code = extractCode(answer);
  if (code === undefined) throw new EngineError(502, `the model answered prose, not code ("${answer.trim().slice(0, 120)}"); try the instruction again, more precisely`);
  return { code };
}

/** The code in a model's answer: a fenced block's inside, or the whole answer when it reads as code. */
export function extractCode(answer: string): string | undefined {
  const fenced = FENCE.exec(answer);
  if (fenced) return fenced[1];
  const text = answer.replace(/^\s*\n/, '').replace(/\s+$/, '');
  if (!text.trim()) return undefined;
  return looksLikeProse(text) ? undefined : text;
}

/** Every non-empty line a sentence (words, spaces, ending in . ! ? or :) and no code punctuation. */
function looksLikeProse(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim());
  return lines.every((l) => /^\s*[A-Z][^;{}=<>()[\]`]*[.!?:]\s*$/.test(l) && l.trim().split(/\s+/).length >= 4);
}

function checkInput(body: unknown): { code: string; instruction: string; lang?: string; path?: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('send {code, instruction, lang?}');
  const b = body as Record<string, unknown>;
  if (typeof b.code !== 'string') throw badRequest('code must be a string: the code to edit');
  if (typeof b.instruction !== 'string' || !b.instruction.trim()) throw badRequest('instruction must say what to change, such as "rename x to count"');
  if (b.lang !== undefined && b.lang !== null && typeof b.lang !== 'string') throw badRequest('lang must be a language name such as typescript');
  if (b.path !== undefined && b.path !== null && (typeof b.path !== 'string' || !b.path.trim())) throw badRequest('path must be the file the code comes from, such as src/index.ts (or left out)');
  return { code: b.code, instruction: b.instruction.trim(), lang: (b.lang as string | null | undefined) ?? undefined, path: (b.path as string | null | undefined) ?? undefined };
}
