/**
 * Ignore rules for the fallback walk, mirroring what ripgrep does with the flags the engine passes
 * it (`--no-require-git --no-ignore-parent --no-ignore-global`): `.rgignore`, `.ignore` and
 * `.gitignore` from the start folder down, `-g` style include/exclude overrides that win over
 * ignore files, and hidden entries skipped unless something whitelists them. The point is that
 * `grep` gives the same rows with and without ripgrep on PATH.
 */
import picomatch from 'picomatch';

export type Verdict = 'ignore' | 'whitelist' | 'none';

interface Rule {
  negate: boolean;
  dirOnly: boolean;
  test: (rel: string) => boolean;
}

/** The three families ripgrep consults, highest precedence first. */
export const IGNORE_FILES = ['.rgignore', '.ignore', '.gitignore'] as const;

/** Parses gitignore syntax into rules (later rules win). */
export function parseIgnore(text: string): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#')) continue;
    line = line.replace(/(?<!\\)\s+$/, '');
    if (!line) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    const rule = compileGlob(line);
    if (rule) rules.push({ ...rule, negate });
  }
  return rules;
}

function compileGlob(glob: string): Omit<Rule, 'negate'> | undefined {
  let g = glob;
  let dirOnly = false;
  if (g.endsWith('/')) {
    dirOnly = true;
    g = g.slice(0, -1);
  }
  if (!g) return undefined;
  const anchored = g.includes('/');
  if (g.startsWith('/')) g = g.slice(1);
  if (!g) return undefined;
  const source = anchored || g.startsWith('**/') ? g : `**/${g}`;
  const isMatch = picomatch(source, { dot: true });
  return { dirOnly, test: (rel) => isMatch(rel) };
}

/** Last matching rule wins; `none` when nothing matches. */
export function matchRules(rules: Rule[], rel: string, isDir: boolean): Verdict {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i];
    if (r.dirOnly && !isDir) continue;
    if (r.test(rel)) return r.negate ? 'whitelist' : 'ignore';
  }
  return 'none';
}

/** `-g` overrides: plain globs whitelist, `!glob` excludes; with any whitelist, an unmatched file is out. */
export class Overrides {
  private readonly rules: Rule[];
  private readonly whitelists: number;

  constructor(include: string[], exclude: string[]) {
    const globs = [...include.map((g) => ({ g, neg: false })), ...exclude.map((g) => ({ g, neg: true }))];
    this.rules = [];
    for (const { g, neg } of globs) {
      const rule = compileGlob(g);
      // In ripgrep's override syntax a plain glob is a whitelist and `!glob` an ignore.
      if (rule) this.rules.push({ ...rule, negate: !neg });
    }
    this.whitelists = include.length;
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  match(rel: string, isDir: boolean): Verdict {
    if (this.rules.length === 0) return 'none';
    const v = matchRules(this.rules, rel, isDir);
    if (v !== 'none') return v;
    return this.whitelists > 0 && !isDir ? 'ignore' : 'none';
  }
}

/**
 * One folder's ignore files. `base` is its path relative to the walk's start ('' for the start);
 * for a folder above the start, `up` is the start's path relative to that folder instead.
 */
export interface IgnoreLevel {
  base: string;
  up?: string;
  families: Rule[][]; // indexed like IGNORE_FILES
}

/** ripgrep's order: overrides, then ignore files (deepest folder first per family), then hidden. */
export function judge(levels: IgnoreLevel[], overrides: Overrides, rel: string, name: string, isDir: boolean): boolean {
  const o = overrides.match(rel, isDir);
  if (o === 'ignore') return false;
  if (o === 'whitelist') return true;
  let whitelisted = false;
  for (let f = 0; f < IGNORE_FILES.length; f++) {
    let verdict: Verdict = 'none';
    for (let i = levels.length - 1; i >= 0 && verdict === 'none'; i--) {
      const level = levels[i];
      const rules = level.families[f];
      if (!rules.length) continue;
      const local = level.up !== undefined ? `${level.up}/${rel}` : level.base ? rel.slice(level.base.length + 1) : rel;
      verdict = matchRules(rules, local, isDir);
    }
    if (verdict === 'ignore') return false;
    if (verdict === 'whitelist') {
      whitelisted = true;
      break;
    }
  }
  if (!whitelisted && name.startsWith('.')) return false;
  return true;
}
