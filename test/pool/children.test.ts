/**
 * Child runs in a pool (issue 43): a subworkflow, and each item of a map over a subworkflow, is a
 * queued job any engine takes. The items of one map spread over the pool and come back in item
 * order; stopping the parent through another engine stops children running anywhere; and a pool
 * whose every slot is taken (one engine, one slot, held by the parent) still runs the child, in the
 * parent's own engine, instead of waiting for a worker that never comes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestEngine } from '../support/engine.js';
import { poolEngine, postgresPerFile, until } from './support.js';

const { skip, database } = postgresPerFile();

const item = (ms: number) => ({
  id: 'item',
  formatVersion: 2,
  group: null,
  state: { got: { reducer: 'replace' } },
  nodes: [
    { id: 'go', type: 'trigger.manual' },
    { id: 'nap', type: 'wait', config: { ms } },
    { id: 'keep', type: 'state', config: { key: 'got', value: '{{trigger.n}}' } },
  ],
  edges: [
    { from: 'go', to: 'nap' },
    { from: 'nap', to: 'keep' },
  ],
});

const fan = {
  id: 'fan',
  formatVersion: 2,
  group: null,
  state: { report: { reducer: 'replace' } },
  nodes: [
    { id: 'go', type: 'trigger.manual' },
    { id: 'each', type: 'map', config: { items: [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }, { n: 6 }], concurrency: 6, workflow: 'item' } },
    { id: 'after', type: 'state', config: { key: 'report', value: '{{nodes.each.output}}' } },
  ],
  edges: [
    { from: 'go', to: 'each' },
    { from: 'each', to: 'after' },
  ],
};

const runsOf = async (e: TestEngine, parent: string) => (await e.api('GET', '/api/runs')).body.runs.filter((r: any) => r.parentRunId === parent);
const statusOf = async (e: TestEngine, runId: string) => (await e.api('GET', '/api/runs')).body.runs.find((r: any) => r.runId === runId)?.status;

test('a map over a subworkflow spreads its items over the pool, in item order; a stop through another engine reaches every child', { skip, timeout: 240_000 }, async () => {
  const url = await database('children');
  const engines: TestEngine[] = [];
  try {
    for (let i = 0; i < 3; i++) engines.push(await poolEngine(url, { concurrency: 2 }));
    assert.equal((await engines[0].api('PUT', '/api/workflows/item', item(1500))).status, 200);
    assert.equal((await engines[0].api('PUT', '/api/workflows/fan', fan)).status, 200);
    await until('every engine knows both workflows', async () => {
      for (const e of engines) if ((await e.api('GET', '/api/workflows/fan')).status !== 200 || (await e.api('GET', '/api/workflows/item')).status !== 200) return false;
      return true;
    });

    const runId = (await engines[0].api('POST', '/api/runs/fan', {})).body.runId as string;
    const events = await until('the map run\'s log ended', async () => {
      const log = (await engines[2].api('GET', `/api/runs/${runId}/events`)).body.events;
      return log.some((e: any) => ['run.completed', 'run.failed', 'run.stopped'].includes(e.kind)) && log;
    });
    assert.equal(await statusOf(engines[1], runId), 'completed');
    const children = await until('six children listed as ended', async () => {
      const list = await runsOf(engines[2], runId);
      return list.length === 6 && list.every((c: any) => c.status !== 'queued' && c.status !== 'running') && list;
    });
    assert.ok(children.every((c: any) => c.status === 'completed' && c.workflowId === 'item'), JSON.stringify(children));
    // The parent's engine has two slots, one its own: at least four children ran elsewhere unless
    // every other worker was too slow to take one within the grace.
    const workers = new Set(children.map((c: any) => c.worker));
    assert.ok(workers.size >= 2, `the children ran on ${[...workers].join(', ')}`);
    const report = events.find((e: any) => e.kind === 'state.updated' && e.key === 'report')?.value;
    assert.deepEqual(
      report.map((r: any) => r.state.got),
      [1, 2, 3, 4, 5, 6],
      'each item result in its place',
    );

    // Stopped through another engine while every child sleeps: no child outlives its parent.
    assert.equal((await engines[0].api('PUT', '/api/workflows/item', item(120_000))).status, 200);
    await until('every engine has the long item', async () => {
      for (const e of engines) if ((await e.api('GET', '/api/workflows/item')).body.nodes?.[1]?.config?.ms !== 120_000) return false;
      return true;
    });
    const long = (await engines[1].api('POST', '/api/runs/fan', {})).body.runId as string;
    await until('six children running', async () => (await runsOf(engines[0], long)).filter((c: any) => c.status === 'running').length === 6);
    assert.equal((await engines[2].api('POST', `/api/runs/${long}/stop`, {})).status, 202);
    const stopped = await until('the parent and its children stopped', async () => {
      const list = await runsOf(engines[0], long);
      return (await statusOf(engines[0], long)) === 'stopped' && list.length === 6 && list.every((c: any) => c.status === 'stopped') && list;
    });
    assert.equal(stopped.length, 6);
  } finally {
    for (const e of engines) await e.close();
  }
});

test('one engine with one slot, held by the parent: the child nobody can take runs in the parent\'s engine', { skip, timeout: 120_000 }, async () => {
  const url = await database('oneslot');
  const solo = await poolEngine(url, { concurrency: 1 });
  try {
    assert.equal((await solo.api('PUT', '/api/workflows/item', item(10))).status, 200);
    const outer = {
      id: 'outer',
      formatVersion: 2,
      group: null,
      nodes: [
        { id: 'go', type: 'trigger.manual' },
        { id: 'call', type: 'workflow', config: { workflow: 'item', payload: { n: 7 } } },
      ],
      edges: [{ from: 'go', to: 'call' }],
    };
    const saved = await solo.api('PUT', '/api/workflows/outer', outer);
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const runId = (await solo.api('POST', '/api/runs/outer', {})).body.runId as string;
    // The log's last lines land in their batch after the record says the run ended.
    const events = await until('the outer run\'s log ended', async () => {
      const log = (await solo.api('GET', `/api/runs/${runId}/events`)).body.events;
      return log.some((e: any) => ['run.completed', 'run.failed', 'run.stopped'].includes(e.kind)) && log;
    });
    assert.equal(await statusOf(solo, runId), 'completed', JSON.stringify(events.filter((e: any) => e.kind.startsWith('run.') || e.kind === 'node.failed')));
    const [child] = await runsOf(solo, runId);
    assert.equal(child.status, 'completed');
    const done = events.find((e: any) => e.kind === 'node.completed' && e.nodeId === 'call');
    assert.equal(done.output.state.got, 7);
    assert.equal(done.output.runId, child.runId);
  } finally {
    await solo.close();
  }
});
