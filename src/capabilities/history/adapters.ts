/**
 * Default adapters: where each kind lives in the home until its capability registers its own
 * adapter (which then also re-validates and announces a restore). Documented in the README.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { HOME_LAYOUT, type Home } from '../../kernel/home.js';
import type { HistoryAdapter, HistoryKind } from './types.js';

/** The file that holds an item of each kind, relative to the home. */
export const DEFAULT_ITEM_PATHS: Record<HistoryKind, (name: string) => string> = {
  agent: (n) => path.join(HOME_LAYOUT.agents, `${n}.md`),
  skill: (n) => path.join(HOME_LAYOUT.workspace, '.claude', 'skills', n, 'SKILL.md'),
  workflow: (n) => path.join('workflows', `${n}.json`),
  dashboard: (n) => path.join('dashboards', `${n}.json`),
  widget: (n) => path.join('widgets', `${n}.json`),
  atlas: (n) => path.join('atlas', `${n}.json`),
};

export function fileAdapter(home: Home, kind: HistoryKind): HistoryAdapter {
  const where = (name: string) => home.path(DEFAULT_ITEM_PATHS[kind](name));
  return {
    async read(name) {
      try {
        return await fs.readFile(where(name), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    write: (name, content) => home.writeAtomic(where(name), content),
  };
}

/** The extension a stored version gets, so a person can open it in an editor. */
export const VERSION_EXT: Record<HistoryKind, string> = {
  agent: 'md',
  skill: 'md',
  workflow: 'json',
  dashboard: 'json',
  widget: 'json',
  atlas: 'json',
};
