/**
 * Reading options the way getopt_long and git's parse-options read them: a long option may be
 * abbreviated to any unambiguous prefix (`rm --rec`, `git diff --outp=x`), and short options cluster
 * (`-vrf`). The policy over-approximates: a prefix of a dangerous option counts as that option unless
 * it is exactly another option the program knows.
 */

/** The name of a long option word, without `--` and `=value`: `--output=x` -> `output`. */
export function longName(word: string): string | undefined {
  if (!word.startsWith('--') || word.length < 3) return undefined;
  const eq = word.indexOf('=');
  return eq < 0 ? word.slice(2) : word.slice(2, eq);
}

/**
 * Does `word` spell the long option `name` (in full or abbreviated)? `exact` lists the program's other
 * options that are themselves prefixes of `name` (`--text` is not `--textconv`).
 */
export function isLong(word: string, name: string, exact: string[] = []): boolean {
  const given = longName(word);
  if (!given || exact.includes(given)) return false;
  return name.startsWith(given);
}

/** The value of a long option: `--x=v` -> v, `--x v` -> the next word. */
export function longValue(words: string[], k: number): string | undefined {
  const eq = words[k].indexOf('=');
  return eq >= 0 ? words[k].slice(eq + 1) : words[k + 1];
}

/** A short-option cluster (`-vrf`) holding `letter`, read up to the first letter that takes a value. */
export function hasShort(word: string, letter: string, valued = ''): boolean {
  if (!/^-[A-Za-z0-9]/.test(word) || word.startsWith('--')) return false;
  for (const c of word.slice(1)) {
    if (c === letter) return true;
    if (valued.includes(c)) return false;
  }
  return false;
}

/** The value of short option `letter` in `words[k]`: attached (`-Oid`) or the next word. */
export function shortValue(words: string[], k: number, letter: string): string | undefined {
  const at = words[k].indexOf(letter, 1);
  const rest = words[k].slice(at + 1);
  return rest ? rest : words[k + 1];
}

/** The words before `--` (after it, everything is an operand). */
export function optionsPart(words: string[]): string[] {
  const i = words.indexOf('--');
  return i < 0 ? words : words.slice(0, i);
}
