/**
 * Stored secret values inside hex dumps (issue 38 §3). `xxd`, `xxd -p`, `hexdump -C`, `hexdump` and
 * `od -x` / `od -t x1z` print a value's bytes as hex spread over lines, so a value can straddle two
 * of them, in two pieces no plain spelling matches, and print its characters beside them in the same
 * two pieces. So the dump's lines are decoded back to bytes, the stored values searched in them, and
 * every hex digit and column character of a match replaced with `*`: the dump keeps its shape and
 * shows nothing of the value. Lines may be separated by real newlines or by JSON's `\n` (an event
 * checked as JSON text). Only a text with a line that starts like a dump is decoded at all.
 */

const isHex = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102);
const hexValue = (c: number) => (c <= 57 ? c - 48 : (c | 32) - 87);

/**
 * Whether a line (or a JSON string) of `text` starts with six hex digits, as a dump's offset or
 * `xxd -p` bytes do: the test every text takes, so it looks only after newlines and quotes, found
 * by indexOf (several times faster than one regex scan: bench/redact.bench.ts).
 */
function mayHoldDump(text: string): boolean {
  const hex6 = (i: number) => {
    for (let k = i; k < i + 6; k++) if (!isHex(text.charCodeAt(k))) return false;
    return true;
  };
  if (hex6(0)) return true;
  for (const mark of ['\n', '"', '\\n']) for (let i = text.indexOf(mark); i >= 0; i = text.indexOf(mark, i + 1)) if (hex6(i + mark.length)) return true;
  return false;
}

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
  const first = text.indexOf('"', start);
  const quote = first < 0 || first >= end ? -1 : text.slice(first, end).search(/"(?=[0-9a-fA-F]{6})/);
  return quote < 0 ? undefined : parseDumpLine(text, first + quote + 1, end);
}

function parseDumpLine(text: string, start: number, end: number): DumpLine | undefined {
  const line = text.slice(start, end);
  if (PLAIN_LINE.test(line)) {
    const bytes: number[] = [];
    const at: number[] = [];
    for (let i = start; i < end; i += 2) {
      bytes.push(hexValue(text.charCodeAt(i)) * 16 + hexValue(text.charCodeAt(i + 1)));
      at.push(i);
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
  const areaEnd = restAt + area.length;
  for (let pos = restAt; pos < areaEnd; ) {
    if (pos > restAt) {
      let spaces = 0;
      while (text.charCodeAt(pos + spaces) === 32 && pos + spaces < areaEnd) spaces++;
      if (pos + spaces === areaEnd) break; // the last line's padding
      if (spaces === 0 || spaces > (xxd ? 1 : 2)) return undefined;
      pos += spaces;
    }
    let len = 0;
    while (pos + len < areaEnd && isHex(text.charCodeAt(pos + len))) len++;
    if (!len || len % 2) return undefined;
    for (let i = 0; i < len; i += 2) {
      const j = !xxd && len > 2 ? len - 2 - i : i;
      bytes.push(hexValue(text.charCodeAt(pos + j)) * 16 + hexValue(text.charCodeAt(pos + j + 1)));
      at.push(pos + j);
    }
    pos += len;
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
  if (!values.length || !mayHoldDump(text)) return [];
  const hide: number[] = [];
  for (const block of dumpBlocks(text)) {
    const n = block.reduce((sum, l) => sum + l.bytes.length, 0);
    const bytes = Buffer.alloc(n);
    const at = new Int32Array(n);
    const column = new Int32Array(n).fill(-1);
    let k = 0;
    for (const l of block) {
      for (let i = 0; i < l.bytes.length; i++, k++) {
        bytes[k] = l.bytes[i];
        at[k] = l.at[i];
        if (l.column !== undefined) column[k] = l.column + i;
      }
    }
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
