/** Shared output of the benchmarks: a table and the RESULT line bench/run.ts collects. */
export function table(rows: Array<Record<string, string | number>>): void {
  if (!rows.length) return;
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(width[i])).join('  ');
  console.log(line(cols));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The RESULT line bench/run.ts collects. `engine` and `baseline` are medians or, better, every
 * round's sample (then the line also carries the spread). With `ratioAtLeast` the ratio is
 * engine/baseline (higher is better, throughput) and must reach the aim; with `ratioAtMost` it is
 * engine/baseline for times (lower is better); with `under` the engine's median must stay under it.
 */
export function result(
  metric: string,
  unit: string,
  engine: number | number[],
  baseline: number | number[],
  aim: { ratioAtLeast: number } | { ratioAtMost: number } | { under: number },
): void {
  const e = Array.isArray(engine) ? median(engine) : engine;
  const b = Array.isArray(baseline) ? median(baseline) : baseline;
  const ratio = e / b;
  const pass = 'ratioAtLeast' in aim ? ratio >= aim.ratioAtLeast : 'ratioAtMost' in aim ? ratio <= aim.ratioAtMost : e < aim.under;
  const aimText = 'ratioAtLeast' in aim ? `>= ${aim.ratioAtLeast}x` : 'ratioAtMost' in aim ? `<= ${aim.ratioAtMost}x` : `< ${aim.under} ${unit}`;
  const spread = (xs: number | number[]) => (Array.isArray(xs) && xs.length > 1 ? ` [${fmt(Math.min(...xs), Math.min(...xs) < 100 ? 1 : 0)}-${fmt(Math.max(...xs), Math.max(...xs) < 100 ? 1 : 0)}, n=${xs.length}]` : '');
  console.log(`RESULT ${metric}: engine ${fmt(e, e < 100 ? 1 : 0)} ${unit}${spread(engine)}, baseline ${fmt(b, b < 100 ? 1 : 0)} ${unit}${spread(baseline)}, ratio ${ratio.toFixed(2)} (aim: ${aimText}) ${pass ? 'PASS' : 'MISS'}`);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length / 2;
  return s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
};

/** The `p` quantile (0..1) of a sample: the sorted value at floor(n * p), clamped to the last. */
export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
