/**
 * What a completion sees besides the cursor: the prefix and suffix cut to a budget at line
 * boundaries (the lines nearest the cursor matter most), the language from the file's name, and a
 * few lines from files recently opened or edited in the same workspace (Continue's "recently
 * edited" snippets), written as comments so a FIM model reads them as part of the file.
 */
import path from 'node:path';

export const PREFIX_BUDGET_CHARS = 6_000;
export const SUFFIX_BUDGET_CHARS = 2_000;
const SNIPPET_FILES = 3;
const SNIPPET_CHARS = 800;

const LANGUAGES: Record<string, string> = {
  ts: 'TypeScript', tsx: 'TypeScript (TSX)', mts: 'TypeScript', cts: 'TypeScript', js: 'JavaScript', jsx: 'JavaScript (JSX)', mjs: 'JavaScript', cjs: 'JavaScript',
  py: 'Python', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', swift: 'Swift', c: 'C', h: 'C', cc: 'C++', cpp: 'C++', hpp: 'C++', cs: 'C#',
  rb: 'Ruby', php: 'PHP', sh: 'Shell', bash: 'Shell', zsh: 'Shell', sql: 'SQL', html: 'HTML', css: 'CSS', scss: 'SCSS', json: 'JSON', yaml: 'YAML', yml: 'YAML',
  toml: 'TOML', md: 'Markdown', lua: 'Lua', ex: 'Elixir', exs: 'Elixir', hs: 'Haskell', scala: 'Scala', dart: 'Dart', vue: 'Vue', svelte: 'Svelte',
};

export function languageOf(file: string): string {
  const ext = path.extname(file).slice(1).toLowerCase();
  return LANGUAGES[ext] ?? (ext ? ext : 'plain text');
}

/** The end of the prefix within the budget, starting at a line boundary. */
export function cutPrefix(prefix: string, budget = PREFIX_BUDGET_CHARS): string {
  if (prefix.length <= budget) return prefix;
  const tail = prefix.slice(prefix.length - budget);
  const nl = tail.indexOf('\n');
  return nl >= 0 ? tail.slice(nl + 1) : tail;
}

/** The start of the suffix within the budget, ending at a line boundary. */
export function cutSuffix(suffix: string, budget = SUFFIX_BUDGET_CHARS): string {
  if (suffix.length <= budget) return suffix;
  const head = suffix.slice(0, budget);
  const nl = head.lastIndexOf('\n');
  return nl >= 0 ? head.slice(0, nl + 1) : head;
}

const COMMENT: Record<string, string> = { Python: '#', Shell: '#', Ruby: '#', YAML: '#', TOML: '#', Elixir: '#', SQL: '--', Lua: '--', Haskell: '--' };

/** Recently touched files of the workspace, newest first (not the one being completed). */
export class RecentFiles {
  private readonly order: string[] = [];
  touch(file: string): void {
    const at = this.order.indexOf(file);
    if (at >= 0) this.order.splice(at, 1);
    this.order.unshift(file);
    this.order.length = Math.min(this.order.length, 16);
  }
  forget(file: string): void {
    const at = this.order.indexOf(file);
    if (at >= 0) this.order.splice(at, 1);
  }
  others(file: string): string[] {
    return this.order.filter((f) => f !== file).slice(0, SNIPPET_FILES);
  }
}

/** The snippets block put in front of the prefix: each file's first lines, commented out. */
export function snippetsBlock(lang: string, snippets: Array<{ path: string; content: string }>): string {
  if (!snippets.length) return '';
  const c = COMMENT[lang] ?? '//';
  return snippets
    .map((s) => {
      const lines = cutSuffix(s.content, SNIPPET_CHARS).split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
      return [`${c} Path: ${s.path}`, ...lines.map((l) => `${c} ${l}`)].join('\n') + '\n';
    })
    .join('');
}
