/** Each node type doing its real work: agent (scripted model, tools, state tools), command (gate, denylist), http (floor, secrets), notify, map, workflow. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { of, startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
let model: ModelServer;
let server: http.Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
before(async () => {
  h = await startWf();
  model = await startModelServer();
  const put = await h.t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.statusCode = req.url === '/missing' ? 404 : 200;
      res.end(JSON.stringify({ echoed: body ? JSON.parse(body) : null, path: req.url }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.close();
  await h.close();
  await model.close();
});

test('agent node: an agent definition by name runs the one agent loop; its own tools outrank the node\'s; state tools reach the run\'s state', async () => {
  await mkdir(path.join(h.t.home, 'agents'), { recursive: true });
  await writeFile(path.join(h.t.home, 'agents', 'counter.md'), '---\ndescription: counts\ntools: [state_get, state_set]\n---\nYou count things.\n');
  await h.save(
    wf(
      'agentic',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'think', type: 'agent', config: { agent: 'counter', prompt: 'Count the files of {{trigger.repo}}.', tools: ['run_shell'] } },
        { id: 'keep', type: 'state', config: { key: 'answer', value: '{{nodes.think.output}}' } },
      ],
      [
        { from: 'start', to: 'think' },
        { from: 'think', to: 'keep' },
      ],
      { state: { seen: { reducer: 'append' } } },
    ),
  );
  model.script(
    { toolCalls: [{ name: 'state_get', args: { key: 'trigger.repo' } }, { name: 'state_set', args: { key: 'seen', value: '"one"' } }] },
    { toolCalls: [{ name: 'run_shell', args: { command: 'ls' } }] },
    { text: 'There are 3 files.' },
  );
  const before = model.requests.length;
  const runId = await h.run('agentic', { repo: 'engine' });
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const req = model.requests[before];
  assert.match(JSON.stringify(req.body.messages), /Count the files of engine\./);
  assert.match(JSON.stringify(req.body.messages), /You count things\./);
  const offered = (req.body.tools ?? []).map((t: any) => t.function?.name).sort();
  assert.deepEqual(offered, ['state_get', 'state_set'], 'the agent\'s own tools: list outranks the node\'s');
  const log = await h.log(runId);
  const results = of(log, 'tool.result');
  assert.equal(results[0].result, '"engine"');
  assert.equal(results[1].ok, true);
  assert.match(String(results[2].result), /not available to this agent/);
  assert.ok(of(log, 'tool.call').every((e) => e.nodeId === 'think'), 'tool events carry the node id');
  assert.deepEqual(of(log, 'state.updated').find((e) => e.key === 'seen')?.value, ['one']);
  assert.equal(of(log, 'state.updated').find((e) => e.key === 'answer')?.value, 'There are 3 files.');
  assert.ok(of(log, 'node.delta', 'think').length > 0, 'the reply streams as node.delta');
  assert.ok(of(log, 'token.usage').length > 0);
  const runs = (await h.t.api('GET', '/api/runs')).body.runs;
  assert.ok(runs.find((r: any) => r.runId === runId).usage.input > 0, 'usage lands on the workflow run');
});

test('state_get in chat is a refusal', async () => {
  model.script({ toolCalls: [{ name: 'state_get', args: {} }] }, { text: 'ok' });
  const seq = h.events.events.at(-1)?.seq ?? 0;
  const res = await h.t.api('POST', '/api/chat', { sessionId: 'wf-chat', message: 'read state' });
  assert.equal(res.status, 202);
  const result = await h.events.waitFor((e) => e.kind === 'tool.result' && e.tool === 'state_get' && e.seq > seq);
  assert.equal(result.ok, false);
  assert.match(String(result.result), /only inside a workflow run/);
  await h.events.waitFor((e) => e.kind === 'run.completed' && e.runId === result.runId);
});

test('command node: attended runs prompt through the permission gate; the hard denylist refuses beneath any rule', async () => {
  await h.save(wf('cmd', [{ id: 'start', type: 'trigger.manual' }, { id: 'c', type: 'command', config: { command: 'echo hello {{trigger.who}}' } }], [{ from: 'start', to: 'c' }]));
  const runId = await h.run('cmd', { who: 'world' });
  const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.runId === runId);
  assert.equal(asked.tool, 'run_shell');
  assert.equal(asked.nodeId, 'c');
  const ok = await h.t.api('POST', '/api/permissions/resolve', { runId, callId: asked.callId, decision: 'allow' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((await h.end(runId)).kind, 'run.completed');
  const done = of(await h.log(runId), 'node.completed', 'c')[0];
  const out = done.output as { exitCode: number; output: string };
  assert.equal(out.exitCode, 0);
  // A login shell may print its own start-up notes first (pyenv cannot rehash in the read-only home).
  assert.match(out.output, /(^|\n)hello world$/);
  assert.equal(of(await h.log(runId), 'shell.exec').length, 1);

  await h.t.engine.permissions.rules.add({ key: 'run_shell(rm:*)', decision: 'allow' });
  await h.save(wf('rmrf', [{ id: 'start', type: 'trigger.manual' }, { id: 'c', type: 'command', config: { command: 'rm -rf /' } }], [{ from: 'start', to: 'c' }]));
  const bad = await h.run('rmrf');
  const end = await h.end(bad);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /node "c" failed: .*(refuse|denied|denylist)/i);
});

test('http node: the URL floor refuses private addresses unless a person allowed them; {{secret:name}} headers never reach the log', async () => {
  await h.t.api('POST', '/api/secrets', { name: 'api-token', value: 'tok-very-secret-123' });
  await h.save(wf('floor', [{ id: 'start', type: 'trigger.manual' }, { id: 'get', type: 'http', config: { url: `${base}/x` } }], [{ from: 'start', to: 'get' }]));
  const refused = await h.run('floor');
  const end = await h.end(refused);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /the engine does not fetch/);
  await h.save(
    wf(
      'post',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'send', type: 'http', config: { method: 'POST', url: `${base}/items`, allowPrivate: true, headers: { authorization: 'Bearer {{secret:api-token}}' }, body: { name: '{{trigger.name}}', n: '{{trigger.n}}' } } },
        { id: 'miss', type: 'http', config: { url: `${base}/missing`, allowPrivate: true } },
        { id: 'caught', type: 'state', config: { key: 'err', value: '{{nodes.miss.output.error}}' } },
      ],
      [
        { from: 'start', to: 'send' },
        { from: 'send', to: 'miss' },
        { from: 'miss', to: 'caught', when: 'error' },
      ],
    ),
  );
  const runId = await h.run('post', { name: 'widget', n: 3 });
  assert.equal((await h.end(runId)).kind, 'run.completed');
  const hit = seen.find((s) => s.url === '/items')!;
  assert.equal(hit.method, 'POST');
  assert.equal(hit.headers.authorization, 'Bearer tok-very-secret-123');
  assert.deepEqual(JSON.parse(hit.body), { name: 'widget', n: 3 });
  const log = await h.log(runId);
  const out = of(log, 'node.completed', 'send')[0].output as any;
  assert.equal(out.status, 200);
  assert.deepEqual(out.body.echoed, { name: 'widget', n: 3 });
  assert.match(String(of(log, 'state.updated').find((e) => e.key === 'err')?.value), /answered 404/);
  assert.ok(!JSON.stringify(log).includes('tok-very-secret-123'), 'the secret is in no event');
});

test('map fans out with bounded concurrency in item order; workflow runs a child run; notify raises a notification', async () => {
  await h.save(wf('double', [{ id: 'start', type: 'trigger.manual' }, { id: 'd', type: 'state', config: { key: 'v', value: '{{trigger.n}}' } }], [{ from: 'start', to: 'd' }]));
  await h.save(
    wf(
      'fan',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'each', type: 'map', config: { items: '{{trigger.items}}', concurrency: 3, node: { type: 'state', config: { key: 'seen', value: '{{item}}-{{index}}' } } } },
        { id: 'subs', type: 'map', config: { items: [{ n: 1 }, { n: 2 }], workflow: 'double', concurrency: 2 } },
        { id: 'one', type: 'workflow', config: { workflow: 'double', payload: { n: '{{state.total}}' } } },
        { id: 'tell', type: 'notify', config: { title: 'fan done: {{nodes.each.output.length}} items', level: 'success' } },
      ],
      [
        { from: 'start', to: 'each' },
        { from: 'each', to: 'subs' },
        { from: 'subs', to: 'one' },
        { from: 'one', to: 'tell' },
      ],
      { state: { seen: { reducer: 'append' }, total: { reducer: 'add', initial: 7 } } },
    ),
  );
  const runId = await h.run('fan', { items: ['a', 'b', 'c', 'd', 'e'] });
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const log = await h.log(runId);
  const each = of(log, 'node.completed', 'each')[0].output as string[][];
  assert.equal(each.length, 5);
  ['a-0', 'b-1', 'c-2', 'd-3', 'e-4'].forEach((v, i) => assert.ok(each[i].includes(v), `item ${i} wrote ${v} (results in item order)`));
  assert.deepEqual([...(of(log, 'state.updated').filter((e) => e.key === 'seen').at(-1)!.value as string[])].sort(), ['a-0', 'b-1', 'c-2', 'd-3', 'e-4']);
  assert.equal(of(log, 'node.delta', 'each').length, 5);
  const subs = of(log, 'node.completed', 'subs')[0].output as any[];
  assert.deepEqual(subs.map((s) => s.state.v), [1, 2]);
  const one = of(log, 'node.completed', 'one')[0].output as any;
  assert.equal(one.state.v, 7);
  const child = (await h.t.api('GET', '/api/runs')).body.runs.find((r: any) => r.runId === one.runId);
  assert.equal(child.parentRunId, runId);
  assert.equal(child.workflowId, 'double');
  const notes = (await h.t.api('GET', '/api/notifications')).body.notifications;
  assert.ok(notes.some((n: any) => n.title === 'fan done: 5 items' && n.runId === runId), JSON.stringify(notes.slice(0, 3)));
});
