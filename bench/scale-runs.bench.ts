/**
 * Scale curves of the run ledger (issue 34): GET /api/runs, GET /api/report and /api/report/runs
 * pages over 1k, 10k and 100k runs. The ledger is written straight to runs/index.jsonl (a start and
 * an end line per run, as the engine writes it), and each size's engine is checked to list exactly
 * the runs written. Expected: the runs list and an unfiltered or time-range report page flat (the
 * ledger is an index in memory, no log is read); the all-time summary and a page filtered by a label
 * linear in the runs they cover.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-runs.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Curve, type Point, printCurve, sizes } from './lib/curve.js';
import { eachSize, get, getJson, heapMb, medianCpuMs, withEngine } from './lib/scale-home.js';

const SIZES = sizes([1_000, 10_000, 100_000]);
const MODELS = ['gpt-4o-mini', 'claude-sonnet-4-20250514', 'local-llama', 'gpt-4.1'];
const T0 = Date.UTC(2026, 0, 1);
const STEP = 60_000; // a run a minute

function writeLedger(home: string, runs: number): void {
  const lines: string[] = [];
  for (let i = 0; i < runs; i++) {
    const startedAt = T0 + i * STEP;
    const base = { runId: `run-${startedAt}-${i + 1}`, source: i % 3 ? 'chat' : 'workflow', startedAt, model: MODELS[i % MODELS.length], agent: `agent-${i % 7}`, ...(i % 3 ? {} : { workflowId: `wf-${i % 11}` }) };
    lines.push(JSON.stringify({ ...base, status: 'running', usage: { input: 0, output: 0, cached: 0, reasoning: 0 } }));
    lines.push(JSON.stringify({ ...base, status: i % 17 ? 'completed' : 'failed', endedAt: startedAt + 500, usage: { input: 1000 + (i % 100), output: 100 + (i % 50), cached: 0, reasoning: 0 } }));
  }
  mkdirSync(path.join(home, 'runs'), { recursive: true });
  writeFileSync(path.join(home, 'runs', 'index.jsonl'), lines.join('\n') + '\n');
}

const curves: Record<string, Curve> = {
  list: { path: 'GET /api/runs', unit: 'runs', expected: 'flat', points: [] },
  page: { path: 'GET /api/report/runs (first page)', unit: 'runs', expected: 'flat', points: [] },
  far: { path: 'GET /api/report/runs (page at offset n/2)', unit: 'runs', expected: 'flat', points: [] },
  day: { path: 'GET /api/report/runs (one day, from/to)', unit: 'runs', expected: 'flat', points: [] },
  dayReport: { path: 'GET /api/report (one day, from/to)', unit: 'runs', expected: 'flat', points: [] },
  filtered: { path: 'GET /api/report/runs (status=failed)', unit: 'runs', expected: 'linear', points: [] },
  summary: { path: 'GET /api/report (all time)', unit: 'runs', expected: 'linear', points: [] },
};

await eachSize('runs', SIZES, async (n, home, warm) => {
  writeLedger(home, n);
  const before = heapMb();
  await withEngine(home, async (engine) => {
    // The engine reads the generated ledger as its own: every run, newest first, the totals exact.
    const { total } = await getJson(engine, '/api/report/runs?limit=1');
    const { runs } = await getJson(engine, '/api/runs');
    if (total !== n || runs[0].runId !== `run-${T0 + (n - 1) * STEP}-${n}`) throw new Error(`the engine lists ${total} runs (newest ${runs[0]?.runId}); ${n} were written`);
    const held = heapMb() - before;
    const day = T0 + Math.floor(n / 2) * STEP;
    const range = `from=${day}&to=${day + 86_400_000 - 1}`;
    const measure = async (key: keyof typeof curves, route: string) => {
      const point: Point = { size: n, ms: await medianCpuMs(() => get(engine, route), 7), mb: held };
      if (!warm) curves[key].points.push(point);
    };
    await measure('list', '/api/runs');
    await measure('page', '/api/report/runs?limit=50');
    await measure('far', `/api/report/runs?limit=50&offset=${Math.floor(n / 2)}`);
    await measure('day', `/api/report/runs?limit=50&${range}`);
    await measure('dayReport', `/api/report?${range}`);
    await measure('filtered', '/api/report/runs?limit=50&status=failed');
    await measure('summary', '/api/report');
  });
});
console.log('(MB: the heap the engine holds with the ledger loaded)');
for (const c of Object.values(curves)) printCurve(c);
