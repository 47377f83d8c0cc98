/** Gates (approve, reject, 404, orphaned after engine death) and stop reaching every kind of node. */
import assert from 'node:assert/strict';
import { cp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { startWf, of, wf, type WfHarness } from './harness.js';
import { tempDir } from '../support/engine.js';

let h: WfHarness;
let model: ModelServer;
let hang: http.Server;
let hangUrl: string;
const hanging = new Set<http.ServerResponse>();
before(async () => {
  h = await startWf();
  model = await startModelServer();
  const put = await h.t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  hang = http.createServer((_req, res) => void hanging.add(res));
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/slow`;
});
after(async () => {
  for (const r of hanging) r.destroy();
  hang.close();
  await h.close();
  await model.close();
});

const gateFlow = (id: string) =>
  wf(
    id,
    [
      { id: 'start', type: 'trigger.manual' },
      { id: 'work', type: 'state', config: { key: 'done', value: 'first step' } },
      { id: 'review', type: 'gate', config: { message: 'Ship {{trigger.what}}?' } },
      { id: 'ship', type: 'state', config: { key: 'result', value: 'shipped {{nodes.review.output.note}}' } },
      { id: 'undo', type: 'state', config: { key: 'rejected', value: 'rolled back: {{nodes.review.output.note}}' } },
    ],
    [
      { from: 'start', to: 'work' },
      { from: 'work', to: 'review' },
      { from: 'review', to: 'ship', when: 'approved' },
      { from: 'review', to: 'undo', when: 'rejected' },
    ],
  );

test('a gate waits with its message and the changes so far; approve takes the approved edge, reject the rejected one; 404 when not pending', async () => {
  await h.save(gateFlow('review'));
  for (const approved of [true, false]) {
    const runId = await h.run('review', { what: 'v2' });
    const waiting = await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
    assert.equal(waiting.message, 'Ship v2?');
    assert.match(String(waiting.changes), /nodes completed: start, work/);
    assert.match(String(waiting.changes), /state changed: done/);
    const gates = await h.t.api('GET', '/api/gates');
    assert.ok(gates.body.pending.includes(`${runId}:review`));
    const key: string = gates.body.pending.find((k: string) => k.startsWith(runId));
    assert.equal(key.slice(key.lastIndexOf(':') + 1), 'review', 'split on the last colon');
    assert.equal((await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'nope', approved: true })).status, 404);
    const ok = await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved, note: 'looks fine' });
    assert.deepEqual(ok.body, { ok: true });
    assert.equal((await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved })).status, 404, 'no longer pending');
    assert.equal((await h.end(runId)).kind, 'run.completed');
    const log = await h.log(runId);
    assert.equal(of(log, 'gate.resolved', 'review')[0].approved, approved);
    if (approved) {
      assert.equal(of(log, 'state.updated').find((e) => e.key === 'result')?.value, 'shipped looks fine');
      assert.equal(of(log, 'node.skipped', 'undo').length, 1);
    } else {
      assert.equal(of(log, 'state.updated').find((e) => e.key === 'rejected')?.value, 'rolled back: looks fine');
      assert.equal(of(log, 'node.skipped', 'ship').length, 1);
    }
  }
  const bad = await h.t.api('POST', '/api/gates/resolve', { runId: 'x', approved: 'yes' });
  assert.equal(bad.status, 400);
});

test('stop reaches every kind of node: gate, wait, command, http, agent, map children and subworkflows; the run ends run.stopped', async () => {
  assert.equal((await h.t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
  await h.save(wf('child', [{ id: 'start', type: 'trigger.manual' }, { id: 'w', type: 'wait', config: { ms: 600000 } }], [{ from: 'start', to: 'w' }]));
  // `asked`: the model's request count before the run was fired (its request may arrive before the wait starts).
  const kinds: Array<[string, Record<string, unknown>, (runId: string, asked: number) => Promise<unknown>]> = [
    ['gate', { type: 'gate' }, (runId) => h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId)],
    ['wait', { type: 'wait', config: { ms: 600000 } }, (runId) => h.events.waitFor((e) => e.kind === 'node.started' && e.runId === runId && e.nodeId === 'x')],
    ['command', { type: 'command', config: { command: 'sleep 600' } }, (runId) => h.events.waitFor((e) => e.kind === 'node.started' && e.runId === runId && e.nodeId === 'x')],
    ['http', { type: 'http', config: { url: hangUrl, allowPrivate: true } }, async () => { while (!hanging.size) await new Promise((r) => setTimeout(r, 10)); }],
    ['agent', { type: 'agent', config: { system: 'You are a test.', prompt: 'hang please', tools: [] } }, (_runId, asked) => model.waitForRequests(asked + 1)],
    ['map', { type: 'map', config: { items: [1, 2, 3], concurrency: 2, node: { type: 'wait', config: { ms: 600000 } } } }, (runId) => h.events.waitFor((e) => e.kind === 'node.started' && e.runId === runId && e.nodeId === 'x')],
    ['workflow', { type: 'workflow', config: { workflow: 'child' } }, () => h.events.waitFor((e) => e.kind === 'node.started' && e.nodeId === 'w' && e.workflowId === undefined && h.events.events.some((s) => s.kind === 'run.started' && s.runId === e.runId && s.parentRunId))],
  ];
  for (const [kind, node, started] of kinds) {
    if (kind === 'agent') model.script({ text: 'thinking', hang: true });
    const id = `stop-${kind}`;
    // Webhook runs are unattended: the command runs without a prompt under the unattended default.
    await h.save(wf(id, [{ id: 'start', type: 'trigger.webhook' }, { id: 'x', ...node }], [{ from: 'start', to: 'x' }]));
    const asked = model.requests.length;
    const fired = await h.t.api('POST', `/hooks/${id}`, {});
    assert.equal(fired.status, 202, JSON.stringify(fired.body));
    const runId = fired.body.runId;
    await started(runId, asked);
    const stop = await h.t.api('POST', `/api/runs/${runId}/stop`);
    assert.equal(stop.status, 202);
    const end = await h.end(runId);
    assert.equal(end.kind, 'run.stopped', `${kind}: ${JSON.stringify(end)}`);
    const log = await h.log(runId);
    assert.equal(of(log, 'run.failed').length, 0, kind);
    if (kind === 'workflow') {
      const child = h.events.events.find((e) => e.kind === 'run.started' && e.parentRunId === runId);
      assert.ok(child, 'the subworkflow ran as a child run');
      assert.equal((await h.end(child!.runId!)).kind, 'run.stopped', 'the child stopped too');
    }
    if (kind === 'gate') assert.ok(!(await h.t.api('GET', '/api/gates')).body.pending.some((k: string) => k.startsWith(runId)));
  }
  assert.equal(model.hanging(), 0, 'the agent loop let go of the model request');
});

test('gates of an engine that died are orphaned: listed, not resolvable; resuming the run asks again', async () => {
  const home = await tempDir();
  const first = await startWf({ home });
  await first.save(gateFlow('orphan'));
  const runId = await first.run('orphan', { what: 'v3' });
  await first.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  // The home as an engine that died now would leave it: logs flushed, the run still running on disk.
  first.t.engine.runs.flushSync();
  const copy = await tempDir();
  // An atomic write's temp file may vanish mid-copy; a crash would leave it, and the engine ignores it.
  await cp(home, copy, { recursive: true, filter: (src) => !src.endsWith('.tmp') });
  await first.close();
  const second = await startWf({ home: copy });
  try {
    const gates = await second.t.api('GET', '/api/gates');
    assert.deepEqual(gates.body.pending, []);
    assert.deepEqual(gates.body.orphaned, [`${runId}:review`]);
    const refused = await second.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: true });
    assert.equal(refused.status, 404);
    assert.match(refused.body.error, /orphaned/);
    const resumed = await second.t.api('POST', `/api/runs/${runId}/resume`);
    assert.equal(resumed.status, 202, JSON.stringify(resumed.body));
    assert.deepEqual(resumed.body.rerun, ['review']);
    assert.deepEqual(resumed.body.lossy, []);
    assert.ok(resumed.body.restored.includes('work'));
    await second.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
    const again = await second.t.api('GET', '/api/gates');
    assert.deepEqual(again.body.orphaned, []);
    assert.deepEqual(again.body.pending, [`${runId}:review`]);
    await second.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: true, note: 'after restart' });
    assert.equal((await second.end(runId)).kind, 'run.completed');
    const log = await second.log(runId);
    assert.equal(of(log, 'node.completed', 'work').length, 1, 'the completed node was restored, not rerun');
    assert.equal(of(log, 'state.updated').find((e) => e.key === 'result')?.value, 'shipped after restart');
  } finally {
    await second.close();
    await rm(home, { recursive: true, force: true });
    await rm(copy, { recursive: true, force: true });
  }
});
