/**
 * Scale curves of the lists that show runs beside something else (issue 42) at 500, 10k and 100k
 * runs in the ledger: GET /api/workflows (each workflow with its last top-level run) and a work
 * item's links (GET /api/work/<project>/<key>/links: the runs started for it). Expected: both flat
 * in the runs, since the ledger keeps each workflow's last run and each item's runs by key.
 *
 * The ledger is written straight to runs/index.jsonl (a start and an end line per run): runs of 20
 * workflows (every seventh a subworkflow run, which the list must not show as the last), and every
 * third run started for one of 50 items of board "eng". The workflows and the board are made
 * through the API. Each size checks the list's last run of a workflow and an item's run count.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-run-lists.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Curve, printCurve, sizes } from './lib/curve.js';
import { eachSize, get, getJson, medianCpuMs, request, withEngine } from './lib/scale-home.js';

const SIZES = sizes([500, 10_000, 100_000]);
const WORKFLOWS = 20;
const ITEMS = 50;
const T0 = Date.UTC(2026, 0, 1);
const STEP = 60_000;
const runId = (i: number) => `run-${T0 + i * STEP}-${i + 1}`;

interface Fixture {
  /** The last top-level run of wf-3. */
  lastOfWf3: string;
  /** How many runs were started for ENG-7. */
  eng7: number;
}

function writeLedger(home: string, n: number): Fixture {
  const lines: string[] = [];
  let lastOfWf3 = '';
  let eng7 = 0;
  for (let i = 0; i < n; i++) {
    const startedAt = T0 + i * STEP;
    const workflowId = `wf-${i % WORKFLOWS}`;
    const sub = i % 7 === 6;
    const item = i % 3 === 0 ? `ENG-${(i / 3) % ITEMS + 1}` : undefined;
    if (workflowId === 'wf-3' && !sub) lastOfWf3 = runId(i);
    if (item === 'ENG-7') eng7++;
    const base = { runId: runId(i), source: 'workflow', workflowId, startedAt, ...(sub ? { parentRunId: runId(i - 1) } : {}), ...(item ? { workItem: i % 2 ? item : `eng/${item}` } : {}) };
    lines.push(JSON.stringify({ ...base, status: 'running', usage: { input: 0, output: 0, cached: 0, reasoning: 0 } }));
    lines.push(JSON.stringify({ ...base, status: i % 17 ? 'completed' : 'failed', endedAt: startedAt + 500, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } }));
  }
  mkdirSync(path.join(home, 'runs'), { recursive: true });
  writeFileSync(path.join(home, 'runs', 'index.jsonl'), lines.join('\n') + '\n');
  return { lastOfWf3, eng7: Math.min(eng7, 200) };
}

const workflow = (id: string) => ({
  id,
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: 'note', type: 'state', config: { key: 'seen', value: 1 } },
  ],
  edges: [{ from: 'start', to: 'note' }],
});

const curves: Record<string, Curve> = {
  workflows: { path: `GET /api/workflows (${WORKFLOWS} workflows, each with its last run)`, unit: 'runs', expected: 'flat', points: [] },
  links: { path: 'GET /api/work/<project>/<key>/links', unit: 'runs', expected: 'flat', points: [] },
};

await eachSize('run-lists', SIZES, async (n, home, warm) => {
  const fixture = writeLedger(home, n);
  await withEngine(home, async (engine) => {
    for (let w = 0; w < WORKFLOWS; w++) await request(`${engine.url}/api/workflows/wf-${w}`, 'PUT', workflow(`wf-${w}`));
    await request(`${engine.url}/api/work/eng`, 'PUT', { prefix: 'ENG' });
    for (let k = 0; k < ITEMS; k++) await request(`${engine.url}/api/work/eng`, 'POST', { kind: 'task', title: `item ${k + 1}` });
    const list = await getJson(engine, '/api/workflows');
    const wf3 = list.find((w: { id: string }) => w.id === 'wf-3');
    if (list.length !== WORKFLOWS || wf3?.lastRun?.runId !== fixture.lastOfWf3) throw new Error(`wf-3's last run reads ${JSON.stringify(wf3?.lastRun)}; ${fixture.lastOfWf3} was written last`);
    const links = await getJson(engine, '/api/work/eng/ENG-7/links');
    if (links.runs?.length !== fixture.eng7) throw new Error(`ENG-7 links ${links.runs?.length} runs; ${fixture.eng7} were written for it`);
    const measure = async (key: keyof typeof curves, route: string) => {
      const ms = await medianCpuMs(() => get(engine, route), 9);
      if (!warm) curves[key].points.push({ size: n, ms });
    };
    await measure('workflows', '/api/workflows');
    await measure('links', '/api/work/eng/ENG-7/links');
  });
});
for (const c of Object.values(curves)) printCurve(c);
