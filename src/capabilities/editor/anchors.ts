/**
 * Where a chunk edge of a lazy snippet sits in the file (splice.ts): its anchor is the run of lines
 * at that edge, one line when that line is unique, grown one line at a time while it fits more than
 * one place. Lines compare with whitespace ignored first (a model re-indents) and exactly (trailing
 * whitespace aside) to decide among the places that fit loosely. Growing stops at `max` lines, which
 * the caller sets so an anchor never takes lines the other edge needs; a run that still fits several
 * places, or whose next line fits none of them, is ambiguous: a refusal, never a guess.
 */

/** The file's lines as anchors compare them: loose keys made once per merge, exact keys on demand. */
export interface FileLines {
  lines: string[];
  loose: string[];
}

/** A line with its indentation and trailing whitespace dropped and inner runs of whitespace made one space. */
export function looseKey(line: string): string {
  const t = line.trim();
  // Most lines have no inner run to collapse: two substring scans are cheaper than a regex replace.
  return t.includes('  ') || t.includes('\t') ? t.replace(/\s+/g, ' ') : t;
}
export const exactKey = (line: string) => line.trimEnd();

export function keyedLines(lines: string[]): FileLines {
  return { lines, loose: lines.map(looseKey) };
}

/** The lines of one edge of a chunk, prepared once: `lines[0]` is the edge line, then inward. */
export interface EdgeLines {
  loose: string[];
  exact: string[];
}

export function edgeOf(lines: string[]): EdgeLines {
  return { loose: lines.map(looseKey), exact: lines.map(exactKey) };
}

export type Anchor =
  /** Unique: the edge line is at `at`; the run covers `length` lines inward from it. */
  | { at: number; length: number }
  /** The edge line is not in the searched range at all. */
  | { missing: true }
  /** The run of `length` lines fits `places` places and cannot grow to fit one. */
  | { places: number; length: number };

/**
 * The anchor of an edge. `down`: the run goes down the file from the edge line (a chunk's top),
 * and the whole run lies in [from, to); up: it goes up the file (a chunk's bottom), likewise.
 * `skip` starts the run that many lines into the edge (the top of a file, splice.ts).
 */
export function findAnchor(file: FileLines, edge: EdgeLines, dir: 'down' | 'up', from: number, to: number, max: number, skip = 0): Anchor {
  const step = dir === 'down' ? 1 : -1;
  const inRange = (at: number, length: number) => (dir === 'down' ? at >= from && at + length <= to : at - length + 1 >= from && at < to);
  let places: number[] = [];
  for (let at = from; at < to; at++) if (file.loose[at] === edge.loose[skip]) places.push(at);
  if (!places.length) return { missing: true };
  for (let length = 1; ; length++) {
    if (length > 1) {
      const i = length - 1;
      const grown = places.filter((at) => inRange(at, length) && file.loose[at + step * i] === edge.loose[skip + i]);
      if (!grown.length) return { places: places.length, length: i };
      places = grown;
    }
    if (places.length === 1) return { at: places[0], length };
    const exact = places.filter((at) => exactRun(file, edge, skip, at, step, length));
    if (exact.length === 1) return { at: exact[0], length };
    if (length >= max || skip + length >= edge.loose.length) return { places: places.length, length };
  }
}

function exactRun(file: FileLines, edge: EdgeLines, skip: number, at: number, step: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (exactKey(file.lines[at + step * i]) !== edge.exact[skip + i]) return false;
  return true;
}
