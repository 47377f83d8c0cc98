/**
 * The standard brief: a map of a folder from its code alone, no model. Every source file is parsed
 * (facts.ts), its imports resolved (resolve.ts); files are grouped into units (one per folder); a
 * unit gets a card of facts (files, lines, public surface, imports, external packages, entry
 * points), a content hash over its files, and a rank (PageRank over the units' reference graph);
 * the default view draws units with an edge for every static import between them, weighted by
 * how many of the other unit's public names are used. Facts are cached by file content, so a
 * re-brief after an edit parses only the edited files. Every file is stat'ed and read through the
 * fenced reader: a link in the scope is briefed only when where it leads passes the fence, and what a
 * vault hides from models is left out (the brief is shown to models).
 */
import { createHash } from 'node:crypto';
import path from 'node:path/posix';
import type { Root } from '../../kernel/fence.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { LIMITS } from '../../kernel/limits.js';
import { Overrides } from '../files/ignore.js';
import { SKIPPED_DIRS, walkIgnoring } from '../files/walk.js';
import { factsOf, type FileFacts } from './facts.js';
import { pageRank } from './pagerank.js';
import { resolveImport } from './resolve.js';
import type { AtlasProgress, Card, GraphEdge, Unit, View } from './types.js';

export interface ScopeRoot {
  /** The scope as the person named it (a virtual folder: '' for the workspace, `<mount>/...`). */
  virtual: string;
  /** Its real folder. */
  abs: string;
  /** The root it lies in (what a walk of it leaves out depends on it). */
  root: Root;
}

interface Cached {
  mtime: number;
  size: number;
  hash: string;
  facts: FileFacts | undefined;
}

export type FactsCache = Map<string, Cached>;


export interface Brief {
  units: Unit[];
  cards: Card[];
  view: View;
}

/**
 * The brief of one folder or several. With several, every file goes by its virtual path, so a unit
 * is named by its folder as a person writes it (`shopx/ledger`) and imports between the folders
 * resolve as they would inside one (a Python `..ledger` from `shopx/nightly` is a static import).
 */
export async function standardBrief(scope: ScopeRoot | ScopeRoot[], cache: FactsCache, progress: AtlasProgress, reader: FencedReader): Promise<Brief> {
  const roots = Array.isArray(scope) ? scope : [scope];
  const single = roots.length === 1 ? roots[0] : undefined;
  progress.phase = 'scanning';
  // Each file by its key (relative to the one root, or its virtual path), with its virtual path.
  const found = new Map<string, string>();
  const areas = await reader.areas();
  for (const root of roots) {
    const hidden = reader.walkSkip(areas, root.root);
    const inRoot = (rel: string) => (root.virtual ? `${root.virtual}/${rel}` : rel);
    await walkIgnoring(root.abs, {
      overrides: new Overrides([], []),
      skip: (abs) => hidden(abs) || SKIPPED_DIRS.has(path.basename(abs)),
      links: true,
      file: (rel) => void found.set(single ? rel : inRoot(rel), inRoot(rel)),
    });
  }
  progress.files = found.size;
  progress.phase = 'parsing';
  progress.parsed = 0;
  const virtualOf = (rel: string) => (single?.virtual ? `${single.virtual}/${rel}` : rel);
  const facts = new Map<string, FileFacts>();
  const hashes = new Map<string, string>();
  for (const [rel, virtual] of found) {
    const st = await reader.stat(virtual, { areas, maxBytes: LIMITS.atlasFileBytes });
    if (!st.ok) continue;
    let c = cache.get(virtual);
    if (!c || c.mtime !== st.mtimeMs || c.size !== st.size) {
      const file = await reader.read(st, { maxBytes: LIMITS.atlasFileBytes }); // the location the stat judged, opened and proven
      if (!file.ok) continue;
      const hash = createHash('sha256').update(file.bytes).digest('hex');
      c = { mtime: file.mtimeMs, size: file.size, hash, facts: c?.hash === hash ? c.facts : await factsOf(rel, file.bytes.toString('utf8')) };
      cache.set(virtual, c);
    }
    hashes.set(rel, c.hash);
    if (c.facts) facts.set(rel, { ...c.facts, path: rel });
    progress.parsed++;
  }

  progress.phase = 'linking';
  const files = new Set(facts.keys());
  const goModules: Array<{ dir: string; module: string }> = [];
  for (const [rel, virtual] of found) {
    if (path.basename(rel) !== 'go.mod') continue;
    const file = await reader.readText(virtual, { areas });
    const module = file.ok ? /^module\s+(\S+)/m.exec(file.text)?.[1] : undefined;
    if (module) goModules.push({ dir: path.dirname(rel), module });
  }
  const unitOf = (rel: string) => path.dirname(rel);
  const byUnit = new Map<string, FileFacts[]>();
  for (const f of facts.values()) {
    const u = unitOf(f.path);
    if (!byUnit.has(u)) byUnit.set(u, []);
    byUnit.get(u)!.push(f);
  }
  // Unit -> unit edges from static imports, weighted by how many of the target file's public names the importer uses.
  const weights = new Map<string, number>();
  const external = new Map<string, Set<string>>();
  const importsOf = new Map<string, Set<string>>();
  for (const f of facts.values()) {
    const from = unitOf(f.path);
    const specs = [...f.imports, ...f.mods.map((m) => `mod:${m}`)];
    for (const spec of specs) {
      const r = resolveImport(f.path, spec, f.language, { files, goModules });
      if (!r) continue;
      if ('external' in r) {
        if (!r.external.startsWith('(unresolved)')) (external.get(from) ?? external.set(from, new Set()).get(from)!).add(r.external);
        continue;
      }
      const to = unitOf(r.file);
      if (to === from) continue;
      const target = facts.get(r.file);
      const used = target ? target.exports.filter((name) => f.uses.has(name)).length : 0;
      const key = `${from}\u0000${to}`;
      weights.set(key, (weights.get(key) ?? 0) + 1 + used);
      (importsOf.get(from) ?? importsOf.set(from, new Set()).get(from)!).add(to);
    }
  }
  const unitIds = [...byUnit.keys()].sort();
  const edges = [...weights.entries()].map(([k, weight]) => {
    const [from, to] = k.split('\u0000');
    return { from, to, weight };
  });
  const rank = pageRank(unitIds, edges);

  const units: Unit[] = [];
  const cards: Card[] = [];
  const now = Date.now();
  for (const id of unitIds) {
    const members = byUnit.get(id)!.sort((a, b) => (a.path < b.path ? -1 : 1));
    const hash = unitHash(members.map((m) => [m.path, hashes.get(m.path)!]));
    const lines = members.reduce((n, m) => n + m.lines, 0);
    const fileList = members.map((m) => virtualOf(m.path));
    units.push({ id, files: fileList, lines, hash, rank: round(rank.get(id) ?? 0) });
    cards.push({
      unit: id,
      hash,
      source: 'code',
      role: `${members.length} ${members[0].language} file${members.length === 1 ? '' : 's'} in ${id === '.' ? 'the scope root' : id}`,
      kind: /(^|\/)(test|tests|__tests__|spec)(\/|$)/.test(id) ? 'tests' : members.some((m) => m.entry) ? 'cli' : 'module',
      publicSurface: [...new Set(members.flatMap((m) => m.exports.map((e) => `${path.basename(m.path)}: ${e}`)))].slice(0, 200),
      internals: [...new Set(members.flatMap((m) => m.defines.filter((d) => !m.exports.includes(d)).map((d) => `${path.basename(m.path)}: ${d}`)))].slice(0, 200),
      dependencies: { imports: [...(importsOf.get(id) ?? [])].sort(), external: [...(external.get(id) ?? [])].sort(), stores: [], emits: [], consumes: [] },
      files: fileList,
      entryPoints: members.filter((m) => m.entry).map((m) => virtualOf(m.path)),
      uncertain: [],
      lines,
      recordedAt: now,
    });
  }
  progress.units = units.length;
  const graphEdges: GraphEdge[] = edges.map((e) => ({ from: e.from, to: e.to, kind: 'import', weight: e.weight }));
  const view: View = {
    id: 'units',
    kind: 'graph',
    title: 'Units and their imports',
    guide: 'Each box is a folder of code; an arrow is a static import, thicker when more of the other unit is used. Larger boxes rank higher (PageRank over the imports).',
    nodes: units.map((u) => ({ id: u.id, label: u.id === '.' ? single?.virtual || 'workspace' : u.id, unit: u.id, files: u.files })),
    edges: graphEdges,
  };
  progress.phase = 'idle';
  return { units, cards, view };
}

export function unitHash(files: Array<[string, string]>): string {
  const h = createHash('sha256');
  for (const [p, fileHash] of [...files].sort((a, b) => (a[0] < b[0] ? -1 : 1))) h.update(`${p}\u0000${fileHash}\n`);
  return h.digest('hex');
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
