/**
 * Scale curves of one run's event log (issue 34): GET /api/runs/<id>/events and POST
 * /api/runs/<id>/resume over a run of 1k, 10k and 100k events. The log is written straight to
 * runs/<runId>.jsonl with its start line in runs/index.jsonl (left `running`, as an engine killed
 * mid-run leaves it, so the next engine marks it interrupted and it can be resumed); each size
 * checks that the engine reads back every event. Expected: both linear in the events, and the
 * memory a read holds flat (streamed, never the whole log at once).
 *
 * Times are CPU time of the one process (engine and client, every thread: bench/lib/scale-home.ts
 * says why), medians.
 *
 *   SCALE=0.1 node --import tsx bench/scale-run-events.bench.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Curve, printCurve, sizes } from './lib/curve.js';
import { cpuMs, eachSize, get, getJson, peakMb, request, withEngine } from './lib/scale-home.js';

const SIZES = sizes([1_000, 10_000, 100_000]);
const T0 = Date.UTC(2026, 0, 1);
const RUN_ID = `run-${T0}-1`;

const WORKFLOW = {
  id: 'long',
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: 'work', type: 'state', config: { key: 'progress', value: 'done' } },
    { id: 'last', type: 'state', config: { key: 'after', value: 'resumed' } },
  ],
  edges: [
    { from: 'start', to: 'work' },
    { from: 'work', to: 'last' },
  ],
};

/** A workflow run that logged `n` events and died while its last node was running. */
function writeRun(home: string, n: number): void {
  mkdirSync(path.join(home, 'workflows'), { recursive: true });
  writeFileSync(path.join(home, 'workflows', 'long.json'), JSON.stringify(WORKFLOW));
  const record = { runId: RUN_ID, source: 'manual', workflowId: 'long', status: 'running', startedAt: T0, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } };
  mkdirSync(path.join(home, 'runs'), { recursive: true });
  writeFileSync(path.join(home, 'runs', 'index.jsonl'), JSON.stringify(record) + '\n');
  const lines: string[] = [];
  let seq = 0;
  const ev = (kind: string, payload: Record<string, unknown> = {}) => lines.push(JSON.stringify({ kind, ts: T0 + seq, seq: ++seq, runId: RUN_ID, ...payload }));
  ev('run.started', { source: 'manual', workflowId: 'long' });
  ev('node.started', { nodeId: 'start' });
  ev('node.completed', { nodeId: 'start', output: {} });
  ev('node.started', { nodeId: 'work' });
  // A long node's progress: state written again and again (the last value is what resume restores).
  while (lines.length < n - 2) ev('state.updated', { key: 'progress', value: { step: seq, note: 'processed another batch of records from the input queue' } });
  ev('node.completed', { nodeId: 'work', output: { value: 'done' } });
  ev('node.started', { nodeId: 'last' });
  writeFileSync(path.join(home, 'runs', `${RUN_ID}.jsonl`), lines.join('\n') + '\n');
}

const read: Curve = { path: 'GET /api/runs/<id>/events', unit: 'events', expected: 'linear', points: [] };
const resume: Curve = { path: 'POST /api/runs/<id>/resume', unit: 'events', expected: 'linear', points: [] };

await eachSize('run-events', SIZES, async (n, home, warm) => {
  writeRun(home, n);
  await withEngine(home, async (engine) => {
    const { events } = await getJson(engine, `/api/runs/${RUN_ID}/events`);
    // The engine's own line (run.interrupted) joins the n written.
    if (events.length !== n + 1 || events[n - 1].nodeId !== 'last') throw new Error(`the engine read ${events.length} events of ${n} written`);
    const times: number[] = [];
    let mb = 0;
    for (let i = 0; i < 5; i++) {
      const m = await peakMb(async () => {
        times.push(await cpuMs(() => get(engine, `/api/runs/${RUN_ID}/events`)));
      });
      mb = Math.max(mb, m);
    }
    times.sort((a, b) => a - b);
    if (!warm) read.points.push({ size: n, ms: times[2], mb });

    await request(engine.url + '/api/permissions/defaults', 'PUT', { unattended: 'allow' });
    let ms = 0;
    const resumeMb = await peakMb(async () => {
      let answer: { steps: number; rerun: string[] } = { steps: 0, rerun: [] };
      ms = await cpuMs(async () => (answer = JSON.parse((await request(engine.url + `/api/runs/${RUN_ID}/resume`, 'POST')).text)));
      if (answer.steps !== n + 1 || answer.rerun[0] !== 'last') throw new Error(`resume read ${answer.steps} steps, rerun ${answer.rerun}`);
    });
    if (!warm) resume.points.push({ size: n, ms, mb: resumeMb });
    while (engine.runs.get(RUN_ID)) await sleep(10);
  });
});
console.log('(MB: the most heap one call held above the settled heap before it)');
printCurve(read);
printCurve(resume);
