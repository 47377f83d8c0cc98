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

export function parseNote(text: string): Omit<NoteRecord, 'rel' | 'mtimeMs' | 'size'> {
  let frontmatter: Record<string, unknown> = {};
  let body = text;
  let frontmatterError: string | undefined;
  let bodyStartLine = 0;
  try {
    const doc = parseFrontmatter(text);
    frontmatter = doc.data;
    body = doc.body;
  } catch (err) {
    frontmatterError = `frontmatter is not valid YAML (${(err as Error).message.split('\n')[0]})`;
    const end = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
    if (end) body = text.slice(end[0].length);
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
