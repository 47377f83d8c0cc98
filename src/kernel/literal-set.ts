/**
 * Finds any of a set of literal strings in a text: the leftmost match, and at one position the
 * longest, as one alternation regex of them sorted longest first does. A regex slows down with the
 * number of strings once their first letters cover the alphabet (the exit mask's spellings of five
 * values in hex, base64 and base32 do), because it can no longer skip ahead. This is Wu and Manber's
 * multi-pattern search over character pairs: a window as long as the shortest string moves along
 * the text by how far its last pair says no string can start sooner, and only where that pair ends
 * some string's first `m` characters are those strings compared. Longer strings skip further.
 */
export class LiteralSet {
  /** The window: the length of the shortest string (at most 255, the widest shift a byte holds). */
  private readonly m: number;
  /** Pair hash -> how far the window may move when its last two characters hash so. */
  private readonly shift = new Uint8Array(1 << 16);
  /** Pair hash -> 1 + the bucket of strings whose first `m` characters end with such a pair (0: none). */
  private readonly table = new Uint16Array(1 << 16);
  /** Strings sharing the hash of the pair ending their first `m` characters, longest first. */
  private readonly buckets: string[][] = [];

  /** Strings shorter than two characters are left out (the exit mask's are four or more). */
  constructor(strings: Iterable<string>) {
    const sorted = [...new Set(strings)].filter((s) => s.length >= 2).sort((a, b) => b.length - a.length);
    const m = Math.min(255, sorted.length ? sorted[sorted.length - 1].length : 2);
    this.m = m;
    this.shift.fill(m - 1);
    for (const s of sorted) {
      for (let j = 1; j < m; j++) {
        const h = pairHash(s.charCodeAt(j - 1), s.charCodeAt(j));
        if (this.shift[h] > m - 1 - j) this.shift[h] = m - 1 - j;
      }
      const h = pairHash(s.charCodeAt(m - 2), s.charCodeAt(m - 1));
      if (!this.table[h]) this.table[h] = this.buckets.push([]);
      this.buckets[this.table[h] - 1].push(s);
    }
  }

  /** The first match at or after `from`: where, and which string. */
  find(text: string, from = 0): { index: number; match: string } | undefined {
    if (!this.buckets.length) return undefined;
    const m = this.m;
    for (let end = from + m - 1; end < text.length; ) {
      const h = pairHash(text.charCodeAt(end - 1), text.charCodeAt(end));
      const skip = this.shift[h];
      if (skip) {
        end += skip;
        continue;
      }
      const start = end - m + 1;
      for (const s of this.buckets[this.table[h] - 1]) if (text.startsWith(s, start)) return { index: start, match: s };
      end++;
    }
    return undefined;
  }

  has(text: string): boolean {
    return this.find(text) !== undefined;
  }

  /** `text` with every match replaced by `by`, left to right, as `String.replace` with a global regex. */
  replace(text: string, by: string): string {
    let out = '';
    let done = 0;
    for (let m = this.find(text); m; m = this.find(text, done)) {
      out += text.slice(done, m.index) + by;
      done = m.index + m.match.length;
    }
    return done ? out + text.slice(done) : text;
  }
}

function pairHash(a: number, b: number): number {
  return ((a * 31) ^ b) & 0xffff;
}
