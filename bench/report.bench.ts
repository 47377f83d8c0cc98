/**
 * The spend report over a large run ledger. Engine: GET /api/report (four rollups with pricing) and
 * GET /api/report/runs (filtered, paged rows) over 20 000 runs, through real HTTP. Baseline, side by
 * side in the same run: what a script without the engine does for the same answer — read
 * runs/index.jsonl, parse it, keep each run's last line and sum tokens by model.
 *
 *   node --import tsx bench/report.bench.ts
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from '../src/engine.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20_000);
const ROUNDS = 15;
const AIM_RATIO = 1;
const MODELS = ['gpt-4o-mini', 'claude-sonnet-4-20250514', 'local-llama', 'gpt-4.1'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function seed(home: string): Promise<string> {
  const lines: string[] = [];
  const t0 = Date.now() - RUNS * 1000;
  for (let i = 0; i < RUNS; i++) {
    const base = { runId: `run-${t0 + i * 1000}-${i + 1}`, source: i % 3 ? 'chat' : 'workflow', startedAt: t0 + i * 1000, model: MODELS[i % MODELS.length], agent: `agent-${i % 7}`, workflowId: i % 3 ? undefined : `wf-${i % 11}` };
    lines.push(JSON.stringify({ ...base, status: 'running', usage: { input: 0, output: 0, cached: 0, reasoning: 0 } }));
    lines.push(JSON.stringify({ ...base, status: i % 17 ? 'completed' : 'failed', endedAt: t0 + i * 1000 + 500, usage: { input: 1000 + i, output: 100 + (i % 50), cached: i % 5 ? 0 : 200, reasoning: 0 } }));
  }
  const file = path.join(home, 'runs', 'index.jsonl');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

async function baseline(file: string): Promise<Record<string, number>> {
  const records = new Map<string, { model?: string; usage: { input: number; output: number } }>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line);
    records.set(r.runId, r);
  }
  const byModel: Record<string, number> = {};
  for (const r of records.values()) byModel[r.model ?? '(none)'] = (byModel[r.model ?? '(none)'] ?? 0) + r.usage.input + r.usage.output;
  return byModel;
}

async function main() {
  const home = await mkdtemp(path.join(os.tmpdir(), 'bench-report-'));
  const index = await seed(home);
  const engine = await startEngine({ home, port: 0, log: () => undefined });
  const get = async (route: string) => {
    const res = await fetch(engine.url + route);
    return res.json() as Promise<any>;
  };
  try {
    // Warm up and check both sides agree.
    const report = await get('/api/report');
    const base = await baseline(index);
    for (const b of report.byModel) if (b.input + b.output !== base[b.key]) throw new Error(`mismatch for ${b.key}`);
    await get('/api/report/runs?model=gpt-4o-mini&limit=100');

    const eng: number[] = [];
    const rows: number[] = [];
    const bl: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let s = performance.now();
      await get('/api/report');
      eng.push(performance.now() - s);
      s = performance.now();
      await get('/api/report/runs?status=completed&model=gpt-4o-mini&limit=100&offset=200');
      rows.push(performance.now() - s);
      s = performance.now();
      await baseline(index);
      bl.push(performance.now() - s);
    }
    const e = median(eng);
    const r = median(rows);
    const b = median(bl);
    console.log(`| measure (${RUNS} runs, median of ${ROUNDS}) | ms |`);
    console.log('|---|---|');
    console.log(`| GET /api/report | ${e.toFixed(1)} |`);
    console.log(`| GET /api/report/runs (filtered, paged) | ${r.toFixed(1)} |`);
    console.log(`| baseline: read + parse index.jsonl, sum by model | ${b.toFixed(1)} |`);
    const ratio = e / b;
    console.log(`RESULT report-summary: engine ${e.toFixed(1)} ms, baseline ${b.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (aim: <= ${AIM_RATIO}) ${ratio <= AIM_RATIO ? 'PASS' : 'MISS'}`);
    const rr = r / b;
    console.log(`RESULT report-runs: engine ${r.toFixed(1)} ms, baseline ${b.toFixed(1)} ms, ratio ${rr.toFixed(2)} (aim: <= ${AIM_RATIO}) ${rr <= AIM_RATIO ? 'PASS' : 'MISS'}`);
  } finally {
    await engine.close();
    await rm(home, { recursive: true, force: true });
  }
}

await main();
