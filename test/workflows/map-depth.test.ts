/** `map` with continueOnError, a map over subworkflows stopped mid-way, and the subworkflow depth limit. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LIMITS } from '../../src/kernel/limits.js';
import { startWf, of, wf, type WfHarness } from './harness.js';

let h: WfHarness;
before(async () => {
  h = await startWf();
});
after(async () => {
  await h.close();
});

test('map with continueOnError: failing items put {error} in their place, the others complete, the run completes; without it the same map fails the run', async () => {
  // An `add` key refuses anything but a number: items "x" and {} fail (the second after its retry), 1 and 3 add up.
  const doc = (id: string, continueOnError: boolean) =>
    wf(
      id,
      [
        { id: 'start', type: 'trigger.manual' },
        {
          id: 'each',
          type: 'map',
          config: { items: '{{trigger.items}}', concurrency: 1, continueOnError, node: { type: 'state', config: { key: 'total', value: '{{item}}' }, retry: { maxAttempts: 2, backoffMs: 1 } } },
        },
        { id: 'after', type: 'state', config: { key: 'report', value: '{{nodes.each.output}}' } },
      ],
      [
        { from: 'start', to: 'each' },
        { from: 'each', to: 'after' },
      ],
      { state: { total: { reducer: 'add', initial: 0 } } },
    );
  await h.save(doc('tolerant', true));
  const runId = await h.run('tolerant', { items: [1, 'x', 3, {}] });
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const log = await h.log(runId);
  const output = of(log, 'node.completed', 'each')[0].output as unknown[];
  assert.equal(output.length, 4);
  assert.equal(output[0], 1);
  assert.match(String((output[1] as { error: string }).error), /state key "total" adds numbers; the value written was string "x" \(after 2 attempts\)/);
  assert.equal(output[2], 4);
  assert.match(String((output[3] as { error: string }).error), /adds numbers; the value written was an object/);
  // One delta an item, in item order (concurrency 1), saying how it ended.
  const deltas = of(log, 'node.delta', 'each');
  assert.deepEqual(
    deltas.map((d) => [d.item, d.status]),
    [
      [0, 'completed'],
      [1, 'failed'],
      [2, 'completed'],
      [3, 'failed'],
    ],
  );
  assert.match(String(deltas[1].error), /adds numbers/);
  assert.equal(of(log, 'node.retry', 'each').length, 2, 'each failing item was retried once');
  assert.equal(of(log, 'node.failed', 'each').length, 0, 'the map itself did not fail');
  assert.deepEqual(of(log, 'state.updated').find((e) => e.key === 'report')?.value, output, 'the next node sees the list with the errors in place');
  assert.equal(of(log, 'state.updated').filter((e) => e.key === 'total').at(-1)?.value, 4);

  // The same items without continueOnError: the first failure fails the map and the run; later items never start.
  await h.save(doc('strict', false));
  const strictId = await h.run('strict', { items: [1, 'x', 3, {}] });
  const strictEnd = await h.end(strictId);
  assert.equal(strictEnd.kind, 'run.failed');
  assert.match(String(strictEnd.error), /^node "each" failed: state key "total" adds numbers; the value written was string "x" \(after 2 attempts\)$/);
  const strictLog = await h.log(strictId);
  assert.deepEqual(
    of(strictLog, 'node.delta', 'each').map((d) => d.item),
    [0],
  );
  assert.equal(of(strictLog, 'node.started', 'after').length, 0);
});

test('stopping a map over subworkflows mid-way stops every child run, starts no new one, and ends the run run.stopped', async () => {
  await h.save(wf('sleeper', [{ id: 'start', type: 'trigger.manual' }, { id: 'nap', type: 'wait', config: { ms: 600_000 } }], [{ from: 'start', to: 'nap' }]));
  await h.save(
    wf(
      'fleet',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'each', type: 'map', config: { items: [1, 2, 3, 4, 5, 6], concurrency: 2, workflow: 'sleeper', continueOnError: true } },
        { id: 'after', type: 'state', config: { key: 'never', value: true } },
      ],
      [
        { from: 'start', to: 'each' },
        { from: 'each', to: 'after' },
      ],
    ),
  );
  const runId = await h.run('fleet');
  const childStarted = (n: number) => h.events.waitFor(() => h.events.events.filter((e) => e.kind === 'run.started' && e.parentRunId === runId).length >= n);
  // Both children of the first wave are asleep in their wait node.
  await childStarted(2);
  const children = () => h.events.events.filter((e) => e.kind === 'run.started' && e.parentRunId === runId).map((e) => e.runId!);
  for (const child of children()) await h.events.waitFor((e) => e.runId === child && e.kind === 'node.started' && e.nodeId === 'nap');
  const stop = await h.t.api('POST', `/api/runs/${runId}/stop`);
  assert.equal(stop.status, 202);
  assert.equal((await h.end(runId)).kind, 'run.stopped');
  const started = children();
  assert.equal(started.length, 2, 'no third child started: stop ends the map before the next item, continueOnError or not');
  for (const child of started) assert.equal((await h.end(child)).kind, 'run.stopped', `child ${child}`);
  // Nothing keeps running: no live run is left of the parent or its children, and the ledger agrees.
  assert.deepEqual(
    h.t.engine.runs.live().map((r) => r.id).filter((id) => id === runId || started.includes(id)),
    [],
  );
  const listed = await h.t.api('GET', '/api/runs');
  for (const id of [runId, ...started]) assert.equal(listed.body.runs.find((r: { runId: string }) => r.runId === id)?.status, 'stopped', id);
  const log = await h.log(runId);
  assert.equal(of(log, 'run.failed').length, 0);
  assert.equal(of(log, 'node.completed', 'each').length, 0);
  assert.equal(of(h.events.events, 'node.delta', 'each').filter((e) => e.runId === runId).length, 0, 'a stopped child is not an item error even under continueOnError');
  // The parent ends after its children, so a client that sees its run.stopped knows nothing of it is left.
  const parentEnd = h.events.events.find((e) => e.runId === runId && e.kind === 'run.stopped')!;
  for (const child of started) assert.ok(h.events.events.find((e) => e.runId === child && e.kind === 'run.stopped')!.seq < parentEnd.seq, `child ${child} ended first`);
  assert.equal(of(log, 'node.started', 'after').length, 0);
  // The workflow is free again.
  const again = await h.run('fleet');
  await h.events.waitFor((e) => e.kind === 'run.started' && e.parentRunId === again);
  await h.t.api('POST', `/api/runs/${again}/stop`);
  assert.equal((await h.end(again)).kind, 'run.stopped');
});

test('subworkflows nest at most LIMITS.workflowChildDepth deep: a chain at the limit runs, one level more and a workflow calling itself through another are refused with one sentence', async () => {
  const depth = LIMITS.workflowChildDepth;
  // chain-0 calls chain-1 ... calls chain-<n>; chain-<n> only writes its state.
  const chain = async (n: number) => {
    for (let i = n; i >= 0; i--) {
      const nodes: unknown[] = [{ id: 'start', type: 'trigger.manual' }];
      if (i < n) nodes.push({ id: 'down', type: 'workflow', config: { workflow: `chain-${i + 1}`, payload: { level: i + 1 } } });
      else nodes.push({ id: 'bottom', type: 'state', config: { key: 'level', value: '{{trigger.level}}' } });
      await h.save(wf(`chain-${i}`, nodes, [{ from: 'start', to: i < n ? 'down' : 'bottom' }]));
    }
  };
  await chain(depth);
  const ok = await h.run('chain-0');
  const okEnd = await h.end(ok);
  assert.equal(okEnd.kind, 'run.completed', JSON.stringify(okEnd));

  await chain(depth + 1);
  const tooDeep = await h.run('chain-0');
  const end = await h.end(tooDeep);
  assert.equal(end.kind, 'run.failed');
  const names = Array.from({ length: depth + 2 }, (_, i) => `chain-${i}`).join(' > ');
  assert.equal(
    end.error,
    `node "down" failed: subworkflow "chain-${depth + 1}" would run ${depth + 1} levels deep, past the limit of ${depth} (${names}); a workflow that calls itself, directly or through others, needs a condition that stops the calls`,
  );
  assert.equal(h.events.events.filter((e) => e.kind === 'run.started' && e.workflowId === `chain-${depth + 1}`).length, 0, 'the level past the limit never started');

  // ping calls pong calls ping ...: each level fails with the same sentence, not a paragraph nested per level.
  await h.save(wf('ping', [{ id: 'start', type: 'trigger.manual' }, { id: 'call', type: 'workflow', config: { workflow: 'pong' } }], [{ from: 'start', to: 'call' }]));
  await h.save(wf('pong', [{ id: 'start', type: 'trigger.manual' }, { id: 'call', type: 'workflow', config: { workflow: 'ping' } }], [{ from: 'start', to: 'call' }]));
  const loopId = await h.run('ping');
  const loopEnd = await h.end(loopId);
  assert.equal(loopEnd.kind, 'run.failed');
  assert.match(String(loopEnd.error), /^node "call" failed: subworkflow "p[io]ng" would run \d+ levels deep, past the limit of \d+ \(ping > pong > ping > .* > p[io]ng\); a workflow that calls itself, directly or through others, needs a condition that stops the calls$/);
  // Every run of the loop ended (failed); none is left running.
  const family = new Set([loopId]);
  for (const e of h.events.events) if (e.kind === 'run.started' && e.parentRunId && family.has(String(e.parentRunId))) family.add(e.runId!);
  assert.equal(family.size, depth + 1);
  for (const id of family) assert.equal((await h.end(id)).kind, 'run.failed', id);
  assert.deepEqual(
    h.t.engine.runs.live().filter((r) => family.has(r.id)),
    [],
  );

  // A workflow or a map naming its own workflow is refused when saved.
  for (const node of [
    { id: 'me', type: 'workflow', config: { workflow: 'selfish' } },
    { id: 'me', type: 'map', config: { items: [1], workflow: 'selfish' } },
  ]) {
    const res = await h.t.api('PUT', '/api/workflows/selfish', wf('selfish', [{ id: 'start', type: 'trigger.manual' }, node], [{ from: 'start', to: 'me' }]));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(JSON.stringify(res.body), /cannot run (itself|its own workflow)/);
  }
});
