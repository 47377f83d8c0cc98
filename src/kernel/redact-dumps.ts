/**
 * Stored secret values inside hex dumps (issue 38 §3). `xxd`, `xxd -p`, `hexdump -C`, `hexdump` and
 * `od -x` / `od -t x1z` print a value's bytes as hex spread over lines, so a value can straddle two
 * of them, in two pieces no plain spelling matches, and print its characters beside them in the same
 * two pieces. So the dump's lines are decoded back to bytes, the stored values searched in them, and
 * every hex digit and column character of a match replaced with `*`: the dump keeps its shape and
 * shows nothing of the value. Lines may be separated by real newlines or by JSON's `\n` (an event
 * checked as JSON text). Only texts with a dump-shaped line are decoded at all (DUMP_HINT).
 */

/** An offset (or a long hex run) followed by hex on the same line or the next: the cheap test first. */
const DUMP_HINT = /[0-9a-fA-F]{6}(?::?[ ]{1,2}[0-9a-fA-F]{2}|[0-9a-fA-F]*(?:\r?\n|\\n)[0-9a-fA-F]{2})/;
const LINE_BREAK = /\r?\n|\\r\\n|\\n/g;
/** An offset column, its separator, then the rest of the line. */
const OFFSET_LINE = /^([0-9a-fA-F]{6,16})(:?)([ ]{1,2})(.+)$/;
const PLAIN_LINE = /^(?:[0-9a-fA-F]{2})+$/;

interface DumpLine {
  /** `xxd -p` lines and offset lines never join one block. */
  kind: 'plain' | 'offset';
  bytes: number[];
  /** Where each byte's two hex digits start in the text. */
  at: number[];
  /** Where the line's character column starts (one character a byte), when it has one. */
  column?: number;
}

/** A dump line, or the dump line a JSON string starts with (`"text":"00000000: 6875 ...`). */
function parseLine(text: string, start: number, end: number): DumpLine | undefined {
  const line = parseDumpLine(text, start, end);
  if (line) return line;
  const quote = text.slice(start, end).search(/"(?=[0-9a-fA-F]{6})/);
  return quote < 0 ? undefined : parseDumpLine(text, start + quote + 1, end);
}

function parseDumpLine(text: string, start: number, end: number): DumpLine | undefined {
  const line = text.slice(start, end);
  if (PLAIN_LINE.test(line)) {
    const bytes: number[] = [];
    const at: number[] = [];
    for (let i = 0; i < line.length; i += 2) {
      bytes.push(parseInt(line.slice(i, i + 2), 16));
      at.push(start + i);
    }
    return { kind: 'plain', bytes, at };
  }
  const m = OFFSET_LINE.exec(line);
  if (!m) return undefined;
  const restAt = start + m[1].length + m[2].length + m[3].length;
  // xxd (offset with a colon): groups one space apart, big-endian; two spaces end them and the
  // character column follows. Without a colon (hexdump, od): one or two spaces apart; words of more
  // than one byte are little-endian; a column sits between `|...|` (hexdump -C) or `>...<` (od z).
  const xxd = m[2] === ':';
  let area = m[4];
  let column: number | undefined;
  if (xxd) {
    const gap = area.indexOf('  ');
    if (gap >= 0) {
      const after = area.slice(gap).search(/[^ ]/);
      if (after >= 0) column = restAt + gap + after;
      area = area.slice(0, gap);
    }
  } else {
    const col = /[ ]+([|>])(.*)([|<])$/.exec(area);
    if (col) {
      column = restAt + col.index + col[0].indexOf(col[1]) + 1;
      area = area.slice(0, col.index);
    }
  }
  const bytes: number[] = [];
  const at: number[] = [];
  const word = /[0-9a-fA-F]+/y;
  for (let pos = 0; pos < area.length; ) {
    if (pos > 0) {
      const spaces = area.length - pos - area.slice(pos).trimStart().length;
      if (pos + spaces === area.length) break; // the last line's padding
      if (spaces === 0 || spaces > (xxd ? 1 : 2)) return undefined;
      pos += spaces;
    }
    word.lastIndex = pos;
    const hex = word.exec(area)?.[0];
    if (!hex || hex.length % 2) return undefined;
    for (let i = 0; i < hex.length; i += 2) {
      const j = !xxd && hex.length > 2 ? hex.length - 2 - i : i;
      bytes.push(parseInt(hex.slice(j, j + 2), 16));
      at.push(restAt + pos + j);
    }
    pos += hex.length;
  }
  return bytes.length ? { kind: 'offset', bytes, at, column } : undefined;
}

/** Every dump line of `text`, grouped into blocks of consecutive lines of one kind. */
function dumpBlocks(text: string): DumpLine[][] {
  const blocks: DumpLine[][] = [];
  let current: DumpLine[] = [];
  let start = 0;
  const close = () => {
    if (current.length) blocks.push(current);
    current = [];
  };
  const take = (end: number) => {
    const line = end > start ? parseLine(text, start, end) : undefined;
    if (!line || (current.length && current[0].kind !== line.kind)) close();
    if (line) current.push(line);
  };
  for (const m of text.matchAll(LINE_BREAK)) {
    take(m.index!);
    start = m.index! + m[0].length;
  }
  take(text.length);
  close();
  return blocks;
}

/**
 * Where the `values` (as bytes) sit in the hex dumps of `text`: the text positions to hide (each
 * byte's two hex digits and its column character). Empty when `text` holds no dump or no value.
 */
export function dumpMatches(text: string, values: readonly Buffer[]): number[] {
  if (!values.length || !DUMP_HINT.test(text)) return [];
  const hide: number[] = [];
  for (const block of dumpBlocks(text)) {
    const at = block.flatMap((l) => l.at);
    const column = block.flatMap((l) => l.bytes.map((_, i) => (l.column === undefined ? -1 : l.column + i)));
    const bytes = Buffer.from(block.flatMap((l) => l.bytes));
    for (const value of values) {
      for (let i = bytes.indexOf(value); i >= 0; i = bytes.indexOf(value, i + 1)) {
        for (let k = i; k < i + value.length; k++) {
          hide.push(at[k], at[k] + 1);
          if (column[k] >= 0 && column[k] < text.length) hide.push(column[k]);
        }
      }
    }
  }
  return hide;
}

/** `text` with the characters at `positions` replaced by `*` (same length, so other positions hold). */
export function starAt(text: string, positions: readonly number[]): string {
  if (!positions.length) return text;
  const chars = text.split('');
  for (const p of positions) chars[p] = '*';
  return chars.join('');
}
