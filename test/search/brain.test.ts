// needs: better-sqlite3 (the brain's index is SQLite; see scripts/test.mjs --node22)
/**
 * GET /api/brain over real chat turns with the scripted model: runs that read, write, edit and
 * delegate; a file's focus at depth 1 answers exactly the runs that touched it; types, since and
 * the cap; and the graph survives a restart without reading a run log.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let t: TestEngine;
let model: ModelServer;
let events: EventCollector;
let home: string;
const runIds: string[] = [];

async function start(): Promise<void> {
  t = await startTestEngine({ home });
  const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'scripted' });
  assert.equal(put.status, 200);
  events = await collectEvents(t.url);
}

async function turn(sessionId: string, message: string, agent?: string): Promise<EngineEvent> {
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', '/api/chat', { sessionId, message, ...(agent ? { agent } : {}) });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 20_000);
  const end = await events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 30_000);
  assert.equal(end.kind, 'run.completed', String(end.error));
  return end;
}

before(async () => {
  model = await startModelServer();
  home = await tempDir('engine-brain-');
  await start();
  await writeFile(path.join(home, 'workspace', 'notes.txt'), 'old notes\n');
  await t.api('PUT', '/api/agents/helper', { description: 'Helps', system: 'You help.', tools: ['read_file'] });
  await t.api('PUT', '/api/agents/boss', { description: 'Boss', system: 'You delegate.', tools: ['delegate', 'write_file'] });
  model.script({ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }, { name: 'write_file', args: { path: 'a.txt', content: 'A' } }] }, { text: 'wrote a' });
  runIds.push((await turn('s-one', 'Write a.txt from the notes\nwith care')).runId!);
  model.script({ toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'A', new_string: 'AA' } }] }, { text: 'edited a' });
  runIds.push((await turn('s-two', 'Double the A')).runId!);
  model.script({ toolCalls: [{ name: 'delegate', args: { agent: 'helper', task: 'read the notes' } }] }, { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'notes read' }, { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'B' } }] }, { text: 'done' });
  runIds.push((await turn('s-three', 'Have the helper read the notes', 'boss')).runId!);
});
after(async () => {
  events.close();
  await t.close();
  await model.close();
});

const brain = (q = '') => t.api('GET', `/api/brain${q}`);
const runsOf = (body: any) => body.nodes.filter((n: any) => n.type === 'run').map((n: any) => n.id.slice(4)).sort();

test('a file focused at depth 1 answers exactly the runs that touched it, with what each did', async () => {
  const a = await brain('?focus=a.txt&depth=1');
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual(runsOf(a.body), [runIds[0], runIds[1]].sort());
  const byRun = Object.fromEntries(a.body.edges.map((e: any) => [e.runId, e.type]));
  assert.deepEqual(byRun, { [runIds[0]]: 'wrote', [runIds[1]]: 'edited' });
  const first = a.body.nodes.find((n: any) => n.id === `run:${runIds[0]}`);
  assert.equal(first.data.model, 'scripted-model');
  assert.equal(first.data.status, 'completed');
  assert.match(first.label, /^Write a\.txt from the notes/);

  const notes = await brain('?focus=notes.txt');
  assert.deepEqual(runsOf(notes.body), [runIds[0], runIds[2]].sort(), 'the subagent read it inside the third run');
});

test('a run shows its session, agent, model, delegation and files; types and depth bound it', async () => {
  const third = await brain(`?focus=run:${runIds[2]}`);
  const ids = third.body.nodes.map((n: any) => n.id).sort();
  for (const id of ['session:s-three', 'agent:boss', 'agent:helper', 'model:scripted-model', 'file:notes.txt', 'file:b.txt']) assert.ok(ids.includes(id), `${id} in ${ids}`);
  const types = new Set(third.body.edges.map((e: any) => e.type));
  for (const ty of ['started', 'ran-as', 'used', 'delegated-to', 'read', 'wrote']) assert.ok(types.has(ty), `${ty} in ${[...types]}`);
  const filesOnly = await brain(`?focus=run:${runIds[2]}&types=file`);
  assert.deepEqual(filesOnly.body.nodes.map((n: any) => n.type).sort(), ['file', 'file', 'run']);
  const two = await brain('?focus=a.txt&depth=2&types=run,session');
  assert.deepEqual(two.body.nodes.filter((n: any) => n.type === 'session').map((n: any) => n.id).sort(), ['session:s-one', 'session:s-two']);
});

test('since drops older activity; the cap answers truncated; bad parameters get a sentence', async () => {
  const last = (await brain(`?focus=run:${runIds[2]}`)).body.nodes.find((n: any) => n.id === `run:${runIds[2]}`).data.startedAt;
  const recent = await brain(`?since=${last}`);
  assert.ok(!runsOf(recent.body).includes(runIds[0]));
  assert.ok(runsOf(recent.body).includes(runIds[2]));
  const capped = await brain('?limit=3');
  assert.equal(capped.body.nodes.length, 3);
  assert.equal(capped.body.truncated, true);
  const whole = await brain();
  assert.equal(whole.body.truncated, false);
  assert.equal((await brain('?types=planets')).status, 400);
  assert.match((await brain('?types=planets')).body.error, /node types are run, session/);
  assert.equal((await brain('?depth=99')).status, 400);
  assert.equal((await brain('?since=yesterday')).status, 400);
  const unknown = await brain('?focus=never/seen.txt');
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /knows nothing of "never\/seen.txt"/);
});

test('the graph survives a restart', async () => {
  const before = (await brain('?focus=a.txt')).body;
  events.close();
  await t.close();
  await start();
  const after = (await brain('?focus=a.txt')).body;
  assert.deepEqual(runsOf(after), runsOf(before));
  assert.deepEqual(after.edges.map((e: any) => e.type).sort(), before.edges.map((e: any) => e.type).sort());
});
