/**
 * Scale curves of the brain (issue 42) at 500, 10k and 100k runs: what a start holds and costs with
 * a year of runs in the home, and a focused query. The home is written straight in the engine's
 * on-disk formats: the ledger (runs/index.jsonl, a start and an end line per run) and the brain's
 * log (brain/graph.jsonl: per run its node, a session, a model and an agent, a file read and one
 * written, then its end), one file per ten runs so a file's runs stay as many at every size.
 *
 * Per size: the first query after the upgrade (the index made from the log: linear, once), then a
 * start with the index in place: the heap in use after the first 200 (aim: 10k runs under 20 MB
 * over 500), the time from start to the first 200 (aim: within 1.5x of 500's), and focused queries
 * (flat): a run at depth 1, a file at depth 1, a run at depth 2 (through its model: capped at 500),
 * and the whole graph capped at 500. Each size checks the brain answers what was written.
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians; the start is the median of three starts.
 *
 *   SCALE=0.1 node --import tsx bench/scale-brain.bench.ts
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { type Curve, printCurve, scaled, sizes } from './lib/curve.js';
import { cpuMs, eachSize, engineAt, get, getJson, heapMb, medianCpuMs, withEngine } from './lib/scale-home.js';

const SIZES = sizes([500, 10_000, 100_000]);
const MODELS = ['gpt-4o-mini', 'claude-sonnet-4-20250514', 'local-llama', 'gpt-4.1'];
const T0 = Date.UTC(2026, 0, 1);
const STEP = 60_000;
const runId = (i: number) => `run-${T0 + i * STEP}-${i + 1}`;

async function lines(file: string, write: (put: (line: unknown) => void) => void): Promise<void> {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  let buf: string[] = [];
  write((line) => {
    buf.push(JSON.stringify(line));
    if (buf.length >= 5000) {
      out.write(buf.join('\n') + '\n');
      buf = [];
    }
  });
  out.end(buf.length ? buf.join('\n') + '\n' : '');
  await once(out, 'finish');
}

async function writeHome(home: string, n: number): Promise<void> {
  const files = Math.max(1, Math.floor(n / 10));
  await lines(path.join(home, 'runs', 'index.jsonl'), (put) => {
    for (let i = 0; i < n; i++) {
      const startedAt = T0 + i * STEP;
      const base = { runId: runId(i), source: 'chat', sessionId: `s${Math.floor(i / 5)}`, startedAt, model: MODELS[i % MODELS.length], agent: `agent-${i % 7}`, title: `task ${i}` };
      put({ ...base, status: 'running', usage: { input: 0, output: 0, cached: 0, reasoning: 0 } });
      put({ ...base, status: 'completed', endedAt: startedAt + 500, usage: { input: 1000, output: 100, cached: 0, reasoning: 0 } });
    }
  });
  await lines(path.join(home, 'brain', 'graph.jsonl'), (put) => {
    const seen = new Set<string>();
    const node = (id: string, type: string, label: string, at: number) => {
      if (seen.has(id)) return;
      seen.add(id);
      put({ n: { id, type, label, at } });
    };
    for (let i = 0; i < n; i++) {
      const at = T0 + i * STEP;
      const id = `run:${runId(i)}`;
      const data = { source: 'chat', status: 'running', model: MODELS[i % MODELS.length], agent: `agent-${i % 7}`, title: `task ${i}`, startedAt: at };
      put({ n: { id, type: 'run', label: `task ${i}`, at, data } });
      const session = `session:s${Math.floor(i / 5)}`;
      node(session, 'session', session.slice(8), at);
      put({ e: { from: session, to: id, type: 'started', at, runId: runId(i) } });
      node(`agent:agent-${i % 7}`, 'agent', `agent-${i % 7}`, at);
      put({ e: { from: id, to: `agent:agent-${i % 7}`, type: 'ran-as', at, runId: runId(i) } });
      node(`model:${data.model}`, 'model', data.model, at);
      put({ e: { from: id, to: `model:${data.model}`, type: 'used', at, runId: runId(i) } });
      for (const [type, f] of [['read', i % files], ['wrote', (i * 7) % files]] as const) {
        node(`file:src/f${f}.ts`, 'file', `src/f${f}.ts`, at + 1);
        put({ e: { from: id, to: `file:src/f${f}.ts`, type, at: at + 1, runId: runId(i) } });
      }
      put({ n: { id, type: 'run', label: `task ${i}`, at, data: { ...data, status: 'completed', endedAt: at + 500 } } });
    }
  });
}

const curves: Record<string, Curve> = {
  build: { path: 'first GET /api/brain after the upgrade (index made from graph.jsonl)', unit: 'runs', expected: 'linear', points: [] },
  start: { path: 'start to the first 200 (index in place; MB: heap in use after it)', unit: 'runs', expected: 'flat', points: [] },
  run1: { path: 'GET /api/brain?focus=run:<id>&depth=1', unit: 'runs', expected: 'flat', points: [] },
  file1: { path: 'GET /api/brain?focus=<file>&depth=1', unit: 'runs', expected: 'flat', points: [] },
  run2: { path: 'GET /api/brain?focus=run:<id>&depth=2 (cap 500)', unit: 'runs', expected: 'flat', points: [] },
  whole: { path: 'GET /api/brain (whole graph, cap 500)', unit: 'runs', expected: 'flat', points: [] },
};

await eachSize('brain', SIZES, async (n, home, warm) => {
  await writeHome(home, n);
  const mid = runId(Math.floor(n / 2));
  await withEngine(home, async (engine) => {
    const build = await cpuMs(() => get(engine, `/api/brain?focus=run:${mid}`));
    if (!warm) curves.build.points.push({ size: n, ms: build });
  });
  const starts: number[] = [];
  let held = 0;
  for (let round = 0; round < 3; round++) {
    let engine: Awaited<ReturnType<typeof engineAt>> | undefined;
    starts.push(
      await cpuMs(async () => {
        engine = await engineAt(home);
        await get(engine, '/api/status');
      }),
    );
    // The heap in use with this engine started (absolute: a closed engine is let go only once the
    // next one has started, so a difference against the heap before the start would read short).
    held = heapMb();
    try {
      if (round < 2) continue;
      const e = engine!;
      const run = await getJson(e, `/api/brain?focus=run:${mid}`);
      if (run.nodes.length < 5 || run.nodes.find((x: { id: string }) => x.id === `run:${mid}`)?.data?.status !== 'completed') throw new Error(`the brain answers ${JSON.stringify(run).slice(0, 300)} for ${mid}`);
      const measure = async (key: keyof typeof curves, route: string) => {
        const ms = await medianCpuMs(() => get(e, route), 7);
        if (!warm) curves[key].points.push({ size: n, ms });
      };
      await measure('run1', `/api/brain?focus=run:${mid}&depth=1`);
      await measure('file1', `/api/brain?focus=src/f${Math.floor(n / 20)}.ts&depth=1`);
      await measure('run2', `/api/brain?focus=run:${mid}&depth=2`);
      await measure('whole', '/api/brain');
    } finally {
      await engine!.close();
    }
  }
  starts.sort((a, b) => a - b);
  if (!warm) curves.start.points.push({ size: n, ms: starts[1], mb: held });
});
for (const c of Object.values(curves)) printCurve(c);
const [small, , big] = curves.start.points;
const ten = curves.start.points.find((p) => p.size === scaled(10_000));
if (small && ten) {
  const added = (ten.mb ?? 0) - (small.mb ?? 0);
  console.log(`RESULT scale brain: ${ten.size} runs hold ${added.toFixed(1)} MB more than ${small.size} after start (aim < 20 MB) ${added < 20 ? 'PASS' : 'MISS'}; start ${(ten.ms / small.ms).toFixed(2)}x of ${small.size}'s (aim <= 1.5) ${ten.ms / small.ms <= 1.5 ? 'PASS' : 'MISS'}${big ? `; at ${big.size}: ${((big.mb ?? 0) - (small.mb ?? 0)).toFixed(1)} MB, ${(big.ms / small.ms).toFixed(2)}x` : ''}`);
}
