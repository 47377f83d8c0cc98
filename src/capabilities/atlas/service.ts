/**
 * Atlases (seed 000 §4.12): the standard brief (no model), atlas definitions, builds as runs
 * (a standard atlas re-briefs; a surveyed one also runs an agent that records a card per changed
 * unit and publishes views: survey.ts), staleness by content hash, progress, cards and evidence.
 * docs/atlas.md explains units, cards, views and what a person can trust in a map.
 */
import type { Emit, EngineEvent } from '../../kernel/bus.js';
import { EngineError, badRequest, conflict, notFound } from '../../kernel/errors.js';
import { orThrow, type FencedReader } from '../../kernel/fenced-read.js';
import type { LiveRun, RunLedger } from '../../kernel/runs.js';
import type { HistoryRecorder } from '../history/types.js';
import { StalenessCache } from './staleness.js';
import { standardBrief, type Brief, type FactsCache, type ScopeRoot } from './brief.js';
import { AtlasStore, ATLAS_ID } from './store.js';
import type { AtlasDefinition, AtlasDocument, AtlasProgress, Card } from './types.js';
import { checkDefinition } from './validate.js';

export interface AtlasDeps {
  dir: string;
  /** Every folder and file of a scope is judged and read through it (the brief is shown to models). */
  reader: FencedReader;
  emit: Emit;
  /** Every build is a ledger run (source `atlas`): POST /api/atlas/<id>/run answers its id. */
  runs: RunLedger;
  log: (line: string) => void;
  /** Whether a model provider is configured (a survey or a design needs one). */
  hasModel: () => boolean;
  /** Version history (seed 000 §9.3): every saved definition is a version. */
  history?: () => HistoryRecorder;
  /** Whether the file watcher reports outside edits (staleness is kept from file events only then). */
  watching: () => boolean;
}

/** What a surveyed build asks of the model side (survey.ts, given by engine.ts). */
/** One tool-less model call billed to its own run (agents/runner.ts createModelPass). */
export type ModelPass = (req: { system: string; prompt: string; source?: string; title?: string }) => Promise<string>;

export type Surveyor = (job: SurveyJob) => Promise<{ runId: string; cards: Card[]; views: AtlasDocument['views'] }>;

export interface SurveyJob {
  def: AtlasDefinition;
  brief: Brief;
  /** Units whose content changed since their card (these are surveyed; the rest keep their cards). */
  changed: string[];
  previous: AtlasDocument | undefined;
  progress: AtlasProgress;
  /** The build's run, started and finished by the service. */
  run: LiveRun;
}

const idle = (): AtlasProgress => ({ phase: 'idle', files: 0, parsed: 0, units: 0, surveyed: 0, cards: 0, views: 0 });
const slug = (scope: string) => (scope ? scope.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 50) : 'workspace') || 'root';

export type AtlasService = ReturnType<typeof createAtlasService>;

export function createAtlasService(deps: AtlasDeps) {
  const store = new AtlasStore(deps.dir);
  const cache: FactsCache = new Map();
  const progress = new Map<string, AtlasProgress>();
  const building = new Set<string>();
  const stale = new StalenessCache(deps.watching);
  let surveyor: Surveyor | undefined;
  let modelPass: ModelPass | undefined;

  async function scopeRoot(virtual: string): Promise<ScopeRoot> {
    const dir = await deps.reader.folder(virtual);
    if (!dir.ok && dir.status === 404) throw notFound(`scope "${virtual}" does not exist; name a folder of the workspace or a mount`);
    if (!dir.ok && dir.status === 400 && /is a file/.test(dir.reason)) throw badRequest(`scope "${virtual}" is a file; name a folder`);
    const { virtual: shown, real, root } = orThrow(dir);
    return { virtual: shown, abs: real, root };
  }

  /** The brief of the scope's folders, as one tree (brief.ts names units by their folders then). */
  async function brief(scope: string[], p: AtlasProgress): Promise<Brief> {
    const roots: ScopeRoot[] = [];
    for (const s of scope) roots.push(await scopeRoot(s));
    return standardBrief(roots, cache, p, deps.reader);
  }

  /** Units whose current content hash differs from the one their card was made from. */
  async function staleness(def: AtlasDefinition, doc: AtlasDocument | undefined): Promise<string[]> {
    if (!doc) return [];
    return stale.get(def.id, doc.builtAt, def.scope, async () => {
      const now = await brief(def.scope, idle());
      const was = new Map(doc.units.map((u) => [u.id, u.hash]));
      const ids = new Set(now.units.map((u) => u.id));
      return now.units.filter((u) => was.get(u.id) !== u.hash).map((u) => u.id).concat(doc.units.filter((u) => !ids.has(u.id)).map((u) => u.id)).sort();
    });
  }

  /** Saves a definition, records it as a version and announces it. */
  async function save(def: AtlasDefinition): Promise<void> {
    const text = await store.saveDefinition(def);
    await deps.history?.().record('atlas', def.id, text).catch((err) => deps.log(`atlas: history of ${def.id} not recorded: ${(err as Error).message}`));
    deps.emit('atlas.saved', { atlas: def.id });
  }

  async function must(id: string): Promise<AtlasDefinition> {
    if (!ATLAS_ID.test(id)) throw badRequest('an atlas id is lowercase letters, digits, ".", "_" or "-" (at most 64)');
    const found = await store.definition(id);
    if (!found) throw notFound(`no atlas "${id}"; GET /api/atlas lists them`);
    if (!found.def) throw badRequest(found.error!);
    return found.def;
  }

  /** Starts a build's run: a survey for a defined atlas, a fresh brief for a standard one. */
  function startRun(def: AtlasDefinition): LiveRun {
    const title = `${def.standard ? 'brief' : 'survey'} atlas ${def.id}`;
    return deps.runs.start({ source: 'atlas', title, ...(def.agent ? { agent: def.agent } : {}) });
  }

  async function build(def: AtlasDefinition, run: LiveRun): Promise<void> {
    const p = idle();
    progress.set(def.id, p);
    building.add(def.id);
    deps.emit('atlas.build.started', { atlas: def.id, runId: run.id });
    try {
      const previous = await store.document(def.id);
      const b = await brief(def.scope, p);
      let published: string[] = [];
      let doc: AtlasDocument = { id: def.id, title: def.name, scope: def.scope, builtAt: Date.now(), kind: 'standard', units: b.units, cards: b.cards, views: [b.view] };
      if (!def.standard) {
        if (!surveyor || !deps.hasModel()) throw badRequest('no model provider is configured for a survey; add one with PUT /api/config, or use POST /api/atlas/standard for a map from the code alone');
        const was = new Map(previous?.units.map((u) => [u.id, u.hash]) ?? []);
        const changed = b.units.filter((u) => was.get(u.id) !== u.hash || !previous?.cards.some((c) => c.unit === u.id && c.source === 'survey')).map((u) => u.id);
        const survey = await surveyor({ def, brief: b, changed, previous, progress: p, run });
        // Cards of unchanged units are copied forward from the last survey; changed ones come from this run.
        const kept = (previous?.cards ?? []).filter((c) => c.source === 'survey' && !changed.includes(c.unit) && b.units.some((u) => u.id === c.unit && u.hash === c.hash));
        const cards = b.cards.map((code) => survey.cards.find((c) => c.unit === code.unit) ?? kept.find((c) => c.unit === code.unit) ?? code);
        // Views merge by id: a survey that publishes none (nothing changed in them) keeps the last ones.
        published = survey.views.map((v) => v.id);
        const keptViews = (previous?.views ?? []).filter((v) => v.id !== b.view.id && !published.includes(v.id));
        doc = { ...doc, kind: 'survey', runId: survey.runId, cards, views: [b.view, ...keptViews, ...survey.views] };
      }
      p.phase = 'publishing';
      p.cards = doc.cards.length;
      p.views = doc.views.length;
      await store.saveDocument(doc);
      // Seed 000 §6: a survey that published views announces them once the document holds them.
      if (doc.runId && published.length) deps.emit('atlas.published', { atlas: def.id, runId: doc.runId, builtAt: doc.builtAt, views: published });
      deps.emit('atlas.build.completed', { atlas: def.id, units: doc.units.length, views: doc.views.length, runId: run.id });
      await run.finish('completed');
    } catch (err) {
      const error = err instanceof EngineError ? err.message : (err as Error).message;
      if (!run.done) await run.finish(run.signal.aborted ? 'stopped' : 'failed', { error });
      deps.emit('atlas.build.failed', { atlas: def.id, error, runId: run.id });
      deps.log(`atlas: build of ${def.id} failed: ${error}`);
    } finally {
      p.phase = 'idle';
      building.delete(def.id);
    }
  }

  return {
    setModel(s: Surveyor | undefined, pass: ModelPass | undefined) {
      surveyor = s;
      modelPass = pass;
    },

    /** POST /api/atlas/design {instruction | description, id?}: one model call, validated, one retry with the sentences. */
    async design(body: unknown) {
      const b = (body ?? {}) as { instruction?: unknown; description?: unknown; id?: unknown };
      const words = typeof b.instruction === 'string' ? b.instruction : typeof b.description === 'string' ? b.description : '';
      if (!words.trim()) throw badRequest('send {instruction} (or {description}): what the map should show, and optionally id to change an existing atlas');
      if (b.id !== undefined && (typeof b.id !== 'string' || !ATLAS_ID.test(b.id))) throw badRequest('id must be an atlas id: lowercase letters, digits, ".", "_" or "-"');
      if (!modelPass || !deps.hasModel()) throw badRequest('no model provider is configured; add one with PUT /api/config');
      const existing = typeof b.id === 'string' ? (await store.definition(b.id))?.def : undefined;
      const listed = await deps.reader.entries('');
      const top = (listed.ok ? listed.entries : []).filter((e) => e.kind === 'dir' && !e.name.startsWith('.') && e.name !== 'node_modules').map((e) => e.name);
      const system = 'You design code maps (atlases). Answer with one JSON object and nothing else: {"name", "description", "scope": [folders of the workspace], "views": [{"id", "kind": "graph" or "flow", "title", "guide"}], "flows": [sentences naming what to explain], "prompt": "what the survey should pay attention to"}.';
      let prompt = `The person asks: ${words}
Top-level folders of the workspace: ${top.join(', ') || '(none)'}${existing ? `
The atlas to change: ${JSON.stringify(existing)}` : ''}`;
      const id = typeof b.id === 'string' ? b.id : `map-${slug(words).slice(0, 40)}`;
      for (let attempt = 1; ; attempt++) {
        const answer = await modelPass({ system, prompt, source: 'atlas', title: `design atlas ${id}` });
        let parsed: unknown;
        try {
          parsed = JSON.parse(/\{[\s\S]*\}/.exec(answer.replace(/```(?:json)?/g, ''))?.[0] ?? '');
        } catch {
          parsed = undefined;
        }
        const { def, problems } = parsed ? checkDefinition(id, { ...(parsed as object), id }) : { def: undefined, problems: ['the answer was not one JSON object'] };
        if (def) {
          for (const s of def.scope) await scopeRoot(s).catch(() => problems.push(`scope "${s}" is not a folder of the workspace or a mount`));
          if (!problems.length) {
            await save(def);
            return { ok: true as const, id, definition: def };
          }
        }
        if (attempt >= 2) throw new EngineError(502, `the model's design was refused twice: ${problems.join('; ')}`);
        prompt += `

Your answer was refused: ${problems.join('; ')}. Answer again with the corrected JSON object only.`;
      }
    },

    /** POST /api/atlas/standard {scope}: the map of a folder from its code; the same scope twice answers the existing map. */
    async standard(body: unknown) {
      const scope = (body as { scope?: unknown } | null)?.scope;
      if (typeof scope !== 'string') throw badRequest('send {scope}: a folder such as "src" or "<mount>/lib" ("" for the whole workspace)');
      const root = await scopeRoot(scope.replace(/^\/+|\/+$/g, ''));
      const id = `std-${slug(root.virtual)}`;
      const existing = (await store.definition(id))?.def;
      const doc = existing ? await store.document(id) : undefined;
      if (existing && doc) return { id, existing: true, stale: await staleness(existing, doc), document: doc };
      const def: AtlasDefinition = { id, name: `${root.virtual || 'workspace'} (standard brief)`, scope: [root.virtual], views: [], flows: [], prompt: '', standard: true };
      await save(def);
      await build(def, startRun(def));
      const made = await store.document(id);
      if (!made) throw badRequest(`the standard brief of "${scope}" failed; GET /api/atlas/${id} says why`);
      return { id, existing: false, stale: [], document: made };
    },

    async list() {
      const out: Array<Record<string, unknown>> = [];
      for (const id of await store.ids()) {
        const found = await store.definition(id);
        if (!found?.def) {
          out.push({ id, error: found?.error ?? 'unreadable' });
          continue;
        }
        const doc = await store.document(id);
        out.push({
          id, name: found.def.name, standard: !!found.def.standard, scope: found.def.scope,
          lastBuild: doc?.builtAt ?? null, views: doc?.views.length ?? 0, units: doc?.units.length ?? 0,
          stale: (await staleness(found.def, doc)).length, building: building.has(id), progress: progress.get(id) ?? idle(),
        });
      }
      return { atlases: out };
    },

    async get(id: string) {
      const def = await must(id);
      const document = (await store.document(id)) ?? null;
      return { definition: def, document, stale: await staleness(def, document ?? undefined), building: building.has(id) };
    },

    async doc(id: string) {
      await must(id);
      const doc = await store.document(id);
      if (!doc) throw notFound(`atlas "${id}" has no document yet; POST /api/atlas/${id}/run builds one`);
      return doc;
    },

    staleness: async (id: string) => staleness(await must(id), await store.document(id)),

    progress(id: string): AtlasProgress & { building: boolean } {
      return { ...(progress.get(id) ?? idle()), building: building.has(id) };
    },

    /** A card by unit id or content hash. */
    async card(id: string, unit: string): Promise<Card> {
      await must(id);
      const doc = await store.document(id);
      const card = doc?.cards.find((c) => c.unit === unit || c.hash === unit || (unit.length >= 8 && c.hash.startsWith(unit)));
      if (!card) throw notFound(`atlas "${id}" has no card for "${unit}"; cards are named by unit (a folder of the scope) or content hash`);
      return card;
    },

    async source(id: string, ref: string): Promise<string> {
      await must(id);
      const text = await store.source(id, ref);
      if (text === undefined) throw notFound(`atlas "${id}" has no evidence "${ref}"; refs look like e1, e2 ...`);
      return text;
    },

    async put(id: string, body: unknown) {
      if (!ATLAS_ID.test(id)) throw badRequest('an atlas id is lowercase letters, digits, ".", "_" or "-" (at most 64)');
      const { def, problems } = checkDefinition(id, body);
      if (!def) throw badRequest(problems.join('; '));
      // A scope folder that is not there is a problem of the definition (400), as for a dashboard's.
      const missing: string[] = [];
      for (const s of def.scope) await scopeRoot(s).catch((err: Error) => missing.push(err.message));
      if (missing.length) throw badRequest(`atlas "${id}" was not saved; fix: ${missing.join('; ')}`);
      await save(def);
      return { ok: true as const, id, definition: def };
    },

    async remove(id: string) {
      await must(id);
      if (building.has(id)) throw conflict(`atlas "${id}" is building; wait for it or stop its run first`);
      await store.remove(id);
      stale.forget(id);
      return { ok: true as const };
    },

    /** POST /api/atlas/<id>/run: 202 at once with the build's run id; 409 while building. */
    async run(id: string) {
      const def = await must(id);
      if (building.has(id)) throw conflict(`atlas "${id}" is already building`);
      if (!def.standard && (!surveyor || !deps.hasModel())) throw badRequest('no model provider is configured for a survey; add one with PUT /api/config, or use POST /api/atlas/standard for a map from the code alone');
      building.add(id);
      const run = startRun(def);
      void build(def, run);
      return { ok: true as const, runId: run.id };
    },

    /** POST /api/chat {atlas}: the map in a few lines for the system prompt, and the tools that read it. */
    async chatBlock(id: string): Promise<{ block: string; tools: string[] }> {
      const def = await must(id);
      const doc = await store.document(id);
      if (!doc) throw notFound(`atlas "${id}" has no document yet; POST /api/atlas/${id}/run builds one`);
      const stale = new Set(await staleness(def, doc));
      const units = [...doc.units].sort((a, b) => b.rank - a.rank).slice(0, 60).map((u) => {
        const card = doc.cards.find((c) => c.unit === u.id);
        return `- ${u.id} (${u.files.length} files${stale.has(u.id) ? ', changed since its card' : ''}): ${card?.role ?? ''}${card?.dependencies.imports.length ? `; uses ${card.dependencies.imports.join(', ')}` : ''}`;
      });
      const block = [
        `# Atlas "${def.name}" (id ${id})`,
        `A map of ${def.scope.map((s) => s || 'the workspace').join(', ')}: ${doc.units.length} units, highest ranked first${doc.units.length > 60 ? ' (the first 60)' : ''}. Views: ${doc.views.map((v) => v.title).join('; ')}.`,
        ...units,
        `read_card {unit, atlas: "${id}"} answers a unit's whole card; atlas_source {ref, atlas: "${id}"} the evidence behind an edge. Import edges come from the code; roles are a model's summary.`,
      ].join('\n');
      return { block, tools: ['read_card', 'atlas_source'] };
    },

    /** Every bus event: file events in a scope let its kept staleness go. */
    onEvent: (e: EngineEvent) => stale.onEvent(e),
    archive: (id: string, ref: string, text: string) => store.archive(id, ref, text),
    /** Version history reads the definition file and restores a version over it (a bad one is listed with its error). */
    historyAdapter: {
      read: (id: string) => store.text(id),
      write: async (id: string, text: string) => {
        await store.saveText(id, text);
        deps.emit('atlas.saved', { atlas: id });
      },
    },
    definition: must,
    document: (id: string) => store.document(id),
  };
}
