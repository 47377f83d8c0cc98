/**
 * Workflows, side by side:
 *  1. per-node overhead of a 1 000-node linear workflow of `state` nodes, against (a) LangGraph JS
 *     running the same graph (one node per step, an `add` reducer) with its durable SQLite
 *     checkpointer in `sync` durability, the field's reference, and (b) a hand-written loop doing the
 *     same durable JSONL appends as the engine (three events a node, one write(2) per completed node,
 *     no fsync: the engine's policy), the floor.
 *  2. `map`: bench/workflows-map.bench.ts (its own process).
 *  3. resume of a run whose log holds 10 000 events: time to the 202 (under 200 ms).
 * Rounds alternate engine and baseline; medians are compared.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { fmt, median, result, table } from './lib/report.js';
import { engineAt, runOnce, tmp, waitEnd } from './workflows-fixture.js';

const ROUNDS = 9;
const NODES = 1_000;

const linear = (n: number) => ({
  id: 'linear',
  formatVersion: 2,
  group: null,
  state: { total: { reducer: 'add', initial: 0 } },
  nodes: [{ id: 'start', type: 'trigger.manual' }, ...Array.from({ length: n }, (_, i) => ({ id: `s${i}`, type: 'state', config: { key: 'total', value: 1 } }))],
  edges: Array.from({ length: n }, (_, i) => ({ from: i === 0 ? 'start' : `s${i - 1}`, to: `s${i}` })),
});

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
// 1: one engine, alternating rounds.
{
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

// 3: resume of a run whose log holds 10 000 events, on a fresh engine (the run interrupted).
{
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
