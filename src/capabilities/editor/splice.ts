/**
 * The free merge of `POST /api/apply` (tier `splice`): a lazy snippet (changed code with marker
 * lines standing for unchanged code, markers.ts) is spliced into the file with no model.
 *
 * The snippet is cut at its markers into chunks. Each chunk replaces the stretch of the file that
 * runs from where its first line is found to where its last line is found:
 *   - each edge is anchored by the run of lines at that edge that fits exactly one place (one line
 *     when unique, grown inward while ambiguous; anchors.ts), searched after the previous chunk, the
 *     last line's after the first's. A run that cannot be narrowed to one place is a refusal naming
 *     its line, never a guess. The top anchor grows at most to all lines but the last, the bottom
 *     anchor at most to the lines the top one left, so the two never share a line;
 *   - a chunk with no marker before it must sit at the top of the file, and likewise a chunk with no
 *     marker after it at the bottom (topEdge). A snippet that forgot an edge marker is refused
 *     rather than allowed to delete everything up to the edge.
 * No marker line can reach the result: markers only ever separate chunks.
 */
import { edgeOf, findAnchor, keyedLines, type Anchor, type FileLines } from './anchors.js';
import { isMarkerLine } from './markers.js';

export type SpliceResult = { merged: string } | { merged: null; reason: string };

interface Chunk {
  lines: string[];
  markerBefore: boolean;
  markerAfter: boolean;
}

/** How many of a file's top lines a chunk with no marker above may replace beyond its own new lines. */
const EDGE_SLACK = 3;

export function splice(original: string, snippet: string): SpliceResult {
  const eol = original.includes('\r\n') ? '\r\n' : '\n';
  const file = splitLines(original);
  const chunks = chunksOf(splitLines(snippet).lines);
  if (!chunks.length) return refuse('the snippet holds no code besides markers');

  const indexed = keyedLines(file.lines);
  const out: string[] = [];
  let cursor = 0;
  for (const [i, chunk] of chunks.entries()) {
    const label = chunks.length > 1 ? `chunk ${i + 1} of ${chunks.length}` : 'the snippet';
    const place = locate(indexed, chunk, cursor);
    if (typeof place === 'string') return refuse(`${label}: ${place}`);
    out.push(...file.lines.slice(cursor, place.start), ...chunk.lines);
    cursor = place.end;
  }
  out.push(...file.lines.slice(cursor));
  return { merged: out.join(eol) + (file.trailingNewline ? eol : '') };
}

function locate(file: FileLines, chunk: Chunk, from: number): { start: number; end: number } | string {
  const n = file.loose.length;
  const size = chunk.lines.length;
  const after = from ? ' after the previous chunk' : '';
  let start = 0;
  let headLength = 0;
  if (chunk.markerBefore) {
    const head = findAnchor(file, edgeOf(chunk.lines), 'down', from, n, chunk.markerAfter ? Math.max(1, size - 1) : size);
    if (!('at' in head)) return unplaced(head, 'first', chunk.lines[0], after, 'start the chunk with an unchanged line above the change that appears once in the file');
    start = head.at;
    headLength = head.length;
  } else {
    const top = topEdge(file, chunk.lines, 'above it, so it must start', 'first');
    if (typeof top === 'string') return top;
  }
  if (!chunk.markerAfter) {
    const bottom = topEdge(reversed(file, start), chunk.lines.slice().reverse(), 'below it, so it must end', 'last');
    return typeof bottom === 'string' ? bottom : { start, end: n };
  }
  if (headLength >= size) return { start, end: start + size };
  const tail = findAnchor(file, edgeOf(chunk.lines.slice().reverse()), 'up', start + headLength, n, size - headLength);
  if (!('at' in tail)) return unplaced(tail, 'last', chunk.lines[size - 1], ' after its first lines', 'end the chunk with an unchanged line below the change that appears once in the file after it');
  return { start, end: tail.at + 1 };
}

const show = (line: string) => (line.trim() ? JSON.stringify(line.trim()) : 'a blank line');

function unplaced(anchor: Exclude<Anchor, { at: number }>, which: 'first' | 'last', line: string, after: string, fix: string): string {
  if ('missing' in anchor) return `its ${which} line ${show(line)} is not in the file${after}`;
  const what = anchor.length === 1 ? `its ${which} line ${show(line)}` : `its ${which} ${anchor.length} lines (${which === 'first' ? 'from' : 'up to'} ${show(line)})`;
  return `${what} fit ${anchor.places} places in the file${after} and the snippet's ${which === 'first' ? 'next' : 'previous'} line does not narrow them to one; ${fix}`;
}

/**
 * A chunk with no marker above it starts the file. Proof: the first of its lines that anchors at one
 * place in the file sits where the chunk puts it. That is the file's first line when it is the
 * chunk's first line; when new lines come before it, at most EDGE_SLACK lines further down than in
 * the chunk (a few changed top lines are replaced). Any other place means the chunk forgot its
 * marker: refused. `file` and `lines` come reversed for the bottom edge, with the words to match.
 */
function topEdge(file: FileLines, lines: string[], rule: string, which: 'first' | 'last'): 0 | string {
  const edge = edgeOf(lines);
  const forgot = (found: string) => `it has no marker ${rule} the file, but ${found}; add a marker line such as "// ... existing code ..." ${rule.startsWith('above') ? 'above' : 'below'} it`;
  for (let j = 0; j < lines.length; j++) {
    const anchor = findAnchor(file, edge, 'down', 0, file.loose.length, lines.length - j, j);
    if (!('at' in anchor)) continue;
    if (anchor.at === 0 || (j > 0 && anchor.at <= j + EDGE_SLACK)) return 0;
    const distance = `${anchor.at} line${anchor.at === 1 ? '' : 's'} from the ${which === 'first' ? 'top' : 'bottom'}`;
    return forgot(`its line ${show(lines[j])} is ${distance}`);
  }
  return forgot(`none of its lines is found once in the file near the ${which === 'first' ? 'top' : 'bottom'}`);
}

/** The file from `start` on, bottom line first: the bottom edge is the top edge of this. */
function reversed(file: FileLines, start: number): FileLines {
  return { lines: file.lines.slice(start).reverse(), loose: file.loose.slice(start).reverse() };
}

function refuse(reason: string): SpliceResult {
  return { merged: null, reason };
}

function splitLines(text: string): { lines: string[]; trailingNewline: boolean } {
  const lines = text.split(/\r?\n/);
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (trailingNewline) lines.pop();
  return { lines, trailingNewline };
}

/** Cuts the snippet at marker lines; a stretch with no code (only blank lines) is no chunk. */
function chunksOf(lines: string[]): Chunk[] {
  const chunks: Chunk[] = [];
  let current: string[] = [];
  let markerBefore = false;
  const close = (markerAfter: boolean) => {
    if (current.some((l) => l.trim() !== '')) chunks.push({ lines: current, markerBefore, markerAfter });
  };
  for (const line of lines) {
    if (isMarkerLine(line)) {
      close(true);
      current = [];
      markerBefore = true;
    } else current.push(line);
  }
  close(false);
  return chunks;
}
