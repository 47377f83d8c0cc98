/**
 * The clock workflows read time and set timers with (cron fires, waits, retry backoff, timeouts).
 * The engine uses the real one; tests inject a test clock (EngineOptions.clock) and move time
 * forward themselves, so no test waits for real time to pass.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// Node timers take at most 2^31-1 ms; longer waits are re-armed in steps.
const MAX_TIMER_MS = 2 ** 30;

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Sleeps `ms` on `clock`; rejects with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('stopped'));
    let handle: unknown;
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal!.reason ?? new Error('stopped'));
    };
    const arm = (left: number) => {
      handle = clock.setTimeout(() => {
        const rest = left - MAX_TIMER_MS;
        if (rest > 0) return arm(rest);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.min(left, MAX_TIMER_MS));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    arm(ms);
  });
}

/**
 * Calls `fire(at)` at every time `next` gives, from `from` on, on `clock` (cron triggers, dashboard
 * refresh); answers the function that stops it. A timer that wakes early (long waits are re-armed in
 * steps) waits on for its time; the next time is armed before `fire` runs.
 */
export function atEach(clock: Clock, next: (from: number) => number | undefined, from: number, fire: (at: number) => void): () => void {
  let handle: unknown;
  let stopped = false;
  const arm = (after: number) => {
    const at = next(after);
    if (stopped || at === undefined) return;
    handle = clock.setTimeout(() => {
      if (stopped) return;
      if (clock.now() < at) return arm(after);
      arm(at);
      fire(at);
    }, Math.max(0, at - clock.now()));
  };
  arm(from);
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}
