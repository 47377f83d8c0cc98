/**
 * `POST /api/apply` (seed 000 §4.19): merge a lazy snippet into a file and answer the result;
 * nothing is written. Tier `splice` is the free exact merge (splice.ts); when it refuses, tier
 * `model` asks a model once to rewrite the region the snippet touches (the whole file when small)
 * and checks the answer: no marker line may remain, and every top-level definition of the region
 * that the snippet does not mention must still be there (a model that "summarises" the rest of a
 * file is refused, not trusted). Always status 200: `{merged: null, reason}` for a refusal, also for a
 * path the fenced reader refuses (outside the fence, or a note a vault hides from models), before
 * anything reaches a model, whether the text comes from the disk or from the editor's `base`.
 */
import { describeError } from '../../kernel/errors.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { droppedDefinitions } from './definitions.js';
import { isMarkerLine } from './markers.js';
import { unfence } from './postprocess.js';
import { splice } from './splice.js';
import type { ApplyAnswer } from './types.js';

export type ModelPass = (req: { system: string; prompt: string; source?: string; title?: string; signal?: AbortSignal }) => Promise<string>;

export interface ApplierDeps {
  reader: Pick<FencedReader, 'readText' | 'allowed'>;
  /** A tool-less model pass billed to its own run; undefined when no provider is configured. */
  modelPass: () => ModelPass | undefined;
}

/** Files up to this many lines go to the model whole; longer ones only around what the snippet names. */
const WHOLE_FILE_LINES = 400;
const REGION_MARGIN = 20;

const MERGE_SYSTEM = [
  'You merge an edit into source code.',
  'The edit uses marker comments such as "// ... existing code ..." to stand for code it leaves unchanged.',
  'Answer with the complete updated code of the ORIGINAL you are given, every marker replaced by the original code it stands for, in one fenced code block, and nothing else.',
  'Never shorten, summarise or leave out code; never add a marker comment.',
].join(' ');

export function createApplier(deps: ApplierDeps) {
  return async function apply(body: unknown): Promise<ApplyAnswer> {
    const input = checkInput(body);
    if (typeof input === 'string') return { merged: null, reason: input };
    // The editor's buffer still belongs to the file it names: a file a model may not see is refused either way.
    let original: string;
    if (input.base === undefined) {
      const file = await deps.reader.readText(input.path);
      if (!file.ok) return { merged: null, reason: file.reason };
      original = file.text;
    } else {
      const judged = await deps.reader.allowed(input.path);
      if (!judged.ok) return { merged: null, reason: judged.reason };
      original = input.base;
    }
    const spliced = splice(original, input.snippet);
    if (spliced.merged !== null) return { merged: spliced.merged, tier: 'splice' };

    const pass = deps.modelPass();
    if (!pass) return { merged: null, reason: `${spliced.reason}; no model provider is configured for the model tier (PUT /api/config)` };
    const region = regionOf(original, input.snippet);
    if (!region) return { merged: null, reason: `${spliced.reason}; and none of the snippet's lines is in the file, so there is no region for a model to rewrite` };
    let answer: string;
    try {
      answer = await pass({
        system: MERGE_SYSTEM,
        prompt: `ORIGINAL (${input.path}):\n\`\`\`\n${region.text}\n\`\`\`\n\nEDIT:\n\`\`\`\n${input.snippet}\n\`\`\``,
        source: 'editor',
        title: `apply an edit to ${input.path}`,
      });
    } catch (err) {
      return { merged: null, reason: `${spliced.reason}; the model tier failed: ${describeError(err)}` };
    }
    const rewritten = unfence(answer).replace(/\n$/, '');
    if (rewritten.split('\n').some(isMarkerLine)) return { merged: null, reason: 'the model left a marker line in its answer, so the merge would lose code; nothing was merged' };
    const dropped = droppedDefinitions(region.text, rewritten, input.snippet);
    if (dropped.length) return { merged: null, reason: `the model's answer lost ${dropped.map((d) => `"${d}"`).join(', ')}, which the snippet does not touch (a truncated answer); nothing was merged` };
    return { merged: region.before + rewritten + region.after, tier: 'model' };
  };
}

function checkInput(body: unknown): { path: string; snippet: string; base?: string } | string {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'send {path, snippet, base?}: the file, the edit with "// ... existing code ..." markers, and optionally the editor\'s buffer';
  const b = body as Record<string, unknown>;
  if (typeof b.path !== 'string' || !b.path.trim()) return 'path must be the file the snippet edits, such as src/index.ts';
  if (typeof b.snippet !== 'string' || !b.snippet.trim()) return 'snippet must be the edit: changed code with marker lines such as "// ... existing code ..." for what stays';
  if (b.base !== undefined && b.base !== null && typeof b.base !== 'string') return "base must be a string: the editor's current buffer (leave it out to use the file on disk)";
  return { path: b.path, snippet: b.snippet, base: (b.base as string | null | undefined) ?? undefined };
}

/** The whole file when small; else the stretch between the first and last snippet line found in it, with a margin. */
function regionOf(original: string, snippet: string): { before: string; text: string; after: string } | undefined {
  const lines = original.split('\n');
  const trailing = lines.length > 1 && lines[lines.length - 1] === '' ? '\n' : '';
  if (trailing) lines.pop();
  if (lines.length <= WHOLE_FILE_LINES) return { before: '', text: lines.join('\n'), after: trailing };
  const wanted = new Set(snippet.split('\n').map((l) => l.trim()).filter((l) => l.length > 3 && !isMarkerLine(l)));
  const hits = lines.flatMap((l, i) => (wanted.has(l.trim()) ? [i] : []));
  if (!hits.length) return undefined;
  const from = Math.max(0, hits[0] - REGION_MARGIN);
  const to = Math.min(lines.length, hits[hits.length - 1] + REGION_MARGIN + 1);
  const join = (part: string[], tail: boolean) => (part.length ? part.join('\n') + (tail ? '\n' : '') : '');
  return { before: join(lines.slice(0, from), true), text: lines.slice(from, to).join('\n'), after: (to < lines.length ? '\n' + lines.slice(to).join('\n') : '') + trailing };
}
