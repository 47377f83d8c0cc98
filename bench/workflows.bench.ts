/**
 * Workflows, side by side:
 *  1. per-node overhead of a 1 000-node linear workflow of `state` nodes, against (a) LangGraph JS
 *     running the same graph (one node per step, an `add` reducer) with its durable SQLite
 *     checkpointer in `sync` durability, the field's reference, and (b) a hand-written loop doing the
 *     same durable JSONL appends as the engine (three events a node, one write(2) per completed node,
 *     no fsync: the engine's policy), the floor.
 *  2. `map` over 1 000 items at concurrency 8 against Promise.all with the same limit and the same
 *     log writes (within 2x).
 *  3. resume of a run whose log holds 10 000 events: time to the 202 (under 200 ms).
 * Rounds alternate engine and baseline; medians are compared.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { startEngine, type Engine } from '../src/engine.js';
import { fmt, median, result, table } from './lib/report.js';
import { alternate, describe, loadNote, timed } from './lib/rounds.js';

const ROUNDS = 9;
const MAP_ROUNDS = 31;
const NODES = 1_000;
const ITEMS = 1_000;

const RUN_END = /^run\.(completed|failed|stopped)$/;
const tmp = () => mkdtemp(path.join(os.tmpdir(), 'wf-bench-'));

async function engineAt(home: string): Promise<Engine> {
  return startEngine({ home, port: 0, log: () => undefined, secretsBackend: 'file', files: { watch: false } });
}

/** Starts a run and resolves when it has ended (subscribed first: a short run can end before start() returns). */
async function runOnce(engine: Engine, workflowId: string, payload?: unknown): Promise<void> {
  let runId: string | undefined;
  const ended = new Set<string>();
  let wake: () => void = () => undefined;
  const off = engine.bus.subscribe((e) => {
    // Cheap first test: this listener sees every event of the measured run.
    if (e.runId && e.kind.startsWith('run.') && RUN_END.test(e.kind)) {
      if (e.kind !== 'run.completed') throw new Error(`bench run ended ${e.kind}: ${String(e.error)}`);
      ended.add(e.runId);
      wake();
    }
  });
  runId = await engine.workflows.start({ workflowId, source: 'manual', attended: false, payload });
  while (!ended.has(runId)) await new Promise<void>((r) => (wake = r));
  off();
}

function waitEnd(engine: Engine, runId: string): Promise<void> {
  return new Promise((resolve) => {
    const off = engine.bus.subscribe((e) => {
      if (e.runId === runId && /^run\.(completed|failed|stopped)$/.test(e.kind)) {
        off();
        if (e.kind !== 'run.completed') throw new Error(`bench run ended ${e.kind}: ${String(e.error)}`);
        resolve();
      }
    });
  });
}

const linear = (n: number) => ({
  id: 'linear',
  formatVersion: 2,
  group: null,
  state: { total: { reducer: 'add', initial: 0 } },
  nodes: [{ id: 'start', type: 'trigger.manual' }, ...Array.from({ length: n }, (_, i) => ({ id: `s${i}`, type: 'state', config: { key: 'total', value: 1 } }))],
  edges: Array.from({ length: n }, (_, i) => ({ from: i === 0 ? 'start' : `s${i - 1}`, to: `s${i}` })),
});

const mapDoc = {
  id: 'fan',
  formatVersion: 2,
  group: null,
  state: { seen: { reducer: 'add', initial: 0 } },
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: 'each', type: 'map', config: { items: '{{trigger.items}}', concurrency: 8, node: { type: 'state', config: { key: 'seen', value: 1 } } } },
  ],
  edges: [{ from: 'start', to: 'each' }],
};

/** The baseline of (1): the same events, the same reducer, one write(2) per completed node. */
function baselineLinear(file: string, n: number): void {
  const fd = openSync(file, 'a');
  let seq = 0;
  let total = 0;
  const line = (o: object) => JSON.stringify({ ...o, ts: Date.now(), seq: ++seq, runId: 'run-1-1' }) + '\n';
  for (let i = 0; i < n; i++) {
    let chunk = line({ kind: 'node.started', nodeId: `s${i}`, type: 'state' });
    total += 1;
    chunk += line({ kind: 'state.updated', key: 'total', value: total, reducer: 'add', nodeId: `s${i}` });
    chunk += line({ kind: 'node.completed', nodeId: `s${i}`, type: 'state', output: total });
    writeSync(fd, chunk);
  }
  closeSync(fd);
}

/**
 * The baseline of (2): Promise.all workers at the same limit, writing the lines the engine's run log
 * and run index get for the same run, field for field (run.started, the trigger's state.updated and
 * node events, per item a state.updated and a node.delta, the map's node.completed with every
 * result, run.completed; a start and an end record in the index), with the same durable write
 * points: the trigger's completion is written before the items start and the map's before the run
 * ends (one write(2) each, no fsync: the engine's policy). `index` stays open across rounds, as the
 * engine's does.
 */
async function baselineMap(dir: string, index: number, round: number, items: number[], limit: number): Promise<void> {
  const runId = `run-${Date.now()}-${round}`;
  const fd = openSync(path.join(dir, `${runId}.jsonl`), 'a');
  let seq = 0;
  let seen = 0;
  let pending: string[] = [];
  const line = (kind: string, o: object) => pending.push(JSON.stringify({ kind, ts: Date.now(), seq: ++seq, runId, ...o }) + '\n');
  const flush = () => (writeSync(fd, pending.join('')), (pending = []));
  const payload = { items };
  const record = { runId, status: 'running', startedAt: Date.now(), usage: { input: 0, output: 0, cached: 0, reasoning: 0 }, source: 'manual', workflowId: 'fan', title: 'fan' };
  writeSync(index, JSON.stringify(record) + '\n');
  line('run.started', { source: 'manual', workflowId: 'fan', title: 'fan' });
  line('state.updated', { key: 'trigger', value: payload });
  line('node.started', { nodeId: 'start', type: 'trigger.manual' });
  line('node.completed', { nodeId: 'start', type: 'trigger.manual', output: payload });
  flush();
  line('node.started', { nodeId: 'each', type: 'map' });
  const out: unknown[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await Promise.resolve();
      seen += 1;
      pending.push(JSON.stringify({ kind: 'state.updated', ts: Date.now(), seq: ++seq, runId, key: 'seen', value: seen, reducer: 'add', nodeId: 'each' }) + '\n');
      out[i] = seen;
      pending.push(JSON.stringify({ kind: 'node.delta', ts: Date.now(), seq: ++seq, runId, item: i, status: 'completed', nodeId: 'each' }) + '\n');
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  line('node.completed', { nodeId: 'each', type: 'map', output: out });
  flush();
  line('run.completed', { source: 'manual', usage: record.usage, workflowId: 'fan', outputs: { each: out } });
  flush();
  closeSync(fd);
  writeSync(index, JSON.stringify({ ...record, status: 'completed', endedAt: Date.now() }) + '\n');
}

/** The LangGraph baseline of (1): the same linear graph of `n` nodes, checkpointed to SQLite at every step. */
function langGraphLinear(dbFile: string, n: number) {
  const State = Annotation.Root({ total: Annotation<number>({ reducer: (a: number, b: number) => a + b, default: () => 0 }) });
  // Node names are built in a loop, which LangGraph's typed builder cannot follow: typed loosely here.
  let g: any = new StateGraph(State);
  for (let i = 0; i < n; i++) g = g.addNode(`s${i}`, () => ({ total: 1 }));
  g = g.addEdge(START, 's0');
  for (let i = 1; i < n; i++) g = g.addEdge(`s${i - 1}`, `s${i}`);
  g = g.addEdge(`s${n - 1}`, END);
  const app = g.compile({ checkpointer: SqliteSaver.fromConnString(dbFile) });
  let thread = 0;
  return async () => {
    const out = await app.invoke({ total: 0 }, { configurable: { thread_id: `t${++thread}` }, recursionLimit: n + 10, durability: 'sync' });
    if (out.total !== n) throw new Error(`LangGraph total ${out.total}, expected ${n}`);
  };
}

const rows: Array<Record<string, string | number>> = [];
/** WF_BENCH=map (or linear, resume, comma-separated) runs only those parts; all by default. */
const parts = new Set((process.env.WF_BENCH ?? 'linear,map,resume').split(',').map((p) => p.trim()));

// 1: one engine, alternating rounds.
if (parts.has('linear')) {
  const home = await tmp();
  const engine = await engineAt(home);
  await engine.workflows.store.save('linear', linear(NODES));
  const langGraph = langGraphLinear(path.join(home, 'langgraph.db'), NODES);
  const gLin: number[] = [];
  const eLin: number[] = [];
  const bLin: number[] = [];
  // Warm-ups of each side (JIT, first file opens), not measured.
  await langGraph();
  for (let w = 0; w < 3; w++) {
    await runOnce(engine, 'linear');
    baselineLinear(path.join(home, `warm-${w}.jsonl`), NODES);
  }
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    await runOnce(engine, 'linear');
    eLin.push(((performance.now() - t) * 1000) / NODES);
    t = performance.now();
    await langGraph();
    gLin.push(((performance.now() - t) * 1000) / NODES);
    t = performance.now();
    baselineLinear(path.join(home, `baseline-${r}.jsonl`), NODES);
    bLin.push(((performance.now() - t) * 1000) / NODES);
  }
  await engine.close();
  await rm(home, { recursive: true, force: true });
  rows.push({ measurement: `linear ${NODES} state nodes, µs per node, vs LangGraph + SQLite`, engine: fmt(median(eLin), 1), baseline: fmt(median(gLin), 1), spread: `${fmt(Math.min(...eLin), 1)}-${fmt(Math.max(...eLin), 1)} / ${fmt(Math.min(...gLin), 1)}-${fmt(Math.max(...gLin), 1)}` });
  rows.push({ measurement: `linear ${NODES} state nodes, µs per node, vs hand-written loop`, engine: fmt(median(eLin), 1), baseline: fmt(median(bLin), 1), spread: `${fmt(Math.min(...eLin), 1)}-${fmt(Math.max(...eLin), 1)} / ${fmt(Math.min(...bLin), 1)}-${fmt(Math.max(...bLin), 1)}` });
  table(rows);
  // Throughput ratios (engine / baseline; higher is better).
  // The target: faster than LangGraph, i.e. more nodes a second (ratio above 1).
  result('workflow per-node throughput vs LangGraph JS + SQLite checkpointer', 'nodes/s', 1e6 / median(eLin), 1e6 / median(gLin), { ratioAtLeast: 1 });
  result('workflow per-node throughput vs hand-written durable loop', 'nodes/s', 1e6 / median(eLin), 1e6 / median(bLin), { ratioAtLeast: 0.1 });
}

// 2: the map on its own engine (not measured in LangGraph's garbage), ABBA rounds; short runs, so many.
if (parts.has('map')) {
  const home = await tmp();
  const engine = await engineAt(home);
  await engine.workflows.store.save('fan', mapDoc);
  const items = Array.from({ length: ITEMS }, (_, i) => i);
  const index = openSync(path.join(home, 'baseline-index.jsonl'), 'a');
  let round = 0;
  const toItemsPerSecond = (ms: number) => (ITEMS * 1000) / ms;
  const out = await alternate(
    MAP_ROUNDS,
    {
      engine: () => timed(() => runOnce(engine, 'fan', { items })),
      baseline: () => timed(() => baselineMap(home, index, ++round, items, 8)),
    },
    { warmup: 10 },
  );
  closeSync(index);
  await engine.close();
  await rm(home, { recursive: true, force: true });
  table([{ measurement: `map ${ITEMS} items at 8, ms`, engine: describe(out.engine), baseline: describe(out.baseline) }]);
  console.log(await loadNote());
  result('map 1000 items at concurrency 8 vs Promise.all', 'items/s', out.engine.map(toItemsPerSecond), out.baseline.map(toItemsPerSecond), { ratioAtLeast: 0.5 });
}

// 3: resume of a run whose log holds 10 000 events, on a fresh engine (the run interrupted).
if (parts.has('resume')) {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const home = await tmp();
    const n = 5_000;
    await mkdir(path.join(home, 'workflows'), { recursive: true });
    await mkdir(path.join(home, 'runs'), { recursive: true });
    await writeFile(path.join(home, 'workflows', 'linear.json'), JSON.stringify(linear(n)));
    const runId = 'run-1700000000000-1';
    const record = { runId, status: 'running', startedAt: 1700000000000, usage: { input: 0, output: 0, cached: 0, reasoning: 0 }, source: 'manual', workflowId: 'linear' };
    await writeFile(path.join(home, 'runs', 'index.jsonl'), JSON.stringify(record) + '\n');
    const lines: string[] = [];
    let seq = 0;
    const ev = (o: object) => lines.push(JSON.stringify({ ...o, ts: 1700000000000, seq: ++seq, runId }));
    ev({ kind: 'run.started', source: 'manual', workflowId: 'linear' });
    ev({ kind: 'state.updated', key: 'trigger', value: {} });
    ev({ kind: 'node.started', nodeId: 'start' });
    ev({ kind: 'node.completed', nodeId: 'start', output: {} });
    for (let i = 0; lines.length < 10_000; i++) {
      ev({ kind: 'node.started', nodeId: `s${i}`, type: 'state' });
      if (lines.length < 10_000) ev({ kind: 'node.completed', nodeId: `s${i}`, type: 'state', output: i + 1 });
    }
    await writeFile(path.join(home, 'runs', `${runId}.jsonl`), lines.join('\n') + '\n');
    const engine = await engineAt(home);
    const ended = waitEnd(engine, runId);
    const t = performance.now();
    const res = await fetch(`${engine.url}/api/runs/${runId}/resume`, { method: 'POST' });
    times.push(performance.now() - t);
    if (res.status !== 202) throw new Error(`resume answered ${res.status}: ${await res.text()}`);
    await ended;
    await engine.close();
    await rm(home, { recursive: true, force: true });
  }
  table([{ measurement: 'resume, 10 000-event log, ms to 202', engine: fmt(median(times), 1), spread: `${fmt(Math.min(...times), 1)}-${fmt(Math.max(...times), 1)}` }]);
  result('resume of a 10 000-event run to 202', 'ms', median(times), 200, { under: 200 });
}
