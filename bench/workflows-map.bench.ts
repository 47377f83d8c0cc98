/**
 * Workflows, side by side: `map` over 1 000 items at concurrency 8 against Promise.all workers with
 * the same limit writing the same log lines at the same points (aim: within 2x, a throughput ratio
 * of at least 0.5). Its own process (bench/run.ts runs each file apart), so the linear bench's
 * LangGraph heap and JIT state do not load it. ABBA rounds, medians.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { table, result } from './lib/report.js';
import { alternate, describe, loadNote, timed } from './lib/rounds.js';
import { engineAt, runOnce, tmp } from './workflows-fixture.js';

const MAP_ROUNDS = 31;
const ITEMS = 1_000;

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

// Short runs, so many rounds.
{
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
