/**
 * The free merge of `POST /api/apply` (tier `splice`): a lazy snippet (changed code with marker
 * lines standing for unchanged code, markers.ts) is spliced into the file with no model.
 *
 * The snippet is cut at its markers into chunks. Each chunk replaces the stretch of the file that
 * runs from where its first lines are found to where its last lines are found:
 *   - anchors are the chunk's first and last three lines (more when three are ambiguous), compared
 *     ignoring trailing whitespace, searched after the previous chunk, and must match exactly one
 *     place; no match or more than one is a refusal, never a guess;
 *   - a chunk with no marker before it must sit at the top of the file (the file's first lines are
 *     its first lines, or appear in it when lines were inserted above them), and likewise a chunk
 *     with no marker after it at the bottom. A snippet that forgot an edge marker is refused rather
 *     than allowed to delete everything up to the edge (docs/editor.md has the measured cost of
 *     the lenient rule).
 * No marker line can reach the result: markers only ever separate chunks.
 */
import { isMarkerLine } from './markers.js';

export type SpliceResult = { merged: string } | { merged: null; reason: string };

interface Chunk {
  lines: string[];
  markerBefore: boolean;
  markerAfter: boolean;
}

const ANCHOR = 3;

export function splice(original: string, snippet: string): SpliceResult {
  const eol = original.includes('\r\n') ? '\r\n' : '\n';
  const file = splitLines(original);
  const chunks = chunksOf(splitLines(snippet).lines);
  if (!chunks.length) return refuse('the snippet holds no code besides markers');

  // Anchors compare lines without their trailing whitespace; trimmed once here, not per comparison.
  const keys = file.lines.map(trimEnd);
  const out: string[] = [];
  let cursor = 0;
  for (const [i, chunk] of chunks.entries()) {
    const label = chunks.length > 1 ? `chunk ${i + 1} of ${chunks.length}` : 'the snippet';
    const place = locate(keys, { ...chunk, lines: chunk.lines.map(trimEnd) }, cursor);
    if (typeof place === 'string') return refuse(`${label}: ${place}`);
    const { start, end } = place;
    out.push(...file.lines.slice(cursor, start), ...chunk.lines);
    cursor = end;
  }
  out.push(...file.lines.slice(cursor));
  return { merged: out.join(eol) + (file.trailingNewline ? eol : '') };
}

function locate(file: string[], chunk: Chunk, from: number): { start: number; end: number } | string {
  if (chunk.markerBefore && chunk.markerAfter) return findBoth(file, chunk.lines, from);
  const start = chunk.markerBefore ? findHead(file, chunk.lines, from) : topEdge(file, chunk.lines);
  if (typeof start === 'string') return start;
  const end = chunk.markerAfter ? findTail(file, chunk.lines, start) : bottomEdge(file, chunk.lines, start);
  if (typeof end === 'string') return end;
  return { start, end };
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

const trimEnd = (line: string) => line.trimEnd();
const same = (a: string, b: string) => a === b;

function matchesAt(file: string[], at: number, want: string[]): boolean {
  if (at < 0 || at + want.length > file.length) return false;
  for (let i = 0; i < want.length; i++) if (!same(file[at + i], want[i])) return false;
  return true;
}

function positions(file: string[], want: string[], from: number): number[] {
  const found: number[] = [];
  for (let at = from; at + want.length <= file.length; at++) if (matchesAt(file, at, want)) found.push(at);
  return found;
}

const show = (lines: string[]) => JSON.stringify(lines.find((l) => l.trim() !== '')?.trim() ?? '');

/**
 * Where a chunk with markers on both sides sits: its first lines at h and its last lines ending at
 * t, after `from`, with h before t. Exactly one such pair, or a refusal naming what is missing or
 * ambiguous. Anchors never grow into the chunk's other lines: those may be the changed ones, and a
 * longer anchor that reaches a changed line can match a wrong place exactly once.
 */
function findBoth(file: string[], chunk: string[], from: number): { start: number; end: number } | string {
  const k = Math.min(ANCHOR, chunk.length);
  const head = chunk.slice(0, k);
  const tail = chunk.slice(chunk.length - k);
  const heads = positions(file, head, from);
  if (!heads.length) return `its first lines (from ${show(head)}) are not in the file after the previous chunk`;
  const tails = positions(file, tail, heads[0]);
  if (!tails.length) return `its last lines (up to ${show(tail.slice().reverse())}) are not in the file after its first lines`;
  const pairs: Array<{ start: number; end: number }> = [];
  for (const h of heads) for (const t of tails) if (t >= h) pairs.push({ start: h, end: t + k });
  if (pairs.length === 1) return pairs[0];
  return `its first and last lines (from ${show(head)} to ${show(tail.slice().reverse())}) fit ${pairs.length} places in the file; add more unchanged lines around it`;
}

/** Where a chunk's first lines sit when its end is the file's end: exactly one place after `from`. */
function findHead(file: string[], chunk: string[], from: number): number | string {
  const head = chunk.slice(0, Math.min(ANCHOR, chunk.length));
  const found = positions(file, head, from);
  if (found.length === 1) return found[0];
  return found.length ? `its first lines (from ${show(head)}) match ${found.length} places in the file; add more unchanged lines around it` : `its first lines (from ${show(head)}) are not in the file after the previous chunk`;
}

/** Where a chunk's last lines end when its start is the file's start: exactly one place. */
function findTail(file: string[], chunk: string[], start: number): number | string {
  const k = Math.min(ANCHOR, chunk.length);
  const tail = chunk.slice(chunk.length - k);
  const found = positions(file, tail, start);
  if (found.length === 1) return found[0] + k;
  return found.length ? `its last lines (up to ${show(tail.slice().reverse())}) match ${found.length} places in the file; add more unchanged lines around it` : `its last lines (up to ${show(tail.slice().reverse())}) are not in the file after its first lines`;
}

/**
 * A chunk with no marker above it starts the file. Proof, in order: its first lines are the file's
 * first lines; or the file's first lines lie inside it (lines were inserted above them); or its
 * first lines are new and the first of its lines that are in the file (exactly once) sit no more
 * than EDGE_SLACK lines further down the file than in the chunk, so only a few changed top lines
 * are replaced. A chunk whose first lines are found further down the file forgot its marker: refused.
 */
function topEdge(file: string[], chunk: string[]): number | string {
  const k = Math.min(ANCHOR, file.length, chunk.length);
  if (k === 0) return 0;
  const top = file.slice(0, k);
  for (let at = 0; at + k <= chunk.length; at++) if (top.every((l, i) => same(l, chunk[at + i]))) return 0;
  const forgot = `it has no marker above it, so it must start the file, but the file's first lines (from ${show(top)}) are not in it; add a marker line such as "// ... existing code ..." above it`;
  if (positions(file, chunk.slice(0, k), 0).length) return forgot;
  for (let j = 1; j + k <= chunk.length; j++) {
    const found = positions(file, chunk.slice(j, j + k), 0);
    if (found.length > 1) return forgot;
    if (found.length === 1) return found[0] <= j + EDGE_SLACK ? 0 : forgot;
  }
  return forgot;
}

/** A chunk with no marker below it ends the file: the mirror of topEdge. */
function bottomEdge(file: string[], chunk: string[], start: number): number | string {
  const rest = file.slice(start);
  const flipped = topEdge(rest.slice().reverse(), chunk.slice().reverse());
  if (typeof flipped === 'string') return flipped.replace('above it, so it must start', 'below it, so it must end').replace("first lines (from", "last lines (up to").replace('above it', 'below it');
  return file.length;
}

const EDGE_SLACK = 3;
