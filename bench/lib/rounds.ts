/**
 * Rounds shared by every bench: engine and baseline alternate (the order flips each round, ABBA, so
 * neither side always runs right after the other's garbage), and every side keeps all its samples so
 * the table can show the median and the spread. On a shared, loaded machine a single run says
 * little; the median of alternating rounds hits both sides with the same load.
 */
import { fmt, median } from './report.js';

export interface Stats {
  n: number;
  median: number;
  min: number;
  max: number;
  p25: number;
  p75: number;
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];

export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, median: median(s), min: s[0], max: s[s.length - 1], p25: at(s, 0.25), p75: at(s, 0.75) };
}

/** "12.3 (p25-p75 11.9-13.0, min-max 11.0-19.2, n=11)": what the tables print. */
export function describe(xs: number[], digits = 1): string {
  const s = stats(xs);
  return `${fmt(s.median, digits)} (p25-p75 ${fmt(s.p25, digits)}-${fmt(s.p75, digits)}, min-max ${fmt(s.min, digits)}-${fmt(s.max, digits)}, n=${s.n})`;
}

/** Milliseconds one call takes. */
export async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Runs every side once unmeasured (`warmup` times), then `rounds` measured rounds, each side once a
 * round, the order reversed every other round. Each side returns its own measurement (ms, req/s ...).
 */
export async function alternate<K extends string>(rounds: number, sides: Record<K, () => Promise<number>>, opts: { warmup?: number } = {}): Promise<Record<K, number[]>> {
  const names = Object.keys(sides) as K[];
  for (let w = 0; w < (opts.warmup ?? 1); w++) for (const n of names) await sides[n]();
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as unknown as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const n of order) out[n].push(await sides[n]());
  }
  return out;
}

/** One line saying the figures were taken on a shared machine, with its load at the time. */
export async function loadNote(): Promise<string> {
  const os = await import('node:os');
  const [l1, l5] = os.loadavg();
  return `machine: ${os.cpus().length} cores, load average ${l1.toFixed(1)} / ${l5.toFixed(1)} (1 / 5 min)`;
}
