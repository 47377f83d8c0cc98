/**
 * Code cut into chunks that follow its structure: top-level definitions (functions, classes,
 * types) as tree-sitter sees them, small neighbours (imports, constants) grouped together, a
 * definition longer than a chunk split into its members (a class into its methods, with the class's
 * first line kept as their context), and anything still too long, or any file without a grammar,
 * cut into overlapping line windows. Each chunk carries a content hash, so an unchanged chunk is
 * never embedded twice.
 */
import { createHash } from 'node:crypto';
import type { Node } from 'web-tree-sitter';
import { languageOfPath, parserFor } from './grammars.js';

export interface Chunk {
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The name of the definition the chunk holds, when it holds one. */
  name: string;
  text: string;
  /** sha-256 of the text that is embedded (path, name and code): the embedding cache's key. */
  hash: string;
}

export const MAX_CHUNK_LINES = 60;
const WINDOW_LINES = 40;
const WINDOW_OVERLAP = 8;
/** Chunks past this many characters are cut (minified or generated code). */
const MAX_CHUNK_CHARS = 6_000;

export async function chunkFile(file: string, text: string): Promise<Chunk[]> {
  const lines = text.split('\n');
  const language = languageOfPath(file);
  const parser = language ? await parserFor(language) : undefined;
  const spans: Array<{ start: number; end: number; name: string; context?: string }> = [];
  if (parser) {
    const tree = parser.parse(text);
    try {
      if (tree) structure(tree.rootNode.namedChildren.filter(notNull), spans, undefined);
    } finally {
      tree?.delete();
      parser.delete();
    }
  }
  if (!spans.length) windows(0, lines.length - 1, '', spans);
  return spans
    .map((s) => {
      const code = lines.slice(s.start, s.end + 1).join('\n').slice(0, MAX_CHUNK_CHARS);
      const body = s.context ? `${s.context}\n${code}` : code;
      return { path: file, startLine: s.start + 1, endLine: s.end + 1, name: s.name, text: body, hash: hashOf(file, s.name, body) };
    })
    .filter((c) => c.text.trim() !== '');
}

export function embeddingText(c: Pick<Chunk, 'path' | 'name' | 'text'>): string {
  return `${c.path}${c.name ? ` ${c.name}` : ''}\n${c.text}`;
}

function hashOf(file: string, name: string, body: string): string {
  return createHash('sha256').update(embeddingText({ path: file, name, text: body })).digest('hex');
}

const notNull = <T>(n: T | null): n is T => n !== null;
const rows = (n: Node) => n.endPosition.row - n.startPosition.row + 1;

function nameOf(n: Node): string {
  const direct = n.childForFieldName('name');
  if (direct) return direct.text;
  // export const f = () => ..., export function f, decorated definitions, Go type specs, Rust impls.
  for (const c of n.namedChildren) {
    if (!c) continue;
    const inner = c.childForFieldName('name') ?? c.childForFieldName('type');
    if (inner) return inner.text;
    if (/declarator|declaration|definition|spec$/.test(c.type)) {
      const deeper = nameOf(c);
      if (deeper) return deeper;
    }
  }
  return '';
}

/** Groups small neighbours, keeps each definition whole when it fits, splits bigger ones by their members. */
function structure(nodes: Node[], out: Array<{ start: number; end: number; name: string; context?: string }>, context: string | undefined): void {
  let group: Node[] = [];
  const flush = () => {
    if (!group.length) return;
    const start = group[0].startPosition.row;
    const end = group[group.length - 1].endPosition.row;
    const names = group.map(nameOf).filter(Boolean);
    out.push({ start, end, name: names.length === 1 ? names[0] : '', context });
    group = [];
  };
  for (const n of nodes) {
    const size = rows(n);
    if (size > MAX_CHUNK_LINES) {
      flush();
      const body = bodyOf(n);
      const members = body?.namedChildren.filter(notNull) ?? [];
      if (members.length > 1) {
        const header = n.text.split('\n')[0].trim();
        // The definition's own lines before its first member (signature, fields) are a chunk too.
        const first = members[0].startPosition.row;
        if (first > n.startPosition.row) out.push({ start: n.startPosition.row, end: first - 1, name: nameOf(n), context });
        structure(members, out, context ? `${context}\n${header}` : header);
      } else windows(n.startPosition.row, n.endPosition.row, nameOf(n), out, context);
      continue;
    }
    const groupStart = group.length ? group[0].startPosition.row : n.startPosition.row;
    // A definition stands alone with the comments just above it; small neighbours (imports,
    // constants) share a chunk.
    if (group.length && (n.endPosition.row - groupStart + 1 > MAX_CHUNK_LINES || group.some(isDefinition) || (isDefinition(n) && !group.every(isComment)))) {
      // The comments just above a definition go with it, not with what came before them.
      let cut = group.length;
      while (isDefinition(n) && cut > 0 && isComment(group[cut - 1]) && !group.slice(0, cut).some(isDefinition)) cut--;
      const lead = group.slice(cut);
      group = group.slice(0, cut);
      flush();
      group = lead;
    }
    group.push(n);
  }
  flush();
}

const isComment = (n: Node) => n.type.includes('comment');

/** A definition of its own: a function, class, type ... of any size; a declaration or export statement spanning lines. */
function isDefinition(n: Node): boolean {
  if (/function|class|method|impl|trait|struct|enum|interface|type_(?:alias|declaration)|module|decorated/.test(n.type)) return true;
  return rows(n) > 1 && /export_statement|lexical_declaration|variable_declaration|const_declaration|var_declaration/.test(n.type);
}

function bodyOf(n: Node): Node | null {
  const direct = n.childForFieldName('body');
  if (direct) return direct;
  for (const c of n.namedChildren) {
    if (!c) continue;
    const inner = c.childForFieldName('body') ?? c.childForFieldName('value');
    if (inner && inner.namedChildCount > 1) return inner.childForFieldName('body') ?? inner;
    if (/declaration|definition/.test(c.type)) return bodyOf(c);
  }
  return null;
}

function windows(start: number, end: number, name: string, out: Array<{ start: number; end: number; name: string; context?: string }>, context?: string): void {
  for (let s = start; s <= end; s += WINDOW_LINES - WINDOW_OVERLAP) {
    out.push({ start: s, end: Math.min(end, s + WINDOW_LINES - 1), name, context });
    if (s + WINDOW_LINES - 1 >= end) break;
  }
}
