/**
 * The work boards' core: every route and every work tool calls these functions, so validation, the
 * teaching errors, the one activity line per change and the `work.updated` event are the same for a
 * person and an agent.
 */
import type { Emit } from '../../kernel/bus.js';
import { badRequest, conflict, notFound } from '../../kernel/errors.js';
import { checkProject, parseConfig } from './config.js';
import { activityLine, describeActor, formatItem } from './item-file.js';
import { allocateKey } from './keys.js';
import { findLinks, type LinkDeps } from './links.js';
import type { FencedReader } from '../../kernel/fenced-read.js';
import { type Board, type BoardRoot, BoardStore } from './store.js';
import type { Actor, BoardConfig, BoardListing, CreateInput, ListFilter, UpdateInput, WorkItem, WorkLinks, WorkRow } from './types.js';
import { checkAssignee, checkEstimate, checkFields, checkLabels, checkParent, checkPriority, kindOf, laneOf, resolveFilter } from './validate.js';

export interface WorkDeps {
  /** Where boards may live, the workspace first, then the mounts: `<root>/.work/` is kept in git with the code. */
  roots: () => BoardRoot[];
  /** How board files are stat'ed and read (a link leading out of the roots is not read). */
  reader: FencedReader;
  emit: Emit;
  /** Home.serialize: the per-path queue that orders a board's writes. */
  serialize: <T>(key: string, work: () => Promise<T>) => Promise<T>;
  links: LinkDeps;
  /** Where parsed items are kept between starts (`<home>/work-index`); none: parse every file at start. */
  indexDir?: string;
}

export type WorkService = ReturnType<typeof createWorkService>;

const KEY = /^([A-Za-z][A-Za-z0-9]{0,9})-([1-9][0-9]*)$/;
const now = () => new Date().toISOString();
const keyNumber = (key: string) => Number(key.slice(key.lastIndexOf('-') + 1));

/** The body ends where the Activity heading starts, so a body must not hold that heading itself. */
function checkBody(body: string): string {
  if (/^## Activity[ \t]*$/m.test(body)) throw badRequest('body must not contain a "## Activity" heading line: that heading starts the activity log; use another heading');
  return body.trim();
}

export function row(item: WorkItem): WorkRow {
  const { body: _b, activity: _a, ...rest } = item;
  return rest;
}

export function createWorkService(deps: WorkDeps) {
  const store = new BoardStore(deps.roots, deps.serialize, deps.reader, deps.indexDir);

  const boardNames = () => {
    const all = store.projects();
    return all.length ? all.map((p) => `"${p}"`).join(', ') : '(none yet)';
  };

  /** A board, every item re-read where its file changed; with `keys`, only those items (see BoardStore.loadKeys). */
  function board(project: string, keys?: string[]): Board {
    checkProject(project);
    const b = keys ? store.loadKeys(project, keys) : store.load(project);
    if (!b) throw notFound(`no board "${project}"; the boards are ${boardNames()} (PUT /api/work/${project} with {} starts one)`);
    return b;
  }

  /** Lane order, then rank, then key number: the order a board shows its items in. */
  function sorted(b: Board, items: WorkItem[]): WorkItem[] {
    const lane = new Map(b.config.lanes.map((l, i) => [l.name.toLowerCase(), i]));
    // Sort keys computed once per item, not once per comparison (5 000 items: ~60 000 comparisons).
    const keyed = items.map((i) => ({ i, lane: lane.get(i.status.toLowerCase()) ?? b.config.lanes.length, n: keyNumber(i.key) }));
    keyed.sort((x, y) => x.lane - y.lane || x.i.rank - y.i.rank || x.n - y.n);
    return keyed.map((k) => k.i);
  }

  function listing(b: Board, filter: ListFilter): BoardListing {
    const match = resolveFilter(b, filter);
    const counts: Record<string, number> = Object.fromEntries(b.config.lanes.map((l) => [l.name, 0]));
    const archived = filter.archived ?? false;
    const laneName = new Map(b.config.lanes.map((l) => [l.name.toLowerCase(), l.name]));
    for (const item of b.items.values()) {
      if (item.archived !== archived) continue;
      const lane = laneName.get(item.status.toLowerCase());
      if (lane) counts[lane] += 1;
    }
    return { project: b.project, config: b.config, counts, items: sorted(b, [...b.items.values()].filter(match)).map(row) };
  }

  /**
   * Finds the board of a key: `project` names it, or the key's prefix must belong to exactly one
   * board. Only that item's file is read again (and `also`'s, e.g. a parent being set): a keyed
   * read costs the same on a board of any size.
   */
  function locate(keyRaw: string, project?: string, also: string[] = []): { board: Board; key: string } {
    let text = keyRaw.trim();
    if (!project && text.includes('/')) [project, text] = text.split('/', 2) as [string, string];
    const m = KEY.exec(text);
    if (!m) throw badRequest(`"${keyRaw}" is not an item key; keys read like ENG-12 (the board's prefix, a dash, a number)`);
    const key = `${m[1].toUpperCase()}-${m[2]}`;
    const prefix = m[1].toUpperCase();
    if (project) {
      const config = board(project, []).config;
      if (config.prefix !== prefix) throw notFound(`board "${project}" has keys ${config.prefix}-<n>, so it holds no ${key}`);
    } else {
      const owners = store.projects().filter((p) => store.config(p)?.prefix === prefix);
      if (!owners.length) throw notFound(`no board has the key prefix ${prefix}; the boards are ${boardNames()}`);
      if (owners.length > 1) throw badRequest(`boards ${owners.map((o) => `"${o}"`).join(' and ')} both use the prefix ${prefix}; give project to say which`);
      project = owners[0];
    }
    const b = board(project, [key, ...also]);
    if (!b.items.has(key)) throw notFound(`board "${b.project}" has no item ${key}`);
    return { board: b, key };
  }

  function announce(project: string, key: string, change: string, actor: Actor): void {
    deps.emit('work.updated', { project, key, change, actor: describeActor(actor), ...(actor.type === 'agent' && actor.runId ? { runId: actor.runId } : {}) });
  }

  /** Rewrites one item under its board's lock with exactly one new activity line. */
  async function rewrite(project: string, key: string, actor: Actor, change: (b: Board, item: WorkItem) => { what: string; item: WorkItem } | null, also: string[] = []): Promise<{ change: string; item: WorkItem }> {
    return store.locked(project, async () => {
      await store.assertInside(project);
      const b = board(project, [key, ...also]);
      const current = b.items.get(key);
      if (!current) throw notFound(`board "${project}" has no item ${key}`);
      const previous = await store.readItemText(project, key);
      const next = change(b, current);
      if (!next) return { change: 'nothing changed', item: current };
      const item = { ...next.item, updated: now() };
      await store.writeItem(project, key, formatItem(item, activityLine(actor, next.what), previous));
      const fresh = store.loadKeys(project, [key])!.items.get(key)!;
      announce(project, key, next.what, actor);
      return { change: next.what, item: fresh };
    });
  }

  return {
    store,

    /** Creates a board (`{}`: the documented default) or updates its config; refuses what would orphan items. */
    async putBoard(project: string, raw: unknown, root?: string): Promise<{ created: boolean; config: BoardConfig; root: string }> {
      checkProject(project);
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('a board config must be a JSON object (send {} for the default board)');
      if (root !== undefined) store.place(project, root);
      return store.locked(project, async () => {
        await store.assertInside(project);
        const old = store.load(project);
        // Settings left out keep their current value (a new board: the default's).
        const config = parseConfig(project, old ? { ...old.config, ...raw } : raw);
        if (old) {
          const items = [...old.items.values()];
          if (config.prefix !== old.config.prefix && items.length) {
            throw conflict(`board "${project}" holds ${items.length} items keyed ${old.config.prefix}-<n>; its prefix cannot change (keys are permanent)`);
          }
          // Only items the old config held can be stranded (a hand-broken file is already off every lane).
          const lanes = new Set(config.lanes.map((l) => l.name.toLowerCase()));
          const oldLanes = new Set(old.config.lanes.map((l) => l.name.toLowerCase()));
          const stranded = items.filter((i) => oldLanes.has(i.status.toLowerCase()) && !lanes.has(i.status.toLowerCase()));
          if (stranded.length) {
            throw conflict(`${stranded.length} items of "${project}" are in lanes this config drops (${[...new Set(stranded.map((i) => i.status))].join(', ')}), e.g. ${stranded[0].key}; move them first or keep the lanes`);
          }
          const kinds = new Set(config.kinds.map((k) => k.name));
          const orphan = items.find((i) => !kinds.has(i.kind) && old.config.kinds.some((k) => k.name === i.kind));
          if (orphan) throw conflict(`${orphan.key} is a ${orphan.kind}, a kind this config drops; keep the kind or change the item first`);
        }
        await store.writeConfig(project, config);
        deps.emit('work.updated', { project, change: old ? 'board config updated' : 'board created', actor: 'person' });
        return { created: !old, config, root: store.rootOf(project).name };
      });
    },

    /** Every board (or one), its config, lane counts and the items that pass the filter. */
    list(filter: ListFilter = {}): BoardListing[] {
      if (filter.project !== undefined) return [listing(board(filter.project), filter)];
      const boards = store.projects().map((p) => store.load(p)).filter((b): b is Board => !!b);
      const narrowed = filter.status !== undefined || filter.kind !== undefined || filter.label !== undefined || filter.assignee !== undefined;
      if (!narrowed || !boards.length) return boards.map((b) => listing(b, filter));
      // Across boards a filter must make sense on at least one; the boards it does not fit are left out.
      const out: BoardListing[] = [];
      let firstError: unknown;
      for (const b of boards) {
        try {
          out.push(listing(b, filter));
        } catch (err) {
          firstError ??= err;
        }
      }
      if (!out.length) throw firstError;
      return out;
    },

    get(key: string, project?: string): WorkItem {
      const { board: b, key: k } = locate(key, project);
      return b.items.get(k)!;
    },

    async create(project: string, input: CreateInput, actor: Actor): Promise<{ key: string; item: WorkItem }> {
      const title = typeof input.title === 'string' ? input.title.trim() : '';
      if (!title) throw badRequest('title is required: a short line saying what the item is');
      return store.locked(project, async () => {
        await store.assertInside(project);
        const b = board(project);
        const { config } = b;
        const kind = kindOf(config, input.kind ?? '', project);
        const status = input.status !== undefined ? laneOf(config, input.status, project) : config.lanes[0].name;
        const ranks = [...b.items.values()].map((i) => i.rank);
        const stamp = now();
        const item: WorkItem = {
          key: '',
          project,
          kind: kind.name,
          title,
          status,
          assignee: checkAssignee(config, input.assignee ?? null, project),
          labels: checkLabels(config, input.labels ?? [], project),
          estimate: checkEstimate(config, input.estimate ?? null, project),
          priority: checkPriority(config, input.priority ?? null, project),
          rank: input.rank ?? (ranks.length ? Math.max(...ranks) + 1 : 1),
          fields: checkFields(kind, {}, input.fields),
          archived: false,
          parent: checkParent(b, input.parent ?? null),
          created: stamp,
          updated: stamp,
          body: checkBody(input.body ?? ''),
          activity: [],
        };
        const what = `created ${kind.name} "${title}" in ${status}`;
        const actorLine = activityLine(actor, what);
        const key = await allocateKey(b.dir, config.prefix, (k) => formatItem({ ...item, key: k }, actorLine));
        const created = store.load(project)!.items.get(key)!;
        announce(project, key, what, actor);
        return { key, item: created };
      });
    },

    async update(key: string, project: string | undefined, input: UpdateInput, actor: Actor): Promise<{ change: string; item: WorkItem }> {
      // A parent being set is read fresh too: checkParent asks whether it exists.
      const parent = typeof input.parent === 'string' ? [input.parent.trim().toUpperCase()] : [];
      const { board: located, key: k } = locate(key, project, parent);
      return rewrite(located.project, k, actor, (b, cur) => {
        const { config } = b;
        const p = b.project;
        const next: WorkItem = { ...cur, labels: [...cur.labels], fields: { ...cur.fields } };
        const changes: string[] = [];
        const show = (v: unknown) => (v === null || v === undefined || v === '' ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
        const set = <F extends keyof WorkItem>(field: F, value: WorkItem[F], label: string = field) => {
          if (JSON.stringify(value) === JSON.stringify(cur[field])) return;
          next[field] = value;
          changes.push(`${label} ${show(cur[field])} → ${show(value)}`);
        };
        if (input.title !== undefined) {
          if (!input.title.trim()) throw badRequest('title cannot be empty; send a short line saying what the item is');
          set('title', input.title.trim());
        }
        if (input.status !== undefined) set('status', laneOf(config, input.status, p), 'status');
        if (input.assignee !== undefined) set('assignee', checkAssignee(config, input.assignee, p));
        if (input.priority !== undefined) set('priority', checkPriority(config, input.priority, p));
        if (input.estimate !== undefined) set('estimate', checkEstimate(config, input.estimate, p));
        if (input.rank !== undefined) set('rank', input.rank);
        if (input.parent !== undefined) set('parent', checkParent(b, input.parent, cur.key));
        if (input.labels !== undefined) {
          const labels = checkLabels(config, input.labels, p);
          const added = labels.filter((l) => !cur.labels.includes(l));
          const removed = cur.labels.filter((l) => !labels.includes(l));
          if (added.length || removed.length) {
            next.labels = labels;
            changes.push(`labels ${[...added.map((l) => `+${l}`), ...removed.map((l) => `-${l}`)].join(' ')}`);
          }
        }
        if (input.fields !== undefined) {
          const fields = checkFields(kindOf(config, cur.kind, p), cur.fields, input.fields);
          const touched = Object.keys({ ...cur.fields, ...fields }).filter((f) => JSON.stringify(cur.fields[f]) !== JSON.stringify(fields[f]));
          if (touched.length) {
            next.fields = fields;
            changes.push(`fields ${touched.map((f) => `${f}: ${show(cur.fields[f])} → ${show(fields[f])}`).join(', ')}`);
          }
        }
        if (input.body !== undefined && checkBody(input.body) !== cur.body) {
          next.body = checkBody(input.body);
          changes.push('body edited');
        }
        if (input.archived !== undefined && input.archived !== cur.archived) {
          next.archived = input.archived;
          changes.push(input.archived ? 'archived' : 'restored from the archive');
        }
        return changes.length ? { what: changes.join('; '), item: next } : null;
      }, parent);
    },

    async comment(key: string, project: string | undefined, text: string, actor: Actor): Promise<WorkItem> {
      const clean = typeof text === 'string' ? text.trim() : '';
      if (!clean) throw badRequest('text is required: the comment to add to the activity log');
      const { board: b, key: k } = locate(key, project);
      const { item } = await rewrite(b.project, k, actor, (_b, cur) => ({ what: `commented: ${clean}`, item: cur }));
      return item;
    },

    async links(key: string, project?: string): Promise<WorkLinks & { key: string; project: string }> {
      const { board: b, key: k } = locate(key, project);
      return { key: k, project: b.project, ...(await findLinks(deps.links, b.project, k)) };
    },
  };
}
