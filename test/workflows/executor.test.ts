/** The executor over real HTTP: state and reducers, templates, parallel branches and joins, conditions, loops, retries, timeouts, error edges. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { of, startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
before(async () => {
  h = await startWf();
});
after(() => h.close());

test('a linear graph of state nodes writes through each reducer and logs every step', async () => {
  await h.save(
    wf(
      'reducers',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'a', type: 'state', config: { key: 'list', value: '{{trigger.item}}' } },
        { id: 'b', type: 'state', config: { key: 'list', value: ['x', 'y'] } },
        { id: 'c', type: 'state', config: { key: 'total', value: 2 } },
        { id: 'd', type: 'state', config: { key: 'total', value: '{{trigger.n}}' } },
        { id: 'e', type: 'state', config: { key: 'obj', value: { b: '{{state.total}}' } } },
        { id: 'f', type: 'state', config: { key: 'last', value: 'total is {{state.total}}, first {{state.list[0]}}, a said {{nodes.a.output}}' } },
      ],
      [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'e' },
        { from: 'e', to: 'f' },
      ],
      { state: { list: { reducer: 'append' }, total: { reducer: 'add', initial: 1 }, obj: { reducer: 'merge', initial: { a: 1 } }, last: { reducer: 'replace' } } },
    ),
  );
  const runId = await h.run('reducers', { item: 'first', n: 5 });
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const log = await h.log(runId);
  const last = (key: string) => of(log, 'state.updated').filter((e) => e.key === key).at(-1)?.value;
  assert.deepEqual(last('list'), ['first', 'x', 'y']);
  assert.equal(last('total'), 8);
  assert.deepEqual(last('obj'), { a: 1, b: 8 });
  assert.equal(last('last'), 'total is 8, first first, a said ["first"]');
  assert.deepEqual(last('trigger'), { item: 'first', n: 5 });
  for (const id of ['start', 'a', 'b', 'c', 'd', 'e', 'f']) assert.equal(of(log, 'node.completed', id).length, 1, id);
  const runs = await h.t.api('GET', '/api/runs');
  assert.equal(runs.body.runs.find((r: any) => r.runId === runId).status, 'completed');
});

test('parallel branches run side by side and a join waits for every live branch', async () => {
  await h.save(
    wf(
      'join',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'slow', type: 'wait', config: { ms: 150 } },
        { id: 'fast', type: 'state', config: { key: 'seen', value: 'fast' } },
        { id: 'slowMark', type: 'state', config: { key: 'seen', value: 'slow' } },
        { id: 'join', type: 'state', config: { key: 'joined', value: '{{state.seen}}' } },
      ],
      [
        { from: 'start', to: 'slow' },
        { from: 'start', to: 'fast' },
        { from: 'slow', to: 'slowMark' },
        { from: 'fast', to: 'join' },
        { from: 'slowMark', to: 'join' },
      ],
      { state: { seen: { reducer: 'append' } } },
    ),
  );
  const runId = await h.run('join');
  assert.equal((await h.end(runId)).kind, 'run.completed');
  const log = await h.log(runId);
  const joined = of(log, 'state.updated').find((e) => e.key === 'joined');
  assert.deepEqual(joined?.value, ['fast', 'slow'], 'the join ran once, after both branches');
  assert.equal(of(log, 'node.started', 'join').length, 1);
});

test('a condition takes its true or false edge; the other side is skipped, and a loop runs until its condition says stop', async () => {
  await h.save(
    wf(
      'loop',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'inc', type: 'state', config: { key: 'n', value: 1 } },
        { id: 'more', type: 'condition', config: { expr: 'state.n < trigger.upto' } },
        { id: 'done', type: 'state', config: { key: 'result', value: 'counted to {{state.n}}' } },
      ],
      [
        { from: 'start', to: 'inc' },
        { from: 'inc', to: 'more' },
        { from: 'more', to: 'inc', when: 'true' },
        { from: 'more', to: 'done', when: 'false' },
      ],
      { state: { n: { reducer: 'add', initial: 0 } } },
    ),
  );
  await h.save(
    wf(
      'branch',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'check', type: 'condition', config: { expr: 'trigger.kind == "push" && len(trigger.files) > 1' } },
        { id: 'yes', type: 'state', config: { key: 'r', value: 'yes' } },
        { id: 'no', type: 'state', config: { key: 'r2', value: 'no' } },
        { id: 'afterNo', type: 'state', config: { key: 'r3', value: 'after no' } },
      ],
      [
        { from: 'start', to: 'check' },
        { from: 'check', to: 'yes', when: 'true' },
        { from: 'check', to: 'no', when: 'false' },
        { from: 'no', to: 'afterNo' },
      ],
    ),
  );
  const loopRun = await h.run('loop', { upto: 4 });
  assert.equal((await h.end(loopRun)).kind, 'run.completed');
  const loopLog = await h.log(loopRun);
  assert.equal(of(loopLog, 'node.completed', 'inc').length, 4, 'the loop body ran four times');
  assert.equal(of(loopLog, 'state.updated').find((e) => e.key === 'result')?.value, 'counted to 4');

  const branchRun = await h.run('branch', { kind: 'push', files: ['a', 'b'] });
  assert.equal((await h.end(branchRun)).kind, 'run.completed');
  const log = await h.log(branchRun);
  assert.equal(of(log, 'node.completed', 'yes').length, 1);
  assert.equal(of(log, 'node.skipped', 'no').length, 1);
  assert.equal(of(log, 'node.skipped', 'afterNo').length, 1, 'a dead path stays dead downstream');
  assert.equal(of(log, 'node.completed', 'check')[0].output, true);
});

test('retries back off and emit node.retry; a timeout fails the attempt; the error edge catches the failure', async () => {
  await h.save(
    wf(
      'retry',
      [
        { id: 'start', type: 'trigger.webhook' },
        { id: 'flaky', type: 'command', config: { command: 'n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 3 ]' }, retry: { maxAttempts: 3, backoffMs: 10 } },
        { id: 'slow', type: 'wait', config: { ms: 60000 }, timeoutMs: 50, retry: { maxAttempts: 2, backoffMs: 1 } },
        { id: 'caught', type: 'state', config: { key: 'caught', value: '{{nodes.slow.output.error}}' } },
      ],
      [
        { from: 'start', to: 'flaky' },
        { from: 'flaky', to: 'slow' },
        { from: 'slow', to: 'caught', when: 'error' },
      ],
    ),
  );
  // A webhook run is unattended: the unattended default decides the command (no prompt).
  assert.equal((await h.t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
  const fired = await h.t.api('POST', '/hooks/retry', { go: 1 });
  assert.equal(fired.status, 202, JSON.stringify(fired.body));
  const runId = fired.body.runId;
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const log = await h.log(runId);
  const retries = of(log, 'node.retry', 'flaky');
  assert.equal(retries.length, 2);
  assert.deepEqual(retries.map((e) => e.delayMs), [10, 20], 'exponential backoff');
  assert.equal(of(log, 'node.completed', 'flaky').length, 1);
  assert.equal(of(log, 'node.retry', 'slow').length, 1);
  const failed = of(log, 'node.failed', 'slow')[0];
  assert.match(String(failed.error), /timed out after 50 ms \(after 2 attempts\)/);
  assert.equal(failed.handled, true);
  assert.match(String(of(log, 'state.updated').find((e) => e.key === 'caught')?.value), /timed out/);
});

test('a failure without an error edge fails the run with the node named', async () => {
  await h.save(wf('fails', [{ id: 'start', type: 'trigger.manual' }, { id: 'bad', type: 'state', config: { key: 'sum', value: 'not a number' } }], [{ from: 'start', to: 'bad' }], { state: { sum: { reducer: 'add' } } }));
  const runId = await h.run('fails');
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /node "bad" failed: state key "sum" adds numbers/);
});
