/**
 * How long a test waits for something that will happen, on this machine as fast as it is right now.
 *
 * A wait in a test only bounds a hang: it must never be what decides a test on a machine that is
 * merely busy (a developer compiling beside `npm test`, a CI box shared with other jobs). So every
 * wait of the test support (events, model server, push service, spawned processes, polls) passes
 * through `patience(ms)`: `ms` is the wait on a quiet machine, multiplied by how much slower this
 * process finds the machine, measured once per process. A deadline that is itself under test is
 * not waited for at all: it runs on a clock the test moves (test/support/clock.ts).
 *
 * TEST_SLOWNESS=<factor> replaces the measurement (for example to see a wait's message sooner).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';

/** CPU milliseconds the probe below takes on the two-core machine the suite is tuned on. */
const PROBE_REFERENCE_MS = 25;
/** No wait past this: the file ceiling (scripts/test.mjs) is 300 s, and a wait's own message says more. */
const CEILING_MS = 240_000;

let measured: number | undefined;

/** How many times slower than the reference this process runs right now (at least 1); measured once. */
export function slowness(): number {
  if (measured !== undefined) return measured;
  const forced = Number(process.env.TEST_SLOWNESS);
  if (forced > 0) return (measured = forced);
  // Fixed CPU work timed on the wall clock: a machine shared with busy processes gives this one a
  // smaller share of a core, and a slower CPU takes longer; both stretch every wait alike. One probe
  // is a tenth of a second of a load that changes, so the load average (runnable processes per core)
  // stands in when it says more: a wait too long only delays a hang's message, one too short fails.
  const started = performance.now();
  let x = 0;
  for (let i = 0; i < 4_000_000; i++) x = (x * 31 + i) ^ (x >>> 7);
  const took = performance.now() - started + (x === 0.5 ? 1 : 0); // x is used, so the loop stays
  const perCore = os.loadavg()[0] / os.availableParallelism();
  return (measured = Math.max(1, took / PROBE_REFERENCE_MS, perCore));
}

/** `ms` (a wait on a quiet machine) scaled to this machine now; never shorter than `ms`. */
export function patience(ms: number): number {
  return Math.max(ms, Math.min(Math.round(ms * slowness()), CEILING_MS));
}

/**
 * Polls `probe` until it answers something truthy and resolves with it; after `patience(ms)` rejects
 * with a sentence naming `what` and the last thing the probe threw.
 */
export async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const limit = patience(ms);
  const end = performance.now() + limit;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (performance.now() > end) throw new Error(`waited ${limit} ms for ${what}${last ? ` (last: ${(last as Error).message ?? last})` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
