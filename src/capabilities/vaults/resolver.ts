/**
 * THE link resolver of a vault (docs/vaults.md, "How a link resolves"). A target, compared without
 * case and without `.md`, is tried as:
 *   1. an exact vault-relative path;
 *   2. a path suffix (`[[projects/alpha]]` finds `work/projects/alpha.md`), when it holds a slash;
 *   3. a file name (when it holds no slash), the fewest folders deep winning;
 *   4. an alias (frontmatter `aliases`, and the old names refile keeps there).
 * Two candidates equally deep at step 2 or 3, or one alias on two notes, make the link ambiguous:
 * it is reported with its candidates rather than guessed. Markdown links try the path relative to
 * the linking note first, as a browser would.
 */
import path from 'node:path/posix';
import type { Resolution } from './types.js';

const stripMd = (s: string) => (/\.md$/i.test(s) ? s.slice(0, -3) : s);
const key = (s: string) => stripMd(s).toLowerCase();
const depth = (rel: string) => rel.split('/').length;
/** The duplicate check's key: case, punctuation and spacing do not make a different name ("Kettle-facts" = "kettle facts"). */
const loose = (s: string) => stripMd(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

export function normalizeTarget(target: string): string {
  return target.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '').trim();
}

/**
 * The keys a target is looked up under: its name (the last segment, which a path, a suffix, a name
 * and a relative path all end in) and its whole text (an alias). A change to the notes or aliases
 * under none of these keys cannot change how the target resolves. `*` for a target ending in `.`
 * or `..`, whose relative path ends in another name: it is resolved again on every change.
 */
export function targetKeys(rawTarget: string): string[] {
  const target = normalizeTarget(rawTarget);
  const k = key(target);
  const name = k.slice(k.lastIndexOf('/') + 1);
  if (name === '.' || name === '..') return ['*'];
  return [...new Set([name, k, target.toLowerCase()])];
}

/** The keys a note or file is found under (see targetKeys): its name and each alias. */
export function nameKeys(rel: string, aliases: string[] = []): string[] {
  return [key(path.basename(rel)), ...aliases.map((a) => a.toLowerCase())];
}

export class Resolver {
  private readonly byPath = new Map<string, string>();
  private readonly byName: Names = new Map();
  private readonly byAlias: Names = new Map();
  /** Only notes that have aliases. */
  private readonly aliasesOf = new Map<string, string[]>();
  private readonly byLoose: Names = new Map();

  add(rel: string, aliases: string[] = []): void {
    this.remove(rel);
    this.byPath.set(key(rel), rel);
    addTo(this.byName, key(path.basename(rel)), rel);
    const lowered = aliases.map((a) => a.toLowerCase());
    for (const a of lowered) addTo(this.byAlias, a, rel);
    if (lowered.length) this.aliasesOf.set(rel, lowered);
    for (const n of new Set([loose(path.basename(rel)), ...aliases.map(loose)])) if (n) addTo(this.byLoose, n, rel);
  }

  remove(rel: string): void {
    if (this.byPath.get(key(rel)) !== rel) return;
    this.byPath.delete(key(rel));
    removeFrom(this.byName, key(path.basename(rel)), rel);
    for (const a of this.aliasesOf.get(rel) ?? []) {
      removeFrom(this.byAlias, a, rel);
      removeFrom(this.byLoose, loose(a), rel);
    }
    removeFrom(this.byLoose, loose(path.basename(rel)), rel);
    this.aliasesOf.delete(rel);
  }

  has(rel: string): boolean {
    return this.byPath.get(key(rel)) === rel;
  }

  /** Notes whose name or alias is `name`, ignoring case, punctuation and spacing: the duplicate check of `propose`. */
  named(name: string): string[] {
    const k = loose(normalizeTarget(name));
    return k ? valuesOf(this.byLoose, k).sort() : [];
  }

  resolve(rawTarget: string, from?: { rel: string; relativeFirst: boolean }): Resolution {
    const target = normalizeTarget(rawTarget);
    if (!target) return from ? { status: 'resolved', path: from.rel, via: 'self' } : { status: 'unresolved' };
    if (from?.relativeFirst) {
      const joined = path.normalize(path.join(path.dirname(from.rel), target));
      const hit = !joined.startsWith('..') && this.byPath.get(key(joined));
      if (hit) return { status: 'resolved', path: hit, via: 'relative' };
    }
    const k = key(target);
    const exact = this.byPath.get(k);
    if (exact) return { status: 'resolved', path: exact, via: 'path' };
    if (k.includes('/')) {
      const name = k.slice(k.lastIndexOf('/') + 1);
      const cands = valuesOf(this.byName, name).filter((p) => key(p).endsWith('/' + k));
      const picked = shallowest(cands, 'suffix');
      if (picked) return picked;
    } else {
      const picked = shallowest(valuesOf(this.byName, k), 'name');
      if (picked) return picked;
    }
    const exactAlias = valuesOf(this.byAlias, target.toLowerCase());
    const aliased = exactAlias.length ? exactAlias : valuesOf(this.byAlias, k);
    if (aliased.length === 1) return { status: 'resolved', path: aliased[0], via: 'alias' };
    if (aliased.length > 1) return { status: 'ambiguous', candidates: aliased.sort() };
    return { status: 'unresolved' };
  }
}

/** The one candidate fewest folders deep; a tie at that depth is ambiguous; none is undefined. */
function shallowest(cands: string[], via: 'suffix' | 'name'): Resolution | undefined {
  if (!cands.length) return undefined;
  if (cands.length === 1) return { status: 'resolved', path: cands[0], via };
  const min = Math.min(...cands.map(depth));
  const top = cands.filter((c) => depth(c) === min).sort();
  if (top.length === 1) return { status: 'resolved', path: top[0], via };
  return { status: 'ambiguous', candidates: top };
}

/**
 * Notes by a key. Most names belong to one note: that note is held as the value itself, and a Set
 * only once a second note shares the key (a Set per note was a fifth of a large vault's index).
 */
type Names = Map<string, string | Set<string>>;

function addTo(map: Names, k: string, rel: string): void {
  const had = map.get(k);
  if (had === undefined || had === rel) map.set(k, rel);
  else if (typeof had === 'string') map.set(k, new Set([had, rel]));
  else had.add(rel);
}

function removeFrom(map: Names, k: string, rel: string): void {
  const had = map.get(k);
  if (had === rel) map.delete(k);
  else if (had instanceof Set) {
    had.delete(rel);
    if (had.size === 1) map.set(k, had.values().next().value!);
  }
}

function valuesOf(map: Names, k: string): string[] {
  const had = map.get(k);
  return had === undefined ? [] : typeof had === 'string' ? [had] : [...had];
}
