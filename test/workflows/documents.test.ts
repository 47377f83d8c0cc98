/** Workflow documents over HTTP: save, list, fix lists, warnings, format versions, groups, history, hand edits and nonsense files. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
before(async () => {
  h = await startWf();
});
after(() => h.close());

const file = (id: string) => path.join(h.t.home, 'workflows', `${id}.json`);

test('PUT saves, GET lists, DELETE removes; every save is a version in history', async () => {
  const doc = wf('hello', [{ id: 'start', type: 'trigger.manual' }, { id: 's', type: 'state', config: { key: 'x', value: 1 } }], [{ from: 'start', to: 's' }], { name: 'Hello' });
  await h.save(doc);
  await h.save({ ...doc, name: 'Hello again' });
  const list = await h.t.api('GET', '/api/workflows');
  assert.ok(Array.isArray(list.body));
  const item = list.body.find((w: any) => w.id === 'hello');
  assert.equal(item.name, 'Hello again');
  assert.equal(item.formatVersion, 2);
  const one = await h.t.api('GET', '/api/workflows/hello');
  assert.equal(one.body.nodes.length, 2);
  const versions = await h.t.api('GET', '/api/history/workflow/hello');
  assert.equal(versions.status, 200, JSON.stringify(versions.body));
  assert.equal((versions.body.versions ?? versions.body).length, 2);
  const del = await h.t.api('DELETE', '/api/workflows/hello');
  assert.equal(del.status, 200);
  assert.equal((await h.t.api('GET', '/api/workflows/hello')).status, 404);
  assert.equal((await h.t.api('DELETE', '/api/workflows/hello')).status, 404);
});

test('validation answers a precise fix list and warnings, and saves nothing', async () => {
  const bad = wf(
    'broken',
    [
      { id: 'start', type: 'trigger.manual' },
      { id: 'a', type: 'htp' },
      { id: 'b', type: 'command', config: {} },
      { id: 'c', type: 'state', config: { key: 'k', value: '{{nodez.a.output}}' } },
      { id: 'd', type: 'state', config: { key: 'k', value: 2 } },
      { id: 'loop1', type: 'wait', config: { ms: 1 } },
      { id: 'loop2', type: 'wait', config: { ms: 1 } },
      { id: 'cmd', type: 'command', config: { command: 'echo {{secret:token}}' } },
    ],
    [
      { from: 'start', to: 'ghost' },
      { from: 'start', to: 'c' },
      { from: 'start', to: 'd' },
      { from: 'start', to: 'loop1' },
      { from: 'loop1', to: 'loop2' },
      { from: 'loop2', to: 'loop1' },
      { from: 'c', to: 'd', when: 'approved' },
    ],
  );
  const res = await h.t.api('PUT', '/api/workflows/broken', bad);
  assert.equal(res.status, 400);
  const errors: string[] = res.body.errors;
  const has = (re: RegExp) => assert.ok(errors.some((e) => re.test(e)), `expected a fix matching ${re} in ${JSON.stringify(errors, null, 1)}`);
  has(/node "a": unknown type "htp"; use one of trigger\.manual/);
  has(/node "b": config\.command is missing/);
  has(/edge start -> ghost: there is no node "ghost"/);
  has(/template \{\{nodez\.a\.output\}\} has an unknown root "nodez"/);
  has(/edge c -> d: when "approved" is not a branch of a state node/);
  has(/node "cmd": \{\{secret:token\}\} is only allowed in http headers; secrets never go into prompts, commands/);
  assert.match(res.body.error, /workflow "broken" was not saved; fix: \(1\)/);
  assert.equal((await h.t.api('GET', '/api/workflows/broken')).status, 404, 'nothing was saved');

  // Graph-level checks run once the nodes and edges are sound.
  const graph = wf(
    'graph',
    [
      { id: 'start', type: 'trigger.manual' },
      { id: 'c', type: 'state', config: { key: 'k', value: 1 } },
      { id: 'd', type: 'state', config: { key: 'k', value: 2 } },
      { id: 'loop1', type: 'wait', config: { ms: 1 } },
      { id: 'loop2', type: 'wait', config: { ms: 1 } },
      { id: 'orphan', type: 'notify', config: { title: 'x' } },
      { id: 'orphan2', type: 'notify', config: { title: 'y' } },
    ],
    [
      { from: 'start', to: 'c' },
      { from: 'start', to: 'd' },
      { from: 'start', to: 'loop1' },
      { from: 'loop1', to: 'loop2' },
      { from: 'loop2', to: 'loop1' },
      { from: 'orphan', to: 'orphan2' },
      { from: 'orphan2', to: 'orphan' },
    ],
  );
  const v = await h.t.api('POST', '/api/workflows/validate', graph);
  assert.equal(v.status, 200);
  assert.equal(v.body.ok, false);
  assert.ok(v.body.errors.some((e: string) => /"loop1", "loop2" form a cycle without a way out/.test(e)), JSON.stringify(v.body.errors));
  assert.ok(v.body.errors.some((e: string) => /nodes "c" and "d" both write the replace key "k" on parallel branches/.test(e)), JSON.stringify(v.body.errors));

  const warn = await h.t.api('POST', '/api/workflows/validate', wf('w', [{ id: 'hook', type: 'trigger.webhook' }, { id: 's', type: 'state', config: { key: 'undeclared', value: 1 } }], [{ from: 'hook', to: 's' }], { extra: 1 }));
  assert.equal(warn.body.ok, true, JSON.stringify(warn.body));
  assert.deepEqual(warn.body.summary, { nodes: 2, edges: 1, triggers: ['hook'] });
  assert.ok(warn.body.warnings.some((w: string) => /no secret/.test(w)));
  assert.ok(warn.body.warnings.some((w: string) => /"undeclared" is not declared/.test(w)));
  assert.ok(warn.body.warnings.some((w: string) => /field "extra" is not part of the workflow format/.test(w)));
});

test('formatVersion other than 2 is refused with what to change; the group route still moves such a file', async () => {
  const v1 = { id: 'old', formatVersion: 1, group: null, nodes: [], edges: [] };
  const res = await h.t.api('PUT', '/api/workflows/old', v1);
  assert.equal(res.status, 400);
  assert.match(res.body.error, /formatVersion is 1; this engine reads only format 2/);
  const mismatch = await h.t.api('PUT', '/api/workflows/other', wf('notother', []));
  assert.equal(mismatch.status, 400);
  assert.match(mismatch.body.error, /must equal the id in the URL \("other"\)/);

  await writeFile(file('old'), JSON.stringify(v1));
  await h.t.engine.workflows.store.reloadAll();
  const listed = (await h.t.api('GET', '/api/workflows')).body.find((w: any) => w.id === 'old');
  assert.match(listed.error, /formatVersion is 1/);
  const run = await h.t.api('POST', '/api/runs/old', {});
  assert.equal(run.status, 400);
  assert.match(run.body.error, /workflow "old" is rejected: formatVersion is 1/);
  const moved = await h.t.api('PUT', '/api/workflows/old/group', { group: 'archive' });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  const after = (await h.t.api('GET', '/api/workflows')).body.find((w: any) => w.id === 'old');
  assert.equal(after.group, 'archive');
  assert.ok(after.error, 'still rejected, but moved');
  assert.equal((await h.t.api('PUT', '/api/workflows/ghost/group', { group: 'x' })).status, 404);
});

test('hand-edited nonsense never crashes the engine: each bad file is listed with its error and an outside edit emits workflows.changed', async () => {
  const nonsense: Record<string, string> = {
    'not-json': '{ this is not json',
    'array': '[1,2,3]',
    'null-doc': 'null',
    'nodes-string': JSON.stringify({ id: 'nodes-string', formatVersion: 2, nodes: 'lots', edges: 7 }),
    'node-garbage': JSON.stringify({ id: 'node-garbage', formatVersion: 2, nodes: [null, 5, { id: {}, type: [] }, { id: 'x', type: 'state', config: 'no' }], edges: [{}, null] }),
    'wrong-id': JSON.stringify(wf('something-else', [])),
    'deep': JSON.stringify({ id: 'deep', formatVersion: 2, nodes: [{ id: 'a', type: 'condition', config: { expr: '((((((' } }], edges: [] }),
  };
  const seq = h.events.events.at(-1)?.seq ?? 0;
  for (const [id, text] of Object.entries(nonsense)) await writeFile(file(id), text);
  // The watcher picks the outside edits up on its own.
  const changed = await h.events.waitFor((e) => e.kind === 'workflows.changed' && e.seq > seq && (e.ids as string[]).includes('deep'));
  assert.equal(changed.runId, undefined, 'workflows.changed carries no runId');
  const list = (await h.t.api('GET', '/api/workflows')).body;
  for (const id of Object.keys(nonsense)) {
    const item = list.find((w: any) => w.id === id);
    assert.ok(item?.error, `${id} is listed with an error: ${JSON.stringify(item)}`);
  }
  assert.match(list.find((w: any) => w.id === 'not-json').error, /not valid JSON/);
  assert.match(list.find((w: any) => w.id === 'wrong-id').error, /its id is "something-else"/);
  assert.match(list.find((w: any) => w.id === 'deep').error, /config\.expr/);
  for (const id of Object.keys(nonsense)) {
    const run = await h.t.api('POST', `/api/runs/${id}`, {});
    assert.equal(run.status, 400, `${id}: ${JSON.stringify(run.body)}`);
  }
  assert.equal((await h.t.api('GET', '/api/status')).status, 200, 'the engine is alive');
});

test('restoring a recorded version brings the document back (and announces it)', async () => {
  const doc = wf('versions', [{ id: 'start', type: 'trigger.manual' }], [], { name: 'first' });
  await h.save(doc);
  await h.save({ ...doc, name: 'second' });
  const list = await h.t.api('GET', '/api/history/workflow/versions');
  const versions = list.body.versions ?? list.body;
  const first = versions.find((v: any) => JSON.stringify(v).includes('"version":1') || v.version === 1);
  assert.ok(first, JSON.stringify(list.body));
  const seq = h.events.events.at(-1)?.seq ?? 0;
  const restored = await h.t.api('POST', '/api/history/workflow/versions/1/restore');
  assert.equal(restored.status, 200, JSON.stringify(restored.body));
  assert.equal((await h.t.api('GET', '/api/workflows/versions')).body.name, 'first');
  await h.events.waitFor((e) => e.kind === 'workflows.changed' && e.seq > seq && (e.ids as string[]).includes('versions'));
});
