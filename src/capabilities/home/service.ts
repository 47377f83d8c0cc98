/**
 * Where the engine home is, and moving to another one: POST /api/home validates the new path
 * (absolute, creatable, writable), answers, then asks the supervisor to restart the engine there.
 * Nothing is copied: the new home starts as it is (empty, or an existing home reused).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { badRequest, conflict } from '../../kernel/errors.js';
import { mkdirp, type Home } from '../../kernel/home.js';

export interface HomeService {
  current(): { path: string };
  /** Validates `target`; returns the resolved path. Throws a 400 sentence when it cannot be a home. */
  prepare(target: unknown): Promise<string>;
  /** Hands the new home to the supervisor; the engine exits soon after. */
  restartInto(target: string): void;
  canRestart: boolean;
}

export function createHomeService(deps: { home: Home; onRestart?: (home: string) => void }): HomeService {
  const { home, onRestart } = deps;
  return {
    current: () => ({ path: home.root }),
    canRestart: !!onRestart,
    async prepare(target) {
      if (!onRestart) throw conflict('this engine is not running under the engine supervisor (engine serve), so it cannot move to another home');
      if (typeof target !== 'string' || !target.trim()) throw badRequest('path is required: an absolute folder path for the new engine home');
      if (!path.isAbsolute(target)) throw badRequest(`path "${target}" is not absolute; send a full path such as /home/me/.engine-work`);
      const resolved = path.resolve(target);
      try {
        await mkdirp(resolved);
        const probe = path.join(resolved, `.write-probe-${process.pid}`);
        await fs.writeFile(probe, 'ok');
        await fs.rm(probe);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        throw badRequest(`cannot use ${resolved} as the engine home: it cannot be created or written (${code}); pick a folder you can write to`);
      }
      return resolved;
    },
    restartInto(target) {
      onRestart?.(target);
    },
  };
}
