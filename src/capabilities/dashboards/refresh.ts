/**
 * Dashboard refresh: one timer per dashboard with a `refresh` that is not paused, on the same clock
 * and parser as workflow cron triggers (workflows/clock.ts, workflows/cron.ts via parseRefresh). A
 * fire while the dashboard still builds is skipped, so a refresh storm never runs two builds of one
 * dashboard. Fires missed while the engine was down are not made up: the next one is armed from now.
 */
import type { Clock } from '../workflows/clock.js';
import type { CronSchedule } from '../workflows/cron.js';
import { parseRefresh } from './definition.js';

interface Armed {
  sig: string;
  schedule: CronSchedule;
  handle?: unknown;
}

export interface RefreshDeps {
  clock: Clock;
  log: (line: string) => void;
  /** Starts a build; resolves once it has started or been skipped. */
  fire(id: string, at: number): Promise<void>;
}

export function createRefresher(deps: RefreshDeps) {
  const armed = new Map<string, Armed>();
  let closed = false;

  function arm(id: string, a: Armed, from: number): void {
    const next = a.schedule.next(from);
    if (closed || next === undefined) return;
    a.handle = deps.clock.setTimeout(() => {
      if (armed.get(id) !== a || closed) return;
      // Long waits fire early in steps: wait on until the time has come.
      if (deps.clock.now() < next) return arm(id, a, from);
      arm(id, a, next);
      void deps.fire(id, next).catch((err) => deps.log(`dashboards: refresh of ${id} failed to start: ${(err as Error).message}`));
    }, Math.max(0, next - deps.clock.now()));
  }

  /** Arms exactly the given schedules (a changed one is re-armed, a missing or paused one disarmed). */
  function sync(wanted: Array<{ id: string; refresh?: string; paused?: boolean }>): void {
    const keep = new Map(wanted.filter((w) => w.refresh && !w.paused).map((w) => [w.id, w.refresh!]));
    for (const [id, a] of armed) {
      if (keep.get(id) === a.sig) continue;
      deps.clock.clearTimeout(a.handle);
      armed.delete(id);
    }
    for (const [id, refresh] of keep) {
      if (armed.has(id)) continue;
      try {
        const a: Armed = { sig: refresh, schedule: parseRefresh(refresh) };
        armed.set(id, a);
        arm(id, a, deps.clock.now());
      } catch (err) {
        deps.log(`dashboards: ${id} refresh not armed: ${(err as Error).message}`);
      }
    }
  }

  return {
    sync,
    armed: () => [...armed.keys()],
    close(): void {
      closed = true;
      for (const a of armed.values()) deps.clock.clearTimeout(a.handle);
      armed.clear();
    },
  };
}
