/**
 * Full-text search of one vault: an in-memory inverted index over three fields — the note's name
 * (and frontmatter `title`), its aliases and its body — updated note by note, so a changed note is
 * searchable as soon as it is re-indexed. Every query word must match (in any field); ranking is
 * BM25-style on the body plus fixed boosts for name and alias hits, so a note named like the query
 * comes first. Snippets come from the body around the first matching word.
 */
const WORD = /[\p{L}\p{N}]+/gu;
const NAME_BOOST = 6;
const ALIAS_BOOST = 4;
const K1 = 1.2;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 120;

export const tokenize = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

// A posting packs three counts into one number: body tf (low 16 bits), name hits, alias hits.
const pack = (body: number, name: number, alias: number) => Math.min(body, 0xffff) + Math.min(name, 0xf) * 0x10000 + Math.min(alias, 0xf) * 0x100000;
const bodyTf = (p: number) => p & 0xffff;
const nameTf = (p: number) => (p >>> 16) & 0xf;
const aliasTf = (p: number) => (p >>> 20) & 0xf;

export interface SearchDoc {
  rel: string;
  name: string;
  aliases: string[];
  body: string;
}

export interface RankedHit {
  rel: string;
  score: number;
  matched: Array<'name' | 'alias' | 'body'>;
}

export class SearchIndex {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly ids = new Map<string, number>();
  private readonly rels: Array<string | undefined> = [];
  private readonly terms: Array<string[] | undefined> = [];
  private readonly names: Array<string | undefined> = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  put(doc: SearchDoc): void {
    this.remove(doc.rel);
    const id = this.rels.length;
    this.rels.push(doc.rel);
    this.ids.set(doc.rel, id);
    this.names.push(doc.name.toLowerCase());
    const counts = new Map<string, [number, number, number]>();
    const bump = (t: string, field: 0 | 1 | 2) => {
      let c = counts.get(t);
      if (!c) counts.set(t, (c = [0, 0, 0]));
      c[field]++;
    };
    for (const t of tokenize(doc.body)) bump(t, 0);
    for (const t of tokenize(doc.name)) bump(t, 1);
    for (const a of doc.aliases) for (const t of tokenize(a)) bump(t, 2);
    for (const [t, [b, n, a]] of counts) {
      let list = this.postings.get(t);
      if (!list) this.postings.set(t, (list = new Map()));
      list.set(id, pack(b, n, a));
    }
    this.terms.push([...counts.keys()]);
    this.count++;
  }

  remove(rel: string): void {
    const id = this.ids.get(rel);
    if (id === undefined) return;
    for (const t of this.terms[id] ?? []) {
      const list = this.postings.get(t);
      list?.delete(id);
      if (list && !list.size) this.postings.delete(t);
    }
    this.ids.delete(rel);
    this.rels[id] = undefined;
    this.terms[id] = undefined;
    this.names[id] = undefined;
    this.count--;
  }

  search(query: string, limit: number, allow?: (rel: string) => boolean): RankedHit[] {
    const words = [...new Set(tokenize(query))];
    if (!words.length) return [];
    const lists: Array<[string, Map<number, number>]> = [];
    for (const w of words) {
      const list = this.postings.get(w);
      if (!list) return [];
      lists.push([w, list]);
    }
    lists.sort((a, b) => a[1].size - b[1].size);
    const n = Math.max(this.count, 1);
    const idf = lists.map(([, l]) => Math.log(1 + (n - l.size + 0.5) / (l.size + 0.5)));
    const wholeName = words.join(' ');
    const hits: RankedHit[] = [];
    outer: for (const [id, first] of lists[0][1]) {
      let score = 0;
      const matched = new Set<'name' | 'alias' | 'body'>();
      for (let i = 0; i < lists.length; i++) {
        const p = i === 0 ? first : lists[i][1].get(id);
        if (p === undefined) continue outer;
        const b = bodyTf(p);
        if (b) matched.add('body');
        if (nameTf(p)) matched.add('name');
        if (aliasTf(p)) matched.add('alias');
        score += idf[i] * (NAME_BOOST * Math.min(nameTf(p), 1) + ALIAS_BOOST * Math.min(aliasTf(p), 1) + (b * (K1 + 1)) / (b + K1));
      }
      const rel = this.rels[id]!;
      if (allow && !allow(rel)) continue;
      if (this.names[id] === wholeName) score *= 2;
      hits.push({ rel, score, matched: [...matched] });
    }
    hits.sort((a, b) => b.score - a.score || (a.rel < b.rel ? -1 : 1));
    return hits.slice(0, limit);
  }
}

/** A one-line excerpt of `body` around the first word of the query it holds (or its opening). */
export function snippet(body: string, query: string): string {
  const words = tokenize(query);
  const lower = body.toLowerCase();
  let at = -1;
  for (const w of words) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u');
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
