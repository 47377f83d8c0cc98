/**
 * The unified diff of one file write, for people (a chat card shows it with the call, as opencode
 * and Claude Code do); the model never sees it. The engine has the text before and after, so the
 * diff is exact, not guessed from the tool's arguments. Lines the two texts share at the start and
 * the end are cut first, so an edit of a large file costs what its changed region costs; a region
 * too large to align line by line within LIMITS.toolDiffAlignMs is shown as one replacement hunk
 * (still a correct diff, only not minimal).
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { LIMITS } from '../../kernel/limits.js';

const CONTEXT = 3;

/** `before` undefined: the file was created. Answers '' when nothing changed. */
export function unifiedDiff(file: string, before: string | undefined, after: string): string {
  if (before === after) return '';
  const a = lines(before ?? '');
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - CONTEXT);
  const aw = a.slice(from, Math.min(a.length, a.length - tail + CONTEXT));
  const bw = b.slice(from, Math.min(b.length, b.length - tail + CONTEXT));
  const changed = a.length - tail - head + (b.length - tail - head);
  // Aligning costs (lines x differences): past a size or a time it gives way to one replacement hunk.
  const aligned = changed <= LIMITS.toolDiffAlignLines ? structuredPatch('a', 'b', aw.join(''), bw.join(''), '', '', { context: CONTEXT, timeout: LIMITS.toolDiffAlignMs }) : undefined;
  const hunks = aligned
    ? aligned.hunks.map((h) => ({ ...h, oldStart: h.oldStart + from, newStart: h.newStart + from }))
    : [replacement(aw, bw, head - from, Math.min(tail, CONTEXT), from)];
  const patch: StructuredPatch = { oldFileName: before === undefined ? '/dev/null' : `a/${file}`, newFileName: `b/${file}`, oldHeader: '', newHeader: '', hunks };
  const text = formatPatch(patch, FILE_HEADERS_ONLY).replace(/\t$/gm, '');
  if (text.length <= LIMITS.toolDiffChars) return text;
  const cut = text.lastIndexOf('\n', LIMITS.toolDiffChars);
  return `${text.slice(0, cut + 1)}[... ${text.length - cut - 1} more characters of the diff not shown ...]\n`;
}

/** The lines of a text, each with its own line ending (the last may have none). */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** One hunk replacing the middle of the window: `lead` shared lines, the changed ones, `trail` shared lines. */
function replacement(aw: string[], bw: string[], lead: number, trail: number, from: number): StructuredPatchHunk {
  const out: string[] = [];
  const push = (mark: string, line: string) => {
    out.push(mark + line.replace(/\n$/, ''));
    if (!line.endsWith('\n')) out.push('\\ No newline at end of file');
  };
  aw.slice(0, lead).forEach((l) => push(' ', l));
  aw.slice(lead, aw.length - trail).forEach((l) => push('-', l));
  bw.slice(lead, bw.length - trail).forEach((l) => push('+', l));
  aw.slice(aw.length - trail).forEach((l) => push(' ', l));
  return { oldStart: from + 1, oldLines: aw.length, newStart: from + 1, newLines: bw.length, lines: out };
}
