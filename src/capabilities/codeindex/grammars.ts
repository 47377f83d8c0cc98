/**
 * The tree-sitter grammars the code index (and later the atlas) parse with: the wasm builds the
 * grammar packages ship, loaded by the pinned web-tree-sitter on first use, one per language.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';
import { lazyRequire } from '../../kernel/lazy-require.js';

/** Loaded with the first grammar, not at start (bench/memory). */
const treeSitter = lazyRequire<typeof import('web-tree-sitter')>('web-tree-sitter');

const WASM: Record<string, string> = {
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
};

const BY_EXTENSION: Record<string, string> = {
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'tsx',
  '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascript',
  '.py': 'python', '.go': 'go', '.rs': 'rust',
};

export function languageOfPath(file: string): string | undefined {
  return BY_EXTENSION[path.extname(file).toLowerCase()];
}

let init: Promise<void> | undefined;
const languages = new Map<string, Promise<Language>>();

/** A parser for the language, or undefined when its grammar cannot load (the caller falls back to line windows). */
export async function parserFor(language: string): Promise<Parser | undefined> {
  const wasm = WASM[language];
  if (!wasm) return undefined;
  try {
    const { Language, Parser } = treeSitter();
    init ??= Parser.init();
    await init;
    let lang = languages.get(language);
    if (!lang) {
      lang = Language.load(createRequire(import.meta.url).resolve(wasm));
      languages.set(language, lang);
    }
    const parser = new Parser();
    parser.setLanguage(await lang);
    return parser;
  } catch {
    return undefined;
  }
}

const shared = new Map<string, Promise<Parser | undefined>>();

/**
 * One parser per language for callers that parse synchronously and never hold a tree across an
 * await while another file is parsed (the atlas's facts): no parser is made and freed per file.
 */
export function sharedParserFor(language: string): Promise<Parser | undefined> {
  let p = shared.get(language);
  if (!p) shared.set(language, (p = parserFor(language)));
  return p;
}
