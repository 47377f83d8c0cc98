/**
 * Scale curves: the same operation measured at growing sizes, printed as one table with the growth
 * exponent between neighbouring sizes (log of the time ratio over log of the size ratio: 1 is
 * linear, 0 is flat, 2 is quadratic). Each curve states the growth it is allowed, and a row that
 * grows faster than that is flagged, so a bench run shows a regression without a timing in a test.
 */

/** What a path may do as its data grows: `flat` (keyed or paged reads), `linear` (lists, scans). */
export type Growth = 'flat' | 'linear';

/** The exponent above which a step counts as growing faster than allowed (noise on two cores included). */
const LIMIT: Record<Growth, number> = { flat: 0.35, linear: 1.3 };

export interface Point {
  size: number;
  ms: number;
  /** Memory the operation added, in MB (RSS or heap, whichever the bench names in its label). */
  mb?: number;
}

export interface Curve {
  path: string;
  unit: string;
  expected: Growth;
  points: Point[];
}

/** Growth exponent between two points; times under 0.05 ms are floored so jitter on tiny numbers reads as flat. */
export function exponent(a: Point, b: Point): number {
  const ta = Math.max(a.ms, 0.05);
  const tb = Math.max(b.ms, 0.05);
  return Math.log(tb / ta) / Math.log(b.size / a.size);
}

/** The curve's worst step and whether it stays within its allowed growth. */
export function judge(curve: Curve): { worst: number; ok: boolean } {
  let worst = 0;
  for (let i = 1; i < curve.points.length; i++) worst = Math.max(worst, exponent(curve.points[i - 1], curve.points[i]));
  return { worst, ok: worst <= LIMIT[curve.expected] };
}

/** Prints one curve as a table and a RESULT line (run.ts gathers those at the end). */
export function printCurve(curve: Curve): void {
  const rows = curve.points.map((p, i) => {
    const k = i ? exponent(curve.points[i - 1], p).toFixed(2) : '';
    return `  ${String(p.size).padStart(9)} ${curve.unit.padEnd(8)} ${p.ms.toFixed(2).padStart(10)} ms ${p.mb === undefined ? '' : p.mb.toFixed(1).padStart(8) + ' MB'} ${k ? 'k=' + k : ''}`;
  });
  const { worst, ok } = judge(curve);
  console.log(`${curve.path} (expected ${curve.expected})\n${rows.join('\n')}`);
  const sizes = curve.points.map((p) => `${p.size}: ${p.ms.toFixed(1)} ms`).join(', ');
  console.log(`RESULT scale ${curve.path}: ${sizes}; worst k=${worst.toFixed(2)} (${curve.expected}) ${ok ? 'ok' : 'GROWS FASTER THAN EXPECTED'}`);
}

/** Median of `runs` timed calls of `fn`, in ms (one untimed warm-up first). */
export async function medianMs(fn: () => Promise<unknown> | unknown, runs = 5): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Size factor for a quick look (`SCALE=0.01 npm run bench -- scale`); 1 is the sizes. */
export const SCALE = Number(process.env.SCALE ?? 1);
export const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

/** A bench's sizes, scaled; `SIZES=500,10000` runs those instead (the largest take minutes to write). */
export const sizes = (defaults: number[]): number[] => (process.env.SIZES ? process.env.SIZES.split(',').map(Number) : defaults).map(scaled);
