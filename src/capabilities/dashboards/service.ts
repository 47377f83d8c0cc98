/**
 * Dashboards: definitions, builds, publishing, sources and the refresh schedule. The pieces live
 * beside this file (definition, catalog, publish, build, archive, refresh, render); this file keeps
 * the state that ties them together: which dashboard is building, and which runs publish where.
 */
import path from 'node:path';
import { badRequest, conflict, describeError, notFound } from '../../kernel/errors.js';
import type { Emit } from '../../kernel/bus.js';
import type { Home } from '../../kernel/home.js';
import type { HistoryRecorder } from '../history/types.js';
import { type Clock, realClock } from '../workflows/clock.js';
import { pruneSources, readSource, SourceArchive } from './archive.js';
import { type Build, type BuildDeps, DASHBOARD_TOOLS, executeBuild, type StartedBuild, startBuildRun } from './build.js';
import { createCatalog } from './catalog.js';
import { DASHBOARD_ID, definitionProblems, normaliseDefinition, type DefinitionContext } from './definition.js';
import { designDefinition } from './design.js';
import { chatBlock } from './prompts.js';
import { checkWidgets, describePublish, mergeWidgets } from './publish.js';
import { createRefresher } from './refresh.js';
import { createDashboardStore, type DashboardEntry } from './store.js';
import type { BuildOutcome, DashboardDefinition, DashboardTurn, Widget } from './types.js';
import { PERSON, authority, type ModelAuthor, type Provenance, type ProvenanceStore } from '../../kernel/provenance.js';
import type { ToolContext } from '../../tools/types.js';
import { definitionFromPublish } from './create.js';

export interface DashboardsDeps extends BuildDeps {
  home: Home;
  /** Engine-wide events (those of a build go through its run). */
  emit: Emit;
  log: (line: string) => void;
  clock?: Clock;
  history?: () => HistoryRecorder;
  /** Defined agent names, for the definition check. */
  agentNames?: () => Promise<string[]>;
  /** One tool-less model pass billed to its own run (the design route). */
  modelPass: (req: { system: string; prompt: string; source?: string; title?: string }) => Promise<string>;
  /**
   * Who wrote a definition (src/kernel/provenance.ts): a person's PUT, or the model of the design
   * route. A refresh of a model's definition runs gated as that model, so a schedule a model wrote
   * cannot do unattended what its author could not do.
   */
  provenance?: Pick<ProvenanceStore, 'record' | 'of'>;
  /** The author a design-route definition is recorded under: a model, nobody watching, today's rules. */
  designAuthor?: () => Promise<ModelAuthor>;
  /** The author a tool call stamps on a dashboard it creates (the permission gate's authorOf). */
  toolAuthor?: (ctx: PublishContext) => Promise<ModelAuthor>;
}

/** What publish_dashboard is called with: the tool context's run, events and author inputs. */
export type PublishContext = Pick<ToolContext, 'runId' | 'emit' | 'sessionId' | 'attended' | 'authors'>;

type PublishArgs = { widgets: unknown; dashboard?: string; title?: string; subtitle?: string; replace?: boolean };

/** What a run publishing into a dashboard has: the build itself, or a chat turn's archive. */
interface Binding {
  dashboard: string;
  archive: SourceArchive;
  build?: Build;
}

export type DashboardsService = Awaited<ReturnType<typeof createDashboardsService>>;

export async function createDashboardsService(deps: DashboardsDeps) {
  const catalog = createCatalog(deps.home);
  const context = async (): Promise<DefinitionContext> => ({ types: catalog.types(), toolNames: deps.tools.names(), agentNames: deps.agentNames ? await deps.agentNames() : undefined });
  // A file on disk is judged without the agent and tool lists: MCP tools connect after the engine
  // starts, and an agent deleted later does not break the page (the build names what is missing).
  const store = createDashboardStore(deps.home, (_id, value) => definitionProblems(value, { types: catalog.types() }));
  /** Dashboards building now; set before the first await of a start, so two starts never both pass. */
  const building = new Map<string, Build | 'starting'>();
  const bindings = new Map<string, Binding>();
  const sourcesDir = (id: string) => path.join(store.dataDir(id), 'sources');
  const refresher = createRefresher({
    clock: deps.clock ?? realClock,
    log: deps.log,
    fire: async (id, at) => {
      if (building.has(id)) return void deps.emit('dashboard.build.skipped', { dashboard: id, reason: 'a build of it is still running', firedAt: new Date(at).toISOString() });
      await startBuild(id, 'refresh');
    },
  });

  await catalog.load();
  await store.load();
  const syncRefresh = () => refresher.sync(store.all().filter((e) => e.definition).map((e) => ({ id: e.id, refresh: e.definition!.refresh, paused: e.definition!.paused })));
  syncRefresh();
  // Hand edits of a definition are seen at once (their refresh schedule too) and announced, as workflows' are.
  await store.watch((ids) => {
    syncRefresh();
    for (const id of ids) {
      const e = store.get(id);
      deps.emit('dashboards.changed', e ? { dashboard: id, change: 'edited', by: authorOf(id, e.definition).by } : { dashboard: id, change: 'deleted', by: 'person' });
    }
  }, deps.log);

  /** The run of the build in flight, once it has one. */
  const buildRun = (id: string) => {
    const b = building.get(id);
    return b && b !== 'starting' ? b.run.id : undefined;
  };

  function entry(id: string): DashboardEntry & { definition: DashboardDefinition } {
    const e = store.get(id);
    if (!e) throw notFound(`no dashboard "${id}" (GET /api/dashboards lists them; PUT /api/dashboards/${id} creates it)`);
    if (!e.definition) throw badRequest(`dashboard "${id}" cannot be used: ${e.error}`);
    return e as DashboardEntry & { definition: DashboardDefinition };
  }

  /** Who wrote a definition: the saved text is what its author wrote. */
  const provenanceOf = (id: string, def: DashboardDefinition): Provenance => (deps.provenance ? deps.provenance.of('dashboard', id, JSON.stringify(def, null, 2) + '\n') : PERSON);

  /** Who wrote a definition, as clients see it (the run and session of a model, never its rules). */
  function authorOf(id: string, def: DashboardDefinition | undefined) {
    const p = def ? provenanceOf(id, def) : PERSON;
    return p.by === 'person' ? { by: 'person' as const } : { by: 'model' as const, runId: p.runId, sessionId: p.sessionId, at: p.at };
  }

  function summary(e: DashboardEntry) {
    const { document, lastBuild } = store.doc(e.id);
    const d = e.definition;
    const runId = buildRun(e.id);
    return {
      id: e.id,
      name: d?.name ?? e.id,
      ...(d?.icon ? { icon: d.icon } : {}),
      ...(d?.description ? { description: d.description } : {}),
      ...(d?.refresh ? { refresh: d.refresh } : {}),
      paused: d?.paused === true,
      building: building.has(e.id),
      ...(runId ? { runId } : {}),
      builtAt: document?.builtAt ?? null,
      lastBuild: lastBuild ?? null,
      widgets: document?.widgets.length ?? 0,
      erroredWidgets: document?.widgets.filter((w) => w.status === 'error' || w.error).length ?? 0,
      author: authorOf(e.id, d),
      ...(e.error ? { error: e.error } : {}),
    };
  }

  async function save(id: string, body: unknown, author: Provenance = PERSON): Promise<{ ok: true; id: string; definition: DashboardDefinition }> {
    if (!DASHBOARD_ID.test(id) || id === 'design') throw badRequest(`dashboard id "${id}" must be lower-case letters, digits, - or _ (at most 64), and not "design"`);
    const problems = definitionProblems(body, await context());
    if (problems.length) throw badRequest(`dashboard "${id}" was not saved; fix: ${problems.map((p, i) => `(${i + 1}) ${p}`).join('; ')}`);
    const definition = normaliseDefinition(body as DashboardDefinition);
    const text = await store.save(id, definition);
    await deps.provenance?.record('dashboard', id, text, author);
    await deps.history?.().record('dashboard', id, text).catch((err) => deps.log(`dashboards: history of ${id} not recorded: ${describeError(err)}`));
    syncRefresh();
    deps.emit('dashboards.changed', { dashboard: id, change: 'saved', by: author.by });
    return { ok: true, id, definition };
  }

  /** POST /api/dashboards/<id>/run and refresh fires: 409 while one is building. */
  async function startBuild(id: string, reason: 'manual' | 'refresh' = 'manual'): Promise<{ ok: true; runId: string }> {
    const { definition: def } = entry(id);
    if (building.has(id)) {
      const runId = buildRun(id);
      throw conflict(`dashboard "${id}" is already building${runId ? ` (run ${runId}; POST /api/runs/${runId}/stop stops it)` : ''}`);
    }
    building.set(id, 'starting');
    let started: StartedBuild;
    try {
      started = await startBuildRun(deps, id, def, sourcesDir(id));
      // Unattended, a model's definition is gated as its author (the saved text is what it wrote).
      if (reason === 'refresh') started.authors = authority('dashboard', id, provenanceOf(id, def));
    } catch (err) {
      building.delete(id);
      throw err;
    }
    const { build } = started;
    building.set(id, build);
    bindings.set(build.run.id, { dashboard: id, archive: build.archive, build });
    build.run.emit('dashboard.build.started', { dashboard: id, reason });
    void finishBuild(id, def, started);
    return { ok: true, runId: build.run.id };
  }

  async function finishBuild(id: string, def: DashboardDefinition, started: StartedBuild): Promise<void> {
    const { run } = started.build;
    const state = store.doc(id);
    let outcome: BuildOutcome = { runId: run.id, status: 'failed', at: new Date().toISOString() };
    try {
      const built = await executeBuild(deps, started, { def, types: [...catalog.types().values()], previous: state.document, sourcesDir: sourcesDir(id) });
      outcome = built.outcome;
      await store.writeDoc(id, { document: built.document ?? state.document, lastBuild: outcome });
      if (built.document) {
        run.emit('dashboard.build.completed', { dashboard: id, widgets: built.document.widgets.length });
        run.emit('dashboard.published', { dashboard: id, builtAt: built.document.builtAt, widgets: built.document.widgets.map((w) => w.id) });
      } else if (outcome.status === 'failed') run.emit('dashboard.build.failed', { dashboard: id, error: outcome.error });
    } catch (err) {
      outcome = { ...outcome, error: `the build failed: ${describeError(err)}` };
      deps.log(`dashboards: build of ${id} ended badly: ${describeError(err)}`);
    }
    // Free before the run's end event, so a client reacting to it can build again at once.
    building.delete(id);
    bindings.delete(run.id);
    await prune(id);
    await run.finish(outcome.status, outcome.error ? { error: outcome.error } : {});
  }

  /** Keeps the archives the page cites and those of runs still publishing. */
  async function prune(id: string): Promise<void> {
    const keep = new Set<string>();
    for (const w of store.doc(id).document?.widgets ?? []) if (w.runId) keep.add(w.runId);
    for (const [runId, b] of bindings) if (b.dashboard === id) keep.add(runId);
    await pruneSources(sourcesDir(id), keep).catch(() => undefined);
  }

  /** publish_dashboard: into the run's build, or straight into the page (chat, a workflow node, a subagent). */
  async function publish(args: PublishArgs, ctx: PublishContext): Promise<{ text: string; isError?: boolean }> {
    const bound = ctx.runId ? bindings.get(ctx.runId) : undefined;
    if (bound?.build && args.dashboard && args.dashboard !== bound.dashboard) throw badRequest(`this run is building dashboard "${bound.dashboard}" and publishes only into it; leave out dashboard`);
    const id = args.dashboard ?? bound?.dashboard;
    if (!id) throw badRequest(`name the dashboard to publish into: publish_dashboard {dashboard, widgets} (dashboards: ${store.all().map((e) => e.id).join(', ') || 'none'})`);
    if (!store.get(id)) return create(id, args, ctx);
    const { definition: def } = entry(id);
    const build = bound?.dashboard === id ? bound.build : undefined;
    if (!build && building.has(id)) throw conflict(`dashboard "${id}" is being built${buildRun(id) ? ` by run ${buildRun(id)}` : ''}; publish again once the build has ended`);
    const archive = bound?.dashboard === id ? bound.archive : undefined;
    const result = checkWidgets(args.widgets, { types: catalog.types(), definition: def, refs: archive?.refs() });
    for (const w of result.accepted) {
      if (ctx.runId) w.runId = ctx.runId;
      w.data = maskJson(w.data, deps.mask);
      ctx.emit('dashboard.widget.published', { dashboard: id, widget: w.id, type: w.type });
    }
    for (const r of result.rejected) ctx.emit('dashboard.widget.rejected', { dashboard: id, widget: r.id, problems: r.problems });
    let widgets: Widget[];
    if (build) {
      if (args.title) build.title = args.title;
      if (args.subtitle) build.subtitle = args.subtitle;
      widgets = build.widgets = mergeWidgets(build.widgets, result.accepted, args.replace === true, def.slots);
      if (result.accepted.length || args.replace) build.published = true;
    } else {
      const state = store.doc(id);
      widgets = mergeWidgets(state.document?.widgets ?? [], result.accepted, args.replace === true, def.slots);
      if (result.accepted.length || args.replace) {
        const subtitle = args.subtitle ?? state.document?.subtitle;
        const document = { title: args.title ?? state.document?.title ?? def.name, ...(subtitle ? { subtitle } : {}), builtAt: new Date().toISOString(), runId: ctx.runId ?? 'direct', widgets };
        await store.writeDoc(id, { ...state, document });
        ctx.emit('dashboard.published', { dashboard: id, builtAt: document.builtAt, widgets: widgets.map((w) => w.id) });
      }
    }
    const missing = def.slots.filter((s) => !widgets.some((w) => w.id === s.id)).map((s) => s.id);
    return { text: describePublish(result, missing), isError: result.accepted.length === 0 && result.rejected.length > 0 };
  }

  /**
   * publish_dashboard naming a dashboard that does not exist: the call's widgets make its definition
   * (one slot each) and fill its first page, as a person would expect of "publish onto shop". Nothing
   * is created when no widget is accepted. The definition is the model's (provenance), so a refresh a
   * person later adds is gated as that model.
   */
  async function create(id: string, args: PublishArgs, ctx: PublishContext): Promise<{ text: string; isError?: boolean }> {
    if (!DASHBOARD_ID.test(id) || id === 'design') throw badRequest(`there is no dashboard "${id}", and a new one needs an id of lower-case letters, digits, - or _ (not "design"); dashboards: ${store.all().map((e) => e.id).join(', ') || 'none'}`);
    const draft = definitionFromPublish(id, args);
    const result = checkWidgets(args.widgets, { types: catalog.types(), definition: draft });
    if (!result.accepted.length) {
      for (const r of result.rejected) ctx.emit('dashboard.widget.rejected', { dashboard: id, widget: r.id, problems: r.problems });
      return { text: `dashboard "${id}" does not exist and was not created: publish_dashboard creates it from the widgets it accepts, and none was accepted.\n${describePublish(result, [])}`, isError: true };
    }
    const author = deps.toolAuthor ? await deps.toolAuthor(ctx) : PERSON;
    const accepted = new Set(result.accepted.map((w) => w.id));
    await save(id, { ...draft, slots: draft.slots.filter((s) => accepted.has(s.id)) }, author);
    const answer = await publish(args, ctx);
    return { ...answer, text: `created dashboard "${id}" (${draft.slots.filter((s) => accepted.has(s.id)).length} slots, one per accepted widget; GET /api/dashboards/${id} shows it)\n${answer.text}` };
  }

  /** The whole archived text of one ref: of `runId` when given; else of the calling run, the page's build, a widget citing it. */
  async function source(id: string, ref: string, runId?: string, callerRun?: string): Promise<string> {
    entry(id);
    const doc = store.doc(id).document;
    const own = callerRun && bindings.get(callerRun)?.dashboard === id ? bindings.get(callerRun) : undefined;
    await own?.archive.flushed();
    const runs = runId ? [runId] : [own && callerRun, doc?.runId, ...(doc?.widgets ?? []).filter((w) => w.sources.includes(ref)).map((w) => w.runId)];
    for (const run of new Set(runs)) {
      const text = run ? await readSource(sourcesDir(id), run, ref) : undefined;
      if (text !== undefined) return text;
    }
    throw notFound(`no source "${ref}" on dashboard "${id}"${runId ? ` for run ${runId}` : ''}; a widget's sources name the refs (t1, t2 ...) its run archived`);
  }

  return {
    catalog,
    store,
    list: () => ({ dashboards: store.all().map(summary) }),
    get(id: string) {
      const e = store.get(id);
      if (!e) throw notFound(`no dashboard "${id}" (GET /api/dashboards lists them)`);
      const { document, lastBuild } = store.doc(id);
      const runId = buildRun(id);
      return { id, definition: e.definition ?? null, document: document ?? null, building: building.has(id), ...(runId ? { runId } : {}), lastBuild: lastBuild ?? null, author: authorOf(id, e.definition), ...(e.error ? { error: e.error } : {}) };
    },
    doc(id: string) {
      entry(id);
      const { document, lastBuild } = store.doc(id);
      if (!document) throw notFound(`dashboard "${id}" has no page yet${lastBuild?.error ? ` (the last build failed: ${lastBuild.error})` : ''}; POST /api/dashboards/${id}/run builds it`);
      return { document, lastBuild, building: building.has(id) };
    },
    save,
    async remove(id: string): Promise<void> {
      if (!store.get(id)) throw notFound(`no dashboard "${id}"`);
      if (building.has(id)) throw conflict(`dashboard "${id}" is building; stop its run first`);
      await store.remove(id);
      syncRefresh();
      deps.emit('dashboards.changed', { dashboard: id, change: 'deleted', by: 'person' });
    },
    startBuild,
    publish,
    /** PUT /api/widgets/<name>: the type, recorded in version history. */
    async putWidget(name: string, body: unknown) {
      const type = await catalog.put(name, body);
      const text = await catalog.textOf(name);
      if (text) await deps.history?.().record('widget', name, text).catch((err) => deps.log(`dashboards: history of widget ${name} not recorded: ${describeError(err)}`));
      return type;
    },
    source,
    design: (body: unknown) => designDefinition(body, { ...deps, context, store, save: async (id, value) => save(id, value, deps.designAuthor ? await deps.designAuthor() : PERSON) }),
    /** POST /api/chat {dashboard}: the turn's block and archive (wired into chat by the composition root). */
    async resolveForChat(id: string): Promise<DashboardTurn> {
      const { definition: def } = entry(id);
      return {
        block: chatBlock(id, def, [...catalog.types().values()], store.doc(id).document),
        tools: [...DASHBOARD_TOOLS],
        attach: (runId, tools) => {
          const archive = new SourceArchive(path.join(sourcesDir(id), runId), runId, deps.mask);
          bindings.set(runId, { dashboard: id, archive });
          return archive.wrap(tools, DASHBOARD_TOOLS);
        },
        detach: (runId) => void bindings.delete(runId),
      };
    },
    /** Version history (kind `dashboard`): a restored definition is re-checked and its refresh re-armed. */
    historyAdapter: {
      read: store.historyAdapter.read,
      write: async (id: string, content: string) => {
        await store.historyAdapter.write(id, content);
        syncRefresh();
      },
    },
    /** The dashboard a run publishes into (its build, or a chat turn about it). */
    boundDashboard: (runId?: string) => (runId ? bindings.get(runId)?.dashboard : undefined),
    refreshArmed: () => refresher.armed(),
    close(): void {
      refresher.close();
      store.closeWatch();
    },
  };
}

/** A JSON value with secret values masked (the mask keeps JSON text valid JSON). */
function maskJson(value: unknown, mask: (text: string) => string): unknown {
  const text = JSON.stringify(value);
  const masked = mask(text);
  return masked === text ? value : (JSON.parse(masked) as unknown);
}
