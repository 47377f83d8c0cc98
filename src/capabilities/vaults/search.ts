/**
 * Full-text search of one vault: an in-memory inverted index over three fields — the note's name
 * (and frontmatter `title`), its aliases and its body — updated note by note, so a changed note is
 * searchable as soon as it is re-indexed. Every query word must match (in any field); ranking is
 * BM25-style on the body plus fixed boosts for name and alias hits, so a note named like the query
 * comes first. Snippets come from the body around the first matching word.
 */
const NAME_BOOST = 6;
const ALIAS_BOOST = 4;
const K1 = 1.2;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 120;

const NON_ASCII_WORD = /[\p{L}\p{N}]/u;

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

function isWordChar(text: string, i: number, c: number): boolean {
  // A surrogate pair is one character: test both halves together.
  if (c >= 0xd800 && c <= 0xdbff) return NON_ASCII_WORD.test(text.slice(i, i + 2));
  if (c >= 0xdc00 && c <= 0xdfff) return NON_ASCII_WORD.test(text.slice(i - 1, i + 1));
  return NON_ASCII_WORD.test(text[i]);
}

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

interface Postings {
  /** Note ids, ascending (ids only grow; a re-indexed note gets a new one). */
  ids: number[];
  packs: number[];
  /** Entries whose note is still indexed; the rest are skipped and compacted away. */
  live: number;
}

export class SearchIndex {
  // Terms are interned to numbers and postings are append-only arrays: indexing 10 000 notes makes
  // a million postings, and a push is far cheaper than a map insert. A removed note's entries stay
  // (skipped) until its terms are compacted.
  private readonly termIds = new Map<string, number>();
  private readonly lists: Postings[] = [];
  private readonly ids = new Map<string, number>();
  private readonly rels: Array<string | undefined> = [];
  private readonly terms: Array<Int32Array | undefined> = [];
  private readonly names: Array<string | undefined> = [];
  private scratch = new Float64Array(1024);
  private docs = 0;
  /** Every term, sorted, for a prefix lookup by binary search; terms new since the last lookup wait in `unsorted`. */
  private sortedTerms: string[] = [];
  private unsorted: string[] = [];

  get size(): number {
    return this.docs;
  }

  put(doc: SearchDoc): void {
    this.remove(doc.rel);
    const id = this.rels.length;
    this.rels.push(doc.rel);
    this.ids.set(doc.rel, id);
    this.names.push(doc.name.toLowerCase());
    // Per-term counts packed as postings are: body + name * 0x10000 + alias * 0x100000, capped.
    const touched: number[] = [];
    this.count(doc.body, 0, touched);
    this.count(doc.name, 1, touched);
    for (const a of doc.aliases) this.count(a, 2, touched);
    for (const tid of touched) {
      const c = this.scratch[tid];
      this.scratch[tid] = 0;
      const p = this.lists[tid];
      p.ids.push(id);
      p.packs.push(pack(c & 0xffff, (c >>> 16) & 0xf, Math.floor(c / 0x100000)));
      p.live++;
    }
    this.terms.push(Int32Array.from(touched));
    this.docs++;
  }

  remove(rel: string): void {
    const id = this.ids.get(rel);
    if (id === undefined) return;
    this.ids.delete(rel);
    this.rels[id] = undefined;
    this.names[id] = undefined;
    for (const tid of this.terms[id] ?? []) {
      const p = this.lists[tid];
      p.live--;
      if (p.live <= 0) {
        p.ids = [];
        p.packs = [];
        p.live = 0;
      } else if (p.ids.length > 2 * p.live + 32) this.compact(p);
    }
    this.terms[id] = undefined;
    this.docs--;
  }

  search(query: string, limit: number, allow?: (rel: string) => boolean): RankedHit[] {
    const words = [...new Set(tokenize(query))];
    if (!words.length) return [];
    const prefix = prefixWord(query);
    const lists: Postings[] = [];
    for (const w of words) {
      const tid = this.termIds.get(w);
      const p = w === prefix ? this.prefixPostings(w) : tid === undefined ? undefined : this.lists[tid];
      if (!p?.live) return [];
      lists.push(p);
    }
    lists.sort((a, b) => a.live - b.live);
    const n = Math.max(this.docs, 1);
    const idf = lists.map((l) => Math.log(1 + (n - l.live + 0.5) / (l.live + 0.5)));
    const wholeName = words.join(' ');
    const hits: RankedHit[] = [];
    const first = lists[0];
    outer: for (let k = 0; k < first.ids.length; k++) {
      const id = first.ids[k];
      const rel = this.rels[id];
      if (rel === undefined) continue;
      let score = 0;
      const matched = new Set<'name' | 'alias' | 'body'>();
      for (let i = 0; i < lists.length; i++) {
        const p = i === 0 ? first.packs[k] : find(lists[i], id);
        if (p === undefined) continue outer;
        const b = bodyTf(p);
        if (b) matched.add('body');
        if (nameTf(p)) matched.add('name');
        if (aliasTf(p)) matched.add('alias');
        score += idf[i] * (NAME_BOOST * Math.min(nameTf(p), 1) + ALIAS_BOOST * Math.min(aliasTf(p), 1) + (b * (K1 + 1)) / (b + K1));
      }
      if (allow && !allow(rel)) continue;
      if (this.names[id] === wholeName) score *= 2;
      hits.push({ rel, score, matched: [...matched] });
    }
    hits.sort((a, b) => b.score - a.score || (a.rel < b.rel ? -1 : 1));
    return hits.slice(0, limit);
  }

  /** Adds the words of `text` to the scratch counts (field 0 body, 1 name, 2 alias); tokenizes in place, as `tokenize` does. */
  private count(text: string, field: 0 | 1 | 2, touched: number[]): void {
    const lower = text.toLowerCase();
    let start = -1;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 128 && isWordChar(lower, i, c))) {
        if (start === -1) start = i;
        continue;
      }
      if (start === -1) continue;
      const t = lower.slice(start, i);
      start = -1;
      let tid = this.termIds.get(t);
      if (tid === undefined) tid = this.newTerm(t);
      const v = this.scratch[tid];
      if (v === 0) touched.push(tid);
      if (field === 0) this.scratch[tid] = (v & 0xffff) < 0xffff ? v + 1 : v;
      else if (field === 1) this.scratch[tid] = ((v >>> 16) & 0xf) < 0xf ? v + 0x10000 : v;
      else this.scratch[tid] = v + 0x100000;
    }
  }

  /**
   * One posting list for every term starting with `prefix` (the word being typed: `kettl` finds
   * kettle and kettles), counts of one note added up. A scan of the terms: a query, not indexing.
   */
  private prefixPostings(prefix: string): Postings | undefined {
    const byId = new Map<number, [number, number, number]>();
    const terms = this.sorted();
    for (let t = lowerBound(terms, prefix); t < terms.length && terms[t].startsWith(prefix); t++) {
      const p = this.lists[this.termIds.get(terms[t])!];
      for (let i = 0; i < p.ids.length; i++) {
        if (this.rels[p.ids[i]] === undefined) continue;
        const c = byId.get(p.ids[i]) ?? [0, 0, 0];
        c[0] += bodyTf(p.packs[i]);
        c[1] += nameTf(p.packs[i]);
        c[2] += aliasTf(p.packs[i]);
        byId.set(p.ids[i], c);
      }
    }
    if (!byId.size) return undefined;
    const ids = [...byId.keys()].sort((a, b) => a - b);
    return { ids, packs: ids.map((id) => pack(...byId.get(id)!)), live: ids.length };
  }

  /**
   * The terms in order, the new ones put in place first: sorted among themselves and merged in one
   * pass, so an import of many new words costs the vault's terms once, not once per word.
   */
  private sorted(): string[] {
    if (!this.unsorted.length) return this.sortedTerms;
    const old = this.sortedTerms;
    const add = this.unsorted.sort();
    const merged: string[] = new Array(old.length + add.length);
    let i = 0;
    let j = 0;
    for (let k = 0; k < merged.length; k++) merged[k] = j >= add.length || (i < old.length && old[i] <= add[j]) ? old[i++] : add[j++];
    this.sortedTerms = merged;
    this.unsorted = [];
    return merged;
  }

  private newTerm(t: string): number {
    const tid = this.lists.length;
    this.unsorted.push(t);
    this.termIds.set(t, tid);
    this.lists.push({ ids: [], packs: [], live: 0 });
    if (tid >= this.scratch.length) {
      const grown = new Float64Array(this.scratch.length * 2);
      grown.set(this.scratch);
      this.scratch = grown;
    }
    return tid;
  }

  private compact(p: Postings): void {
    const ids: number[] = [];
    const packs: number[] = [];
    for (let i = 0; i < p.ids.length; i++) {
      if (this.rels[p.ids[i]] === undefined) continue;
      ids.push(p.ids[i]);
      packs.push(p.packs[i]);
    }
    p.ids = ids;
    p.packs = packs;
  }
}

/** The first index of sorted `terms` whose term is not below `t` (code-unit order, as `sort()` leaves it). */
function lowerBound(terms: string[], t: string): number {
  let lo = 0;
  let hi = terms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (terms[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The posting of `id` in `p` (binary search over ascending ids), if it is there. */
function find(p: Postings, id: number): number | undefined {
  let lo = 0;
  let hi = p.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = p.ids[mid];
    if (v === id) return p.packs[mid];
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
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
