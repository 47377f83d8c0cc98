/**
 * One note's text -> what the index keeps: frontmatter, aliases, headings and outbound links
 * (`[[target]]`, `[[target|label]]`, `[[target#heading]]`, `![[embed]]`, `[label](note.md)`).
 * Links inside code (fenced blocks, inline spans) are text, not links, as in Obsidian.
 */
import { parseFrontmatter } from '../../kernel/home.js';
import type { NoteRecord, RawLink } from './types.js';

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const WIKI = /(!?)\[\[([^[\]\n]+?)\]\]/g;
const MD_LINK = /(!?)\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)/g;
const HEADING = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/;

/** The text after a note's frontmatter block (no YAML parsed): what a search snippet is cut from. */
export function noteBody(text: string): string {
  const end = FRONTMATTER.exec(text);
  return end ? text.slice(end[0].length) : text;
}

/** The note's record (what the index keeps) and its body (what the search index tokenises, then drops). */
export function parseNote(text: string): Omit<NoteRecord, 'rel' | 'mtimeMs' | 'size'> & { body: string } {
  let frontmatter: Record<string, unknown> = {};
  let body = text;
  let frontmatterError: string | undefined;
  let bodyStartLine = 0;
  try {
    const doc = simpleFrontmatter(text) ?? parseFrontmatter(text);
    frontmatter = doc.data;
    body = doc.body;
  } catch (err) {
    frontmatterError = `frontmatter is not valid YAML (${(err as Error).message.split('\n')[0]})`;
    body = noteBody(text);
  }
  if (body !== text) bodyStartLine = countLines(text.slice(0, text.length - body.length));
  const links: RawLink[] = [];
  const headings: string[] = [];
  let fence: string | undefined;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    const h = HEADING.exec(line);
    if (h) headings.push(h[1]);
    if (!line.includes('[')) continue;
    const plain = line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
    const lineNo = bodyStartLine + i + 1;
    for (const m of plain.matchAll(WIKI)) {
      const inner = m[2];
      const bar = inner.indexOf('|');
      const ref = bar === -1 ? inner : inner.slice(0, bar);
      const label = bar === -1 ? undefined : inner.slice(bar + 1).trim();
      const hash = ref.indexOf('#');
      const target = (hash === -1 ? ref : ref.slice(0, hash)).trim();
      const heading = hash === -1 ? undefined : ref.slice(hash + 1).trim();
      links.push({ kind: m[1] ? 'embed' : 'wikilink', target, ...(heading ? { heading } : {}), ...(label ? { label } : {}), line: lineNo });
    }
    for (const m of plain.matchAll(MD_LINK)) {
      let href = m[3];
      if (href.startsWith('<')) href = href.slice(1, -1);
      if (SCHEME.test(href) || href.startsWith('#') || href.startsWith('//')) continue;
      const hash = href.indexOf('#');
      let target = hash === -1 ? href : href.slice(0, hash);
      const heading = hash === -1 ? undefined : safeDecode(href.slice(hash + 1));
      target = safeDecode(target);
      // Only links to notes: `x.md` or an extension-less name. Images and other files are attachments.
      if (!target || (/\.[A-Za-z0-9]{1,8}$/.test(target) && !/\.md$/i.test(target))) continue;
      links.push({ kind: 'markdown', target, ...(heading ? { heading } : {}), ...(m[2] ? { label: m[2] } : {}), line: lineNo });
    }
  }
  return { frontmatter, aliases: aliasesOf(frontmatter), headings, links, body, ...(frontmatterError ? { frontmatterError } : {}) };
}

/** Frontmatter `aliases` (a list or one string) and Obsidian's older `alias`. */
export function aliasesOf(frontmatter: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of ['aliases', 'alias']) {
    const v = frontmatter[key];
    const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
    for (const a of list) if (typeof a === 'string' && a.trim() && !out.includes(a.trim())) out.push(a.trim());
  }
  return out;
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A heading as a link names it: case and punctuation do not matter (`#My Heading` finds "My heading!"). */
export const headingKey = (h: string) => h.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const FM_BLOCK = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;
const FM_LINE = /^([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const FM_ITEM = /^[ \t]+-[ \t]+(.*?)[ \t]*$/;
const PLAIN = /^[^\s&*!|>'"%@`{[#,?:-][^#]*$/;
const NUMBER = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/**
 * The frontmatter most notes carry (`key: value`, `key: [a, b]`, `key:` + `- item` lines, plain
 * scalars) read without the YAML library, which costs more than the rest of indexing a note.
 * Anything beyond that subset answers undefined and goes to the YAML parser, so results never differ.
 */
export function simpleFrontmatter(source: string): { data: Record<string, unknown>; body: string } | undefined {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const m = text.startsWith('---') ? FM_BLOCK.exec(text) : null;
  if (!m) return { data: {}, body: text };
  const data: Record<string, unknown> = {};
  // `key:` with nothing after it is null, or the list of `- item` lines that follow it.
  let listKey: string | undefined;
  let list: unknown[] = [];
  const settle = () => {
    if (listKey !== undefined && list.length) data[listKey] = list;
    listKey = undefined;
    list = [];
  };
  for (const line of m[1].split(/\r?\n/)) {
    if (!line.trim()) continue;
    const item = listKey !== undefined ? FM_ITEM.exec(line) : null;
    if (item) {
      const v = scalar(item[1]);
      if (v === FALLBACK) return undefined;
      list.push(v);
      continue;
    }
    settle();
    const kv = FM_LINE.exec(line);
    if (!kv || Object.hasOwn(data, kv[1])) return undefined;
    const raw = kv[2] ?? '';
    if (raw === '') {
      data[kv[1]] = null;
      listKey = kv[1];
      continue;
    }
    if (raw.startsWith('[')) {
      if (!raw.endsWith(']')) return undefined;
      const inner = raw.slice(1, -1).trim();
      const items = inner ? inner.split(',').map((x) => (x.trim() ? scalar(x.trim()) : FALLBACK)) : [];
      if (items.includes(FALLBACK)) return undefined;
      data[kv[1]] = items;
      continue;
    }
    const v = scalar(raw);
    if (v === FALLBACK) return undefined;
    data[kv[1]] = v;
  }
  settle();
  return { data, body: text.slice(m[0].length) };
}

const FALLBACK = Symbol('fallback');

function scalar(raw: string): unknown {
  if (raw === '' || raw === '~' || raw === 'null' || raw === 'Null' || raw === 'NULL') return null;
  if (raw === 'true' || raw === 'True' || raw === 'TRUE') return true;
  if (raw === 'false' || raw === 'False' || raw === 'FALSE') return false;
  if (NUMBER.test(raw)) return Number(raw);
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    const inner = raw.slice(1, -1);
    return /["\\]/.test(inner) ? FALLBACK : inner;
  }
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'")) {
    const inner = raw.slice(1, -1);
    return inner.includes("'") ? FALLBACK : inner;
  }
  // Plain text only: no indicator first, no comment, no `: ` mapping, no special number forms.
  if (!PLAIN.test(raw) || raw.includes(': ') || raw.endsWith(':') || /^(\.inf|\.nan|0x|0o)/i.test(raw)) return FALLBACK;
  return raw;
}
