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

/** `higherIsBetter`: the ratio is engine/baseline and must reach `aim`; else the engine value must stay under `aim`. */
export function result(metric: string, unit: string, engine: number, baseline: number, aim: { ratioAtLeast: number } | { under: number }): void {
  const ratio = engine / baseline;
  const pass = 'ratioAtLeast' in aim ? ratio >= aim.ratioAtLeast : engine < aim.under;
  const aimText = 'ratioAtLeast' in aim ? `>= ${aim.ratioAtLeast}x` : `< ${aim.under} ${unit}`;
  console.log(`RESULT ${metric}: engine ${fmt(engine, engine < 100 ? 1 : 0)} ${unit}, baseline ${fmt(baseline, baseline < 100 ? 1 : 0)} ${unit}, ratio ${ratio.toFixed(2)} (aim: ${aimText}) ${pass ? 'PASS' : 'MISS'}`);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
