/**
 * What is done to a model's fill before an editor shows it as ghost text, each rule tested
 * (test/editor/complete.test.ts): cut at the first special token (anything after one is another
 * document), unwrap a code fence, drop chat prose ("Here is the completion:"), trim what repeats
 * the text right of the cursor, keep at most 10 lines and never a partial last line when the
 * answer was cut by the token limit, and answer null for nothing.
 */
import { ALL_SPECIAL_TOKENS } from './fim.js';

export const COMPLETE_MAX_LINES = 10;
export const COMPLETE_MAX_TOKENS = 256;

// Tags a hole-filler prompt uses (ours and Continue's) and the markers of chat templates.
const LEAK = new RegExp([...ALL_SPECIAL_TOKENS.map(escape), '</?COMPLETION>', '</?QUERY>', '\\{\\{FILL_HERE\\}\\}', '</?fim_middle>', '<\\|[a-z_]+\\|>', '<｜[^｜]+｜>'].join('|'), 'i');
const PROSE = /^\s*(?:here(?:'s| is| are)\b|sure\b|certainly\b|of course\b|the (?:completion|code|missing code)\b|below is\b|this (?:completes|fills)\b)[^\n]*(?::|\.)\s*$/i;

export function postprocess(raw: string, opts: { suffix: string; cutByLimit?: boolean }): string | null {
  // An opening tag the model echoed starts the fill; any special token after that ends it.
  let text = raw.replace(/^\s*(?:<COMPLETION>|<\|?fim_middle\|?>)\n?/i, '');
  const leak = LEAK.exec(text);
  if (leak) text = text.slice(0, leak.index);
  text = unfence(text);
  const lines = text.split('\n');
  while (lines.length && PROSE.test(lines[0])) lines.shift();
  text = lines.join('\n');
  text = trimSuffixOverlap(text, opts.suffix);
  let out = text.split('\n');
  if (opts.cutByLimit && out.length > 1) out = out.slice(0, -1);
  if (out.length > COMPLETE_MAX_LINES) out = out.slice(0, COMPLETE_MAX_LINES);
  text = out.join('\n');
  return text.trim() === '' ? null : text;
}

/** The inside of the first fenced block, when the answer has one; otherwise the answer. */
export function unfence(text: string): string {
  const m = /```[^\n`]*\n([\s\S]*?)(?:\n?```|$)/.exec(text);
  return m ? m[1] : text;
}

/**
 * The longest end of the fill that repeats the start of the suffix is dropped (a model often
 * writes the closing `)` or `}` that is already right of the cursor). Only a repeat holding
 * something besides whitespace counts.
 */
function trimSuffixOverlap(text: string, suffix: string): string {
  const max = Math.min(text.length, suffix.length);
  for (let k = max; k > 0; k--) {
    const piece = suffix.slice(0, k);
    if (piece.trim() && text.endsWith(piece)) return text.slice(0, text.length - k);
  }
  return text;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
