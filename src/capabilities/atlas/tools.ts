/**
 * The atlas tools (seed 001 §4.8): `record_card` and `publish_atlas` inside a survey run (their
 * answers are exact lists of what was accepted and rejected, seed 001 §7.9), `read_card` and
 * `atlas_source` for any run. The engine, not the model, decides a card's unit and hash, and every
 * view is checked against the code: a node's unit or files must be in the scope, an edge must join
 * nodes of its own view and be a static import between the two units or carry evidence (an excerpt
 * the engine archives as e<N>), a flow step must land on a node or unit.
 */
import type { FencedReader } from '../../kernel/fenced-read.js';
import { defineTool, type AnyTool } from '../../tools/types.js';
import type { AtlasService } from './service.js';
import { builds, excerpt, type BuildState } from './survey.js';
import { CARD_KINDS, type Card, type GraphEdge, type View } from './types.js';

const strArr = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

function stateOf(runId: string | undefined): BuildState | string {
  const s = runId ? builds.get(runId) : undefined;
  return s ?? 'record_card and publish_atlas work only inside an atlas survey (POST /api/atlas/<id>/run); read_card and atlas_source read a finished one';
}

/**
 * Which atlas a reading call means: the one named, else the one this survey run builds. The build's
 * unpublished cards count only when the call means that same atlas.
 */
function readingScope(named: string | undefined, runId: string | undefined): { id?: string; state?: BuildState } {
  const state = runId ? builds.get(runId) : undefined;
  const id = named ?? state?.atlas;
  return { id, state: state && state.atlas === id ? state : undefined };
}

export function atlasTools(atlas: AtlasService, reader: FencedReader): AnyTool[] {
  const recordCard = defineTool<Omit<Card, 'unit' | 'hash' | 'source' | 'lines' | 'recordedAt'>>({
    name: 'record_card',
    group: 'atlas',
    description: 'Record the survey card of one unit, after reading every one of its files with read_file. The engine finds the unit from files[] and stamps its identity and content hash. Answers "card recorded: <unit>" or exactly what was missing.',
    parameters: {
      type: 'object',
      properties: {
        role: { type: 'string', description: 'what the unit is for, in one or two sentences' },
        kind: { type: 'string', enum: [...CARD_KINDS] },
        publicSurface: strArr('what other units use: exported functions, types, routes, commands'),
        internals: strArr('the main inner parts'),
        dependencies: { type: 'object', properties: { imports: strArr('other units it uses'), external: strArr('packages'), stores: strArr('files, tables, caches it reads or writes'), emits: strArr('events it emits'), consumes: strArr('events it listens to') }, required: ['imports', 'external', 'stores', 'emits', 'consumes'], additionalProperties: false },
        files: strArr('every file of the unit (virtual paths)'),
        entryPoints: strArr('where execution enters the unit'),
        uncertain: strArr('what you could not establish'),
      },
      required: ['role', 'kind', 'publicSurface', 'internals', 'dependencies', 'files'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args, ctx) {
      const state = stateOf(ctx.runId);
      if (typeof state === 'string') return { text: state, isError: true };
      const problems: string[] = [];
      if (!args.role.trim()) problems.push('role is empty: say what the unit is for');
      const owners = new Set(args.files.map((f) => state.brief.units.find((u) => u.files.includes(f))?.id));
      const unknown = args.files.filter((f) => !state.brief.units.some((u) => u.files.includes(f)));
      if (unknown.length) problems.push(`files not in the atlas scope: ${unknown.join(', ')}`);
      if (owners.size !== 1 || owners.has(undefined)) problems.push(`files[] must be the files of one unit; these span ${[...owners].filter(Boolean).join(', ') || 'none'}`);
      const unit = state.brief.units.find((u) => owners.has(u.id) && owners.size === 1);
      if (unit) {
        const left = unit.files.filter((f) => !args.files.includes(f));
        if (left.length) problems.push(`files[] leaves out ${left.join(', ')} of unit ${unit.id}`);
        const unread = unit.files.filter((f) => !state.read.has(f));
        if (unread.length) problems.push(`read these files of unit ${unit.id} first: ${unread.join(', ')}`);
        if (!state.changed.has(unit.id)) problems.push(`unit ${unit.id} did not change since its card; its card stands (read_card shows it)`);
      }
      const unitIds = new Set(state.brief.units.map((u) => u.id));
      const badImports = args.dependencies.imports.filter((i) => !unitIds.has(i));
      if (badImports.length) problems.push(`dependencies.imports names units that do not exist: ${badImports.join(', ')} (units: ${[...unitIds].slice(0, 30).join(', ')})`);
      if (problems.length || !unit) return { text: `card not recorded:\n- ${problems.join('\n- ')}`, isError: true };
      state.cards.set(unit.id, { ...args, entryPoints: args.entryPoints ?? [], uncertain: args.uncertain ?? [], unit: unit.id, hash: unit.hash, source: 'survey', lines: unit.lines, runId: state.runId, recordedAt: Date.now() });
      state.progress.surveyed = state.cards.size;
      state.progress.cards = state.cards.size;
      ctx.emit('atlas.card.recorded', { atlas: state.atlas, unit: unit.id, hash: unit.hash });
      return `card recorded: ${unit.id}`;
    },
  });

  const publishAtlas = defineTool<{ views: View[]; atlas?: string; title?: string; orientation?: string }>({
    name: 'publish_atlas',
    group: 'atlas',
    description: 'Publish the atlas views: graph views ({id, kind: "graph", title, guide, nodes: [{id, label, unit? or files?}], edges: [{from, to, label?, evidence?: {path, startLine, endLine}}], groups?}) and flow views ({id, kind: "flow", title, guide, steps: [{node, text}]}). Answers which views were accepted and, for each rejected part, why.',
    parameters: {
      type: 'object',
      properties: { views: { type: 'array', items: { type: 'object' } }, atlas: { type: 'string' }, title: { type: 'string' }, orientation: { type: 'string' } },
      required: ['views'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args, ctx) {
      const state = stateOf(ctx.runId);
      if (typeof state === 'string') return { text: state, isError: true };
      const units = new Map(state.brief.units.map((u) => [u.id, u]));
      const unitOfFile = new Map(state.brief.units.flatMap((u) => u.files.map((f) => [f, u.id] as const)));
      const files = new Set(unitOfFile.keys());
      const imports = new Set((state.brief.view.edges ?? []).map((e) => `${e.from}\u0000${e.to}`));
      const accepted: View[] = [];
      const lines: string[] = [];
      const graphNodes = new Map<string, Set<string>>();
      for (const [i, raw] of args.views.entries()) {
        const v = raw as View;
        const name = `view ${JSON.stringify(v?.id ?? i)}`;
        const problems: string[] = [];
        if (!v || typeof v.id !== 'string' || !v.id) problems.push('id must be a non-empty string');
        if (v?.kind !== 'graph' && v?.kind !== 'flow') problems.push('kind must be "graph" or "flow"');
        if (typeof v?.title !== 'string' || !v.title) problems.push('title must be a non-empty string');
        if (v?.kind === 'graph') {
          const ids = new Set<string>();
          for (const n of v.nodes ?? []) {
            ids.add(n.id);
            if (n.unit !== undefined && !units.has(n.unit)) problems.push(`node "${n.id}": unit "${n.unit}" is not a unit of the scope`);
            const outside = (n.files ?? []).filter((f) => !files.has(f));
            if (outside.length) problems.push(`node "${n.id}": files ${outside.join(', ')} are not inside the atlas scope`);
            if (n.unit === undefined && !(n.files ?? []).length) problems.push(`node "${n.id}" names neither a unit nor files`);
          }
          const edges: GraphEdge[] = [];
          for (const e of (v.edges ?? []) as Array<GraphEdge & { evidence?: unknown }>) {
            if (!ids.has(e.from) || !ids.has(e.to)) {
              problems.push(`edge ${e.from} -> ${e.to} joins nodes that are not in this view`);
              continue;
            }
            // A node stands for its unit, or for the units its files belong to.
            const unitsOf = (id: string) => {
              const n = (v.nodes ?? []).find((x) => x.id === id);
              return n?.unit !== undefined ? [n.unit] : [...new Set((n?.files ?? []).map((f) => unitOfFile.get(f)!))];
            };
            const isImport = unitsOf(e.from).some((a) => unitsOf(e.to).some((b) => imports.has(`${a}\u0000${b}`)));
            const ev = e.evidence as { path?: string; startLine?: number; endLine?: number } | undefined;
            if (isImport && !ev) {
              edges.push({ from: e.from, to: e.to, kind: 'import', ...(e.label ? { label: e.label } : {}) });
              continue;
            }
            if (!ev || typeof ev.path !== 'string' || !files.has(ev.path) || !Number.isInteger(ev.startLine) || !Number.isInteger(ev.endLine)) {
              problems.push(`edge ${e.from} -> ${e.to} is not a static import between the two units; give evidence {path, startLine, endLine} inside the scope`);
              continue;
            }
            try {
              const text = await excerpt(reader, ev.path, ev.startLine!, ev.endLine!);
              const ref = `e${++state.evidence}`;
              await state.archive(ref, `${ev.path}:${ev.startLine}-${ev.endLine}\n${text}\n`);
              edges.push({ from: e.from, to: e.to, kind: 'evidence', evidence: ref, ...(e.label ? { label: e.label } : {}) });
            } catch (err) {
              problems.push(`edge ${e.from} -> ${e.to}: ${(err as Error).message}`);
            }
          }
          if (!problems.length) {
            graphNodes.set(v.id, ids);
            accepted.push({ id: v.id, kind: 'graph', title: v.title, ...(v.guide ? { guide: v.guide } : {}), nodes: v.nodes, edges, ...(v.groups ? { groups: v.groups } : {}) });
          }
        } else if (v?.kind === 'flow') {
          const known = new Set([...units.keys(), ...[...graphNodes.values()].flatMap((s) => [...s])]);
          (v.steps ?? []).forEach((s, k) => {
            if (!known.has(s.node)) problems.push(`step ${k + 1} is on "${s.node}", which is no node of a graph view and no unit`);
          });
          if (!(v.steps ?? []).length) problems.push('a flow view needs steps');
          if (!problems.length) accepted.push({ id: v.id, kind: 'flow', title: v.title, ...(v.guide ? { guide: v.guide } : {}), steps: v.steps });
        }
        lines.push(problems.length ? `${name} rejected:\n  - ${problems.join('\n  - ')}` : `${name} accepted`);
      }
      state.views = [...state.views.filter((v) => !accepted.some((a) => a.id === v.id)), ...accepted];
      state.progress.views = state.views.length;
      return { text: lines.join('\n'), isError: accepted.length === 0 };
    },
  });

  const readCard = defineTool<{ unit: string; atlas?: string }>({
    name: 'read_card',
    group: 'atlas',
    readOnly: true,
    description: "One unit's full card (a unit id or a content hash): in a survey, of the atlas being built; else of the atlas named.",
    parameters: { type: 'object', properties: { unit: { type: 'string' }, atlas: { type: 'string' } }, required: ['unit'], additionalProperties: false },
    permission: 'other',
    async run(args, ctx) {
      const { id, state } = readingScope(args.atlas, ctx.runId);
      if (!id) return { text: 'name the atlas: read_card {unit, atlas}', isError: true };
      const card = state?.cards.get(args.unit) ?? (await atlas.card(id, args.unit).catch(() => state?.brief.cards.find((c) => c.unit === args.unit || c.hash === args.unit)));
      if (!card) return { text: `atlas "${id}" has no card for "${args.unit}"`, isError: true };
      return JSON.stringify(card, null, 1);
    },
  });

  const atlasSource = defineTool<{ ref: string; atlas?: string }>({
    name: 'atlas_source',
    group: 'atlas',
    readOnly: true,
    description: 'The full evidence behind a citation (e1, e2 ...): the archived excerpt with its path and line numbers.',
    parameters: { type: 'object', properties: { ref: { type: 'string' }, atlas: { type: 'string' } }, required: ['ref'], additionalProperties: false },
    permission: 'other',
    async run(args, ctx) {
      const { id } = readingScope(args.atlas, ctx.runId);
      if (!id) return { text: 'name the atlas: atlas_source {ref, atlas}', isError: true };
      try {
        return await atlas.source(id, args.ref);
      } catch (err) {
        return { text: (err as Error).message, isError: true };
      }
    },
  });

  return [recordCard, publishAtlas, readCard, atlasSource];
}

/** Survey runs see which files they read: record_card needs every file of its unit read first. */
export function noteRead(runId: string | undefined, path: unknown): void {
  if (runId && typeof path === 'string') builds.get(runId)?.read.add(path);
}
