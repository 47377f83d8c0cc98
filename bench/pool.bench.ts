/**
 * Pool mode (issue 43, docs/pool.md), side by side on one real PostgreSQL (test/support/databases.ts):
 *  1. per-node overhead of a pool engine against the embedded engine: the same linear workflow of
 *     `state` nodes, run at two lengths; the difference divided by the extra nodes is the cost of
 *     one node (a run's fixed costs, the queue's hand-off among them, cancel out). Aim: within 2x.
 *  2. throughput: 60 runs of a workflow whose node sleeps 1 s, queued at once, on a pool of one
 *     engine against a pool of three (each executing 4 at a time). A sleep is not CPU bound, so the
 *     ratio shows the pool spreading the work even on a loaded machine. Aim: 2.5x.
 * Each figure prints the machine's load beside it (/proc/loadavg).
 */
import { readFileSync } from 'node:fs';
import { startEngine, type Engine } from '../src/engine.js';
import { startPostgres } from '../test/support/databases.js';
import { fmt, median, result, table } from './lib/report.js';
import { runOnce, tmp } from './workflows-fixture.js';

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const pg = await startPostgres();
let databases = 0;
const database = async () => {
  const name = `bench${++databases}`;
  await pg.admin(`CREATE DATABASE ${name}`);
  return pg.url.replace(/\/test$/, `/${name}`);
};
const engine = async (databaseUrl?: string, concurrency = 4): Promise<Engine> =>
  startEngine({ home: await tmp(), port: 0, gatewayPort: 0, log: () => undefined, secretsBackend: 'file', files: { watch: false }, databaseUrl, concurrency });

const linear = (id: string, n: number) => ({
  id,
  formatVersion: 2,
  group: null,
  state: { total: { reducer: 'add', initial: 0 } },
  nodes: [{ id: 'start', type: 'trigger.manual' }, ...Array.from({ length: n }, (_, i) => ({ id: `s${i}`, type: 'state', config: { key: 'total', value: 1 } }))],
  edges: Array.from({ length: n }, (_, i) => ({ from: i === 0 ? 'start' : `s${i - 1}`, to: `s${i}` })),
});

/** Starts a run through the trigger service and waits for its end on the bus (a pool's worker may be this engine). */
async function timed(e: Engine, id: string): Promise<number> {
  const t0 = performance.now();
  await runOnce(e, id);
  return performance.now() - t0;
}

const rows: Array<Record<string, string | number>> = [];
try {
  // 1. per-node overhead
  const SHORT = 20;
  const LONG = 420;
  const ROUNDS = 7;
  const embedded = await engine();
  const pooled = await engine(await database(), 1);
  for (const e of [embedded, pooled]) {
    await e.workflows.store.save('short', linear('short', SHORT));
    await e.workflows.store.save('long', linear('long', LONG));
  }
  // The pool engine is its own (only) worker; it must have seen its own saves before it runs them.
  await new Promise((r) => setTimeout(r, 500));
  for (let w = 0; w < 2; w++) for (const e of [embedded, pooled]) await timed(e, 'long');
  const perNode = { embedded: [] as number[], pool: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, e] of [['embedded', embedded], ['pool', pooled]] as const) {
      const short = await timed(e, 'short');
      const long = await timed(e, 'long');
      perNode[name].push(((long - short) / (LONG - SHORT)) * 1000);
    }
  }
  const l1 = load();
  rows.push({ measure: 'per-node overhead (us)', embedded: fmt(median(perNode.embedded), 0), pool: fmt(median(perNode.pool), 0), ratio: (median(perNode.pool) / median(perNode.embedded)).toFixed(2), load: l1 });
  await embedded.close();
  await pooled.close();

  // 2. throughput: 60 one-second sleeps, one engine against three
  const RUNS = 60;
  const sleeps = Array.from({ length: RUNS }, (_, i) => ({
    id: `nap-${i}`,
    formatVersion: 2,
    group: null,
    nodes: [
      { id: 'go', type: 'trigger.manual' },
      { id: 'nap', type: 'wait', config: { ms: 1000 } },
    ],
    edges: [{ from: 'go', to: 'nap' }],
  }));
  const wall: Record<'one' | 'three', number> = { one: 0, three: 0 };
  for (const size of ['one', 'three'] as const) {
    const url = await database();
    const pool: Engine[] = [];
    for (let i = 0; i < (size === 'one' ? 1 : 3); i++) pool.push(await engine(url, 4));
    for (const doc of sleeps) await pool[0].workflows.store.save(doc.id, doc);
    await new Promise((r) => setTimeout(r, 1000));
    const ended = new Set<string>();
    let done: () => void = () => undefined;
    const all = new Promise<void>((r) => (done = r));
    const off = pool[0].bus.subscribe((e) => {
      if (e.kind === 'run.completed' && typeof e.workflowId === 'string' && e.workflowId.startsWith('nap-')) {
        ended.add(e.runId!);
        if (ended.size === RUNS) done();
      }
    });
    const t0 = performance.now();
    for (const doc of sleeps) await pool[0].workflows.start({ workflowId: doc.id, source: 'manual', attended: false });
    await all;
    wall[size] = performance.now() - t0;
    off();
    rows.push({ measure: `60 x 1 s sleeps, ${size} engine(s) x 4 (s)`, embedded: '-', pool: fmt(wall[size] / 1000, 1), ratio: '-', load: load() });
    for (const e of pool) await e.close();
  }
  table(rows);
  result('pool per-node overhead vs embedded (us/node)', 'us', perNode.pool, perNode.embedded, { ratioAtMost: 2 });
  result('pool throughput, three engines vs one (runs/s)', 'runs/s', RUNS / (wall.three / 1000), RUNS / (wall.one / 1000), { ratioAtLeast: 2.5 });
} finally {
  await pg.stop();
}
