/**
 * Words as the vault search sees them: lower-cased runs of letters and digits of any script, the
 * word being typed (matched as a prefix), and a snippet around the first word a note holds.
 */
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 120;

/** Lower-cased words (letters and digits of any script). A hand loop: this runs over every note at index time. */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32;
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 128 && isWordChar(lower, i, c));
    if (word) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      out.push(lower.slice(start, i));
      start = -1;
    }
  }
  return out;
}

export function isWordChar(text: string, i: number, c: number): boolean {
  // A surrogate pair is one character: test both halves together.
  if (c >= 0xd800 && c <= 0xdbff) return NON_ASCII_WORD.test(text.slice(i, i + 2));
  if (c >= 0xdc00 && c <= 0xdfff) return NON_ASCII_WORD.test(text.slice(i - 1, i + 1));
  return NON_ASCII_WORD.test(text[i]);
}

/**
 * The word of `query` matched as a prefix: its last word, as a search box does while one types,
 * unless the query ends in a space (the word is finished) or the word is a single character.
 */
export function prefixWord(query: string): string | undefined {
  if (/\s$/.test(query)) return undefined;
  const last = tokenize(query).at(-1);
  return last && last.length >= 2 ? last : undefined;
}

/** A one-line excerpt of `body` around the first word of the query it holds (or its opening). */
export function snippet(body: string, query: string): string {
  const words = tokenize(query);
  const prefix = prefixWord(query);
  const lower = body.toLowerCase();
  let at = -1;
  for (const w of words) {
    const end = w === prefix ? '' : '(?![\\p{L}\\p{N}])';
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${end}`, 'u');
    const m = re.exec(lower);
    if (m && (at === -1 || m.index < at)) at = m.index;
  }
  const start = at === -1 ? 0 : Math.max(0, at - SNIPPET_BEFORE);
  const end = Math.min(body.length, (at === -1 ? 0 : at) + SNIPPET_AFTER);
  let text = body.slice(start, end);
  if (start > 0) text = text.replace(/^\S*\s/, '');
  if (end < body.length) text = text.replace(/\s\S*$/, '');
  text = text.replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${text}${end < body.length ? '…' : ''}`;
}
