/**
 * Dashboards on disk. The definition is `<home>/dashboards/<id>.json` (what a person edits, kept in
 * version history); what builds produce lives beside it in `<home>/dashboard-data/<id>/`:
 * `doc.json` (the last complete document and how the last build ended) and `sources/<runId>/`
 * (archive.ts). A definition file that does not parse or check is listed with its `error`. The
 * definitions folder is watched, as workflows' is: a file edited, added or removed by hand while
 * the engine runs is seen without a restart.
 */
import { watch, type FSWatcher, promises as fs } from 'node:fs';
import path from 'node:path';
import { jsonSyntaxReason } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { serialQueue } from '../../kernel/serial.js';
import type { BuildOutcome, DashboardDefinition, DashboardDocument } from './types.js';

export const DEFINITIONS_DIR = 'dashboards';
export const DATA_DIR = 'dashboard-data';

export interface DashboardEntry {
  id: string;
  definition?: DashboardDefinition;
  /** Why the file on disk cannot be used (it is listed, never built). */
  error?: string;
}

/** `doc.json`: the page and the last build's outcome (a failed build leaves `document` as it was). */
export interface DocState {
  document?: DashboardDocument;
  lastBuild?: BuildOutcome;
}

/** Checks a definition file's text: the definition, or the sentence saying what is wrong. */
export type Judge = (id: string, value: unknown) => string[];

export function createDashboardStore(home: Home, judge: Judge) {
  const entries = new Map<string, DashboardEntry>();
  const docs = new Map<string, DocState>();
  const defFile = (id: string) => home.path(DEFINITIONS_DIR, `${id}.json`);
  const dataDir = (id: string) => home.path(DATA_DIR, id);

  function judgeText(id: string, text: string): DashboardEntry {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { id, error: `the file is not valid JSON (${jsonSyntaxReason(err)}); fix it or PUT the dashboard again` };
    }
    const problems = judge(id, value);
    return problems.length ? { id, error: `the file cannot be used: ${problems.join('; ')}` } : { id, definition: value as DashboardDefinition };
  }

  /** Saves, removals and reloads run one at a time, so a reload never reads around a save and undoes it. */
  const exclusive = serialQueue();

  /** Reads every definition file; an id whose file is gone is dropped. Answers the ids that changed. */
  const load = (): Promise<string[]> =>
    exclusive(async () => {
      const files = (await fs.readdir(home.path(DEFINITIONS_DIR)).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
      const ids = new Set(files.map((f) => f.slice(0, -5)));
      const changed: string[] = [];
      for (const id of [...entries.keys()]) {
        if (ids.has(id)) continue;
        entries.delete(id);
        changed.push(id);
      }
      await Promise.all(
        [...ids].map(async (id) => {
          const next = judgeText(id, await fs.readFile(defFile(id), 'utf8').catch((err) => `\u0000${(err as Error).message}`));
          if (JSON.stringify(next) === JSON.stringify(entries.get(id))) return;
          changed.push(id);
          entries.set(id, next);
          if (!docs.has(id)) docs.set(id, await readDoc(id));
        }),
      );
      return changed;
    });

  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Watches the definitions folder; `changed` is called with the ids a reload found changed (edited, added or removed). */
  async function watchFolder(changed: (ids: string[]) => void, log: (line: string) => void): Promise<void> {
    await fs.mkdir(home.path(DEFINITIONS_DIR), { recursive: true });
    try {
      watcher = watch(home.path(DEFINITIONS_DIR), () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void load().then((ids) => ids.length && changed(ids), (err) => log(`dashboards: reload failed: ${(err as Error).message}`)), LIMITS.dashboardWatchDebounceMs);
        timer.unref?.();
      });
      watcher.on('error', (err) => log(`dashboards: the folder watcher stopped: ${err.message}`));
    } catch (err) {
      log(`dashboards: cannot watch ${home.path(DEFINITIONS_DIR)}: ${(err as Error).message}; outside edits are seen after a restart`);
    }
  }

  async function readDoc(id: string): Promise<DocState> {
    try {
      const state = JSON.parse(await fs.readFile(path.join(dataDir(id), 'doc.json'), 'utf8')) as DocState;
      if (!state || typeof state !== 'object') return {};
      // A page edited by hand into another shape is dropped (the next build writes a new one), never served broken.
      if (state.document && !(Array.isArray(state.document.widgets) && state.document.widgets.every((w) => w && typeof w.id === 'string' && Array.isArray(w.sources)))) delete state.document;
      return state;
    } catch {
      return {};
    }
  }

  return {
    load,
    watch: watchFolder,
    closeWatch(): void {
      watcher?.close();
      if (timer) clearTimeout(timer);
    },
    get: (id: string) => entries.get(id),
    all: () => [...entries.values()].sort((a, b) => a.id.localeCompare(b.id)),
    doc: (id: string): DocState => docs.get(id) ?? {},
    dataDir,
    save: (id: string, definition: DashboardDefinition): Promise<string> =>
      exclusive(async () => {
        const text = JSON.stringify(definition, null, 2) + '\n';
        await home.writeAtomic(defFile(id), text);
        entries.set(id, judgeText(id, text));
        return text;
      }),
    remove: (id: string): Promise<void> =>
      exclusive(async () => {
        await fs.rm(defFile(id), { force: true });
        await fs.rm(dataDir(id), { recursive: true, force: true });
        entries.delete(id);
        docs.delete(id);
      }),
    async writeDoc(id: string, state: DocState): Promise<void> {
      docs.set(id, state);
      await home.writeJson(path.join(dataDir(id), 'doc.json'), state);
    },
    /** The version-history adapter (kind `dashboard`): a restore re-checks the file. */
    historyAdapter: {
      read: (id: string) => fs.readFile(defFile(id), 'utf8').catch(() => undefined),
      write: (id: string, content: string) =>
        exclusive(async () => {
          await home.writeAtomic(defFile(id), content);
          entries.set(id, judgeText(id, content));
        }),
    },
  };
}

export type DashboardStore = ReturnType<typeof createDashboardStore>;
