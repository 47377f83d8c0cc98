/**
 * Full-text search of one vault: an in-memory inverted index over three fields — the note's name
 * (and frontmatter `title`), its aliases and its body — updated note by note, so a changed note is
 * searchable as soon as it is re-indexed. Every query word must match (in any field); ranking is
 * BM25-style on the body plus fixed boosts for name and alias hits, so a note named like the query
 * comes first. Snippets (words.ts) come from the body around the first matching word.
 *
 * The index holds no note text: postings are pairs of 32-bit numbers in typed arrays (off the
 * JavaScript heap, 8 bytes a posting), and the whole index is written to and read from one file
 * (`serialize`, `SearchIndex.restore`), so a start never reads a note again to tokenise it.
 */
import { grow, TermLists } from './term-lists.js';
import { isWordChar, prefixWord, tokenize } from './words.js';

const NAME_BOOST = 6;
const ALIAS_BOOST = 4;
const K1 = 1.2;

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
  /** Pairs (note id, pack) with ascending ids (ids only grow; a re-indexed note gets a new one); room to grow past `n`. */
  data: Int32Array;
  /** Pairs in use. */
  n: number;
  /** Entries whose note is still indexed; the rest are skipped and compacted away. */
  live: number;
}

const EMPTY = new Int32Array(0);
const FORMAT = 1;

function push(p: Postings, id: number, packed: number): void {
  if (2 * p.n === p.data.length) p.data = grow(p.data, Math.max(4, p.data.length * 2));
  p.data[2 * p.n] = id;
  p.data[2 * p.n + 1] = packed;
  p.n++;
}

export class SearchIndex {
  // Terms are interned to numbers and postings are append-only arrays: indexing 10 000 notes makes
  // a million postings, and a push is far cheaper than a map insert. A removed note's entries stay
  // (skipped) until its terms are compacted, or the index is serialized.
  private readonly termIds = new Map<string, number>();
  private readonly lists: Postings[] = [];
  private readonly ids = new Map<string, number>();
  private readonly rels: Array<string | undefined> = [];
  /** Each note's terms (what `remove` takes back), one note after another in one array. */
  private readonly noteTerms = new TermLists();
  private readonly names: Array<string | undefined> = [];
  private scratch = new Float64Array(1024);
  private docs = 0;
  /** Every term, sorted, for a prefix lookup by binary search; terms new since the last lookup wait in `unsorted`. */
  private sortedTerms: string[] = [];
  private unsorted: string[] = [];

  get size(): number {
    return this.docs;
  }

  has(rel: string): boolean {
    return this.ids.has(rel);
  }

  /** The notes indexed. */
  indexed(): IterableIterator<string> {
    return this.ids.keys();
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
      push(p, id, pack(c & 0xffff, (c >>> 16) & 0xf, Math.floor(c / 0x100000)));
      p.live++;
    }
    this.noteTerms.set(id, touched);
    this.docs++;
  }

  remove(rel: string): void {
    const id = this.ids.get(rel);
    if (id === undefined) return;
    this.ids.delete(rel);
    this.rels[id] = undefined;
    this.names[id] = undefined;
    for (const tid of this.noteTerms.get(id)) {
      const p = this.lists[tid];
      p.live--;
      if (p.live <= 0) {
        p.data = EMPTY;
        p.n = 0;
        p.live = 0;
      } else if (p.n > 2 * p.live + 32) this.compact(p);
    }
    this.noteTerms.drop(id);
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
    outer: for (let k = 0; k < first.n; k++) {
      const id = first.data[2 * k];
      const rel = this.rels[id];
      if (rel === undefined) continue;
      let score = 0;
      const matched = new Set<'name' | 'alias' | 'body'>();
      for (let i = 0; i < lists.length; i++) {
        const p = i === 0 ? first.data[2 * k + 1] : find(lists[i], id);
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
      for (let i = 0; i < p.n; i++) {
        const id = p.data[2 * i];
        const packed = p.data[2 * i + 1];
        if (this.rels[id] === undefined) continue;
        const c = byId.get(id) ?? [0, 0, 0];
        c[0] += bodyTf(packed);
        c[1] += nameTf(packed);
        c[2] += aliasTf(packed);
        byId.set(id, c);
      }
    }
    if (!byId.size) return undefined;
    const ids = [...byId.keys()].sort((a, b) => a - b);
    const out: Postings = { data: new Int32Array(2 * ids.length), n: 0, live: ids.length };
    for (const id of ids) push(out, id, pack(...byId.get(id)!));
    return out;
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
    this.lists.push({ data: EMPTY, n: 0, live: 0 });
    this.growScratch(tid + 1);
    return tid;
  }

  private growScratch(terms: number): void {
    if (terms <= this.scratch.length) return;
    let size = this.scratch.length;
    while (size < terms) size *= 2;
    const grown = new Float64Array(size);
    grown.set(this.scratch);
    this.scratch = grown;
  }

  private compact(p: Postings): void {
    let k = 0;
    for (let i = 0; i < p.n; i++) {
      if (this.rels[p.data[2 * i]] === undefined) continue;
      p.data[2 * k] = p.data[2 * i];
      p.data[2 * k + 1] = p.data[2 * i + 1];
      k++;
    }
    p.n = k;
    if (p.data.length > 4 * k + 8) p.data = p.data.slice(0, 2 * k);
  }

  /** Gives back the room the lists keep to grow in (after a bulk load: up to half of each). */
  trim(): void {
    for (const p of this.lists) if (p.data.length > 2 * p.n + 8) p.data = p.data.slice(0, 2 * p.n);
    this.noteTerms.fit();
  }

  /**
   * The index as bytes: a JSON header (format, the caller's stamp, terms, notes and their names)
   * then 32-bit numbers: each term's postings (count, then pairs), each note's terms (count, then
   * term numbers). Removed notes and terms no note holds any more are left out, and the notes
   * numbered again from 0 in order, so the ids stay ascending in every list.
   */
  serialize(stamp: string): Buffer {
    const noteOf = new Int32Array(this.rels.length).fill(-1);
    const rels: string[] = [];
    const names: string[] = [];
    this.rels.forEach((rel, id) => {
      if (rel === undefined) return;
      noteOf[id] = rels.length;
      rels.push(rel);
      names.push(this.names[id]!);
    });
    const termOf = new Int32Array(this.lists.length).fill(-1);
    const terms: string[] = [];
    let ints = 0;
    for (const [term, tid] of this.termIds) {
      const p = this.lists[tid];
      if (!p.live) continue;
      termOf[tid] = terms.length;
      terms.push(term);
      ints += 1 + 2 * p.live;
    }
    for (const [, id] of this.ids) ints += 1 + this.noteTerms.get(id).length;
    const header = Buffer.from(JSON.stringify({ format: FORMAT, stamp, terms, rels, names }));
    const headerBytes = 4 * Math.ceil((4 + header.length) / 4);
    const out = Buffer.alloc(headerBytes + 4 * ints);
    out.writeUInt32LE(header.length, 0);
    header.copy(out, 4);
    const body = new Int32Array(out.buffer, out.byteOffset + headerBytes, ints);
    let at = 0;
    for (const [, tid] of this.termIds) {
      const p = this.lists[tid];
      if (!p.live) continue;
      const start = at++;
      for (let i = 0; i < p.n; i++) {
        const id = noteOf[p.data[2 * i]];
        if (id < 0) continue;
        body[at++] = id;
        body[at++] = p.data[2 * i + 1];
      }
      body[start] = (at - start - 1) / 2;
    }
    this.rels.forEach((rel, id) => {
      if (rel === undefined) return;
      const list = this.noteTerms.get(id);
      body[at++] = list.length;
      for (const tid of list) body[at++] = termOf[tid];
    });
    return out;
  }

  /** An index read back from `serialize`'s bytes, or undefined when they are not one (or not stamped `stamp`). */
  static restore(bytes: Buffer, stamp: string): SearchIndex | undefined {
    try {
      const headerLength = bytes.readUInt32LE(0);
      const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength)) as { format?: number; stamp?: string; terms?: string[]; rels?: string[]; names?: string[] };
      if (header.format !== FORMAT || header.stamp !== stamp || !Array.isArray(header.terms) || !Array.isArray(header.rels) || !Array.isArray(header.names)) return undefined;
      const headerBytes = 4 * Math.ceil((4 + headerLength) / 4);
      // A copy: the file's buffer may sit at an offset a typed array cannot start at.
      const body = new Int32Array(bytes.buffer.slice(bytes.byteOffset + headerBytes, bytes.byteOffset + bytes.length));
      const index = new SearchIndex();
      let at = 0;
      const next = () => {
        if (at >= body.length) throw new Error('truncated');
        return body[at++];
      };
      for (const term of header.terms) {
        const n = next();
        if (n < 0 || at + 2 * n > body.length) throw new Error('truncated');
        index.termIds.set(term, index.lists.length);
        index.lists.push({ data: body.subarray(at, at + 2 * n), n, live: n });
        at += 2 * n;
      }
      index.sortedTerms = [...header.terms].sort();
      index.growScratch(header.terms.length);
      index.noteTerms.reserve(body.length - at - header.rels.length);
      header.rels.forEach((rel, id) => {
        const n = next();
        if (n < 0 || at + n > body.length) throw new Error('truncated');
        index.ids.set(rel, id);
        index.rels.push(rel);
        index.names.push(header.names![id]);
        index.noteTerms.set(id, body.subarray(at, at + n));
        at += n;
      });
      if (at !== body.length) return undefined;
      index.docs = header.rels.length;
      return index;
    } catch {
      return undefined; // unreadable: the caller indexes the notes again
    }
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
  let hi = p.n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = p.data[2 * mid];
    if (v === id) return p.data[2 * mid + 1];
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}
