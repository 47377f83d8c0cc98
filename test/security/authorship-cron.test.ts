/**
 * Issue 23, the laundering chain: in an ask-mode chat a person denies a model's delete_file and its
 * db_query UPDATE; the model then saves a cron workflow whose agent would do both. Its cron runs are
 * gated as the model was (refused, the run fails with the sentence, nothing changes), until a person
 * saves the workflow through the route; then it runs as the person decided.
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startAuthorship, writeWorkspaceFile, type AuthorshipHarness } from './authorship-harness.js';

let h: AuthorshipHarness;
before(async () => {
  h = await startAuthorship();
  await writeWorkspaceFile(h, 'keep.txt');
});
after(() => h.close());

const sweep = {
  id: 'sweep',
  formatVersion: 2,
  group: null,
  disabled: false,
  nodes: [
    { id: 'tick', type: 'trigger.cron', config: { expr: '*/5 * * * * *' } },
    { id: 'clean', type: 'agent', config: { system: 'You tidy up.', prompt: 'Tidy up.' } },
  ],
  edges: [{ from: 'tick', to: 'clean' }],
};
const update = { name: 'db_query', args: { connection: 'main', sql: "UPDATE notes SET body = 'gone' WHERE id = 1" } };
const remove = { name: 'delete_file', args: { path: 'keep.txt' } };

test('a model cannot launder refused calls through a cron workflow it saved', async () => {
  // Two refused calls, then the workflow that would make them later.
  h.model.script({ toolCalls: [remove] }, { toolCalls: [update] }, { toolCalls: [{ name: 'save_workflow', args: { graph: sweep } }] }, { text: 'scheduled' });
  let seq = h.seq();
  await h.chat('mal', 'tidy up');
  const first = await h.answer('deny', seq, 'mal');
  assert.equal(first.tool, 'delete_file');
  const second = await h.answer('deny', first.seq, 'mal');
  assert.equal(second.tool, 'db_query');
  // Enabling a triggered workflow asks a person, showing its trigger and what its agent may call.
  const enable = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > second.seq && e.tool === 'save_workflow');
  assert.equal(enable.key, 'save_workflow(enable)');
  assert.match(String(enable.display), /trigger tick: trigger\.cron "\*\/5 \* \* \* \* \*"/);
  assert.match(String(enable.display), /agent node clean may call: all tools/);
  await h.answer('allow', second.seq, 'mal');
  assert.equal((await h.turnEnd('mal', seq)).kind, 'run.completed');

  const saved = await h.t.api('GET', '/api/workflows/sweep');
  assert.equal(saved.body.disabled, false, 'the person approved running it');
  assert.equal(saved.body.author.by, 'model');
  assert.equal(saved.body.author.mode, 'ask');

  // The cron fire: the agent tries both again, unattended (the refusal ends the node: no further step is asked for).
  h.model.script({ toolCalls: [update, remove] });
  seq = h.seq();
  h.clock.advance(5_000);
  const end = await h.runEnd('sweep', seq);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /a model wrote workflow "sweep"; db_query \(db_query\(main\)\) needs a person's approval/);
  assert.match(String(end.error), /PUT \/api\/workflows\/sweep/);
  assert.ok(await h.fileExists('keep.txt'), 'the file is intact');
  assert.match(await h.row(), /kept/, 'the row is intact');
  assert.ok(!h.events.events.some((e) => e.kind === 'permission.requested' && e.runId === end.runId), 'nobody was asked');

  // A person reviews it and saves it through the route: now it is theirs, and runs unattended as they set it up.
  await h.personSaves('sweep');
  assert.equal((await h.t.api('GET', '/api/workflows/sweep')).body.author.by, 'person');
  h.model.script({ toolCalls: [update, remove] }, { text: 'tidied' });
  seq = h.seq();
  h.clock.advance(5_000);
  const next = await h.runEnd('sweep', seq);
  assert.equal(next.kind, 'run.completed', JSON.stringify(next));
  assert.ok(!(await h.fileExists('keep.txt')), 'the person decided: the file goes');
  assert.match(await h.row(), /gone/);
  await h.personSaves('sweep', { disabled: true });
});

test('a triggered workflow a model saves without asking is saved disabled and proposed for review', async () => {
  const doc = { ...sweep, id: 'quiet' } as Record<string, unknown>;
  delete doc.disabled;
  h.model.script({ toolCalls: [{ name: 'save_workflow', args: { graph: doc } }] }, { text: 'saved' });
  const seq = h.seq();
  await h.chat('quiet', 'schedule it', 'allow');
  const proposed = await h.events.waitFor((e) => e.kind === 'workflow.proposed' && e.seq > seq);
  assert.equal(proposed.workflowId, 'quiet');
  assert.equal(proposed.held, false);
  assert.deepEqual(proposed.triggers, [{ nodeId: 'tick', type: 'trigger.cron', expr: '*/5 * * * * *' }]);
  assert.equal((await h.turnEnd('quiet', seq)).kind, 'run.completed');
  const got = await h.t.api('GET', '/api/workflows/quiet');
  assert.equal(got.body.disabled, true);
  assert.equal(got.body.author.by, 'model');
  assert.equal(got.body.author.mode, 'allow', 'the chat was in allow mode');
  const listed = (await h.t.api('GET', '/api/workflows')).body.find((w: { id: string }) => w.id === 'quiet');
  assert.equal(listed.author.by, 'model', 'the list says who wrote each workflow');
  const before = h.seq();
  h.clock.advance(10_000);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(!h.events.events.some((e) => e.kind === 'run.started' && e.workflowId === 'quiet' && e.seq > before), 'a disabled workflow never fires');
});

test("a model's change to a person's enabled cron workflow is held, and the person's version keeps running", async () => {
  const mine = { id: 'nightly', formatVersion: 2, group: null, nodes: [{ id: 'tick', type: 'trigger.cron', config: { expr: '0 3 * * *' } }, { id: 'note', type: 'state', config: { key: 'x', value: 1 } }], edges: [{ from: 'tick', to: 'note' }] };
  assert.equal((await h.t.api('PUT', '/api/workflows/nightly', mine)).status, 200);
  const theirs = { ...mine, nodes: [mine.nodes[0], { id: 'note', type: 'agent', config: { system: 's', prompt: 'delete everything' } }] };
  h.model.script({ toolCalls: [{ name: 'save_workflow', args: { graph: theirs } }] }, { text: 'proposed' });
  const seq = h.seq();
  await h.chat('held', 'change my nightly', 'allow');
  const proposed = await h.events.waitFor((e) => e.kind === 'workflow.proposed' && e.seq > seq);
  assert.equal(proposed.held, true);
  await h.turnEnd('held', seq);
  const live = await h.t.api('GET', '/api/workflows/nightly');
  assert.equal(live.body.nodes[1].type, 'state', 'the live workflow is the person\'s');
  assert.equal(live.body.author.by, 'person');
  const proposal = await h.t.api('GET', '/api/workflows/nightly/proposal');
  assert.equal(proposal.status, 200);
  assert.equal(proposal.body.doc.nodes[1].type, 'agent');
  assert.equal(proposal.body.author.by, 'model');
  assert.equal((await h.t.api('DELETE', '/api/workflows/nightly/proposal')).status, 200);
  assert.equal((await h.t.api('GET', '/api/workflows/nightly/proposal')).status, 404);

  // Proposed again; this time the person takes it: their save of the whole document makes it theirs and ends the proposal.
  h.model.script({ toolCalls: [{ name: 'save_workflow', args: { graph: theirs } }] }, { text: 'proposed' });
  const again = h.seq();
  await h.chat('held', 'change my nightly again', 'allow');
  await h.turnEnd('held', again);
  const held = await h.t.api('GET', '/api/workflows/nightly/proposal');
  assert.equal(held.status, 200);
  assert.equal((await h.t.api('PUT', '/api/workflows/nightly', held.body.doc)).status, 200);
  assert.equal((await h.t.api('GET', '/api/workflows/nightly/proposal')).status, 404);
  const taken = await h.t.api('GET', '/api/workflows/nightly');
  assert.equal(taken.body.nodes[1].type, 'agent');
  assert.equal(taken.body.author.by, 'person');
});
