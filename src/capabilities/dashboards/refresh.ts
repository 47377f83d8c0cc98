/**
 * Dashboard refresh: one timer per dashboard with a `refresh` that is not paused, on the same clock,
 * timer loop and parser as workflow cron triggers (workflows/clock.ts `atEach`, workflows/cron.ts via
 * parseRefresh). A
 * fire while the dashboard still builds is skipped, so a refresh storm never runs two builds of one
 * dashboard. Fires missed while the engine was down are not made up: the next one is armed from now.
 */
import { atEach, type Clock } from '../workflows/clock.js';
import { parseRefresh } from './definition.js';

interface Armed {
  sig: string;
  stop: () => void;
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

  /** Arms exactly the given schedules (a changed one is re-armed, a missing or paused one disarmed). */
  function sync(wanted: Array<{ id: string; refresh?: string; paused?: boolean }>): void {
    if (closed) return;
    const keep = new Map(wanted.filter((w) => w.refresh && !w.paused).map((w) => [w.id, w.refresh!]));
    for (const [id, a] of armed) {
      if (keep.get(id) === a.sig) continue;
      a.stop();
      armed.delete(id);
    }
    for (const [id, refresh] of keep) {
      if (armed.has(id)) continue;
      try {
        const schedule = parseRefresh(refresh);
        const fire = (at: number) => void deps.fire(id, at).catch((err) => deps.log(`dashboards: refresh of ${id} failed to start: ${(err as Error).message}`));
        armed.set(id, { sig: refresh, stop: atEach(deps.clock, (after) => schedule.next(after), deps.clock.now(), fire) });
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
      for (const a of armed.values()) a.stop();
      armed.clear();
    },
  };
}
