/**
 * The five work tools: through the real registry (same core and same teaching errors as the routes,
 * attribution to the agent and its run) and through a chat turn with the scripted model.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';

let h: ChatHarness;
const call = (name: string, args: Record<string, unknown>, ctx: { agent?: string; runId?: string } = {}) =>
  h.t.engine.tools.call({ callId: `c-${Math.random()}`, name, args }, { signal: new AbortController().signal, emit: () => undefined, attended: false, ...ctx });

before(async () => {
  h = await startChat('openai-compatible');
  assert.equal((await h.t.api('PUT', '/api/work/engine', { prefix: 'ENG', labels: ['api'] })).status, 200);
  assert.equal((await h.t.api('PUT', '/api/work/web', { prefix: 'WEB' })).status, 200);
});
after(async () => h?.close());

describe('work tools through the registry', () => {
  it('are registered in the work group', () => {
    const names = h.t.engine.tools.all().filter((t) => t.group === 'work').map((t) => t.name).sort();
    assert.deepEqual(names, ['work_comment', 'work_create', 'work_get', 'work_list', 'work_update']);
  });

  it('create, update, comment and get, each change attributed to the agent and its run id', async () => {
    const c = await call('work_create', { project: 'engine', kind: 'bug', title: 'Crash on save', fields: { severity: 'critical' } }, { agent: 'triager', runId: 'run-1-1' });
    assert.equal(c.isError, false, c.text);
    assert.equal(c.text, 'created ENG-1 (bug) in Backlog');
    const u = await call('work_update', { key: 'ENG-1', status: 'Todo', labels: ['api'] }, { agent: 'triager', runId: 'run-1-2' });
    assert.equal(u.text, 'ENG-1: status Backlog → Todo; labels +api');
    const m = await call('work_comment', { key: 'eng-1', text: 'Seen twice' }, { runId: 'run-1-3' });
    assert.equal(m.text, 'commented on ENG-1');
    const http = await h.t.api('PUT', '/api/work/engine/ENG-1', { priority: 'high' });
    assert.equal(http.status, 200);
    const g = await call('work_get', { key: 'ENG-1' });
    assert.match(g.text, /^engine\/ENG-1\n---\nkind: bug\ntitle: Crash on save\nstatus: Todo\n/);
    const activity = readFileSync(path.join(h.t.engine.fence.root('workspace').path, '.work/engine/items/ENG-1.md'), 'utf8').split('## Activity')[1].trim().split('\n');
    assert.equal(activity.length, 4);
    assert.match(activity[0], /^- \S+Z agent triager \(run run-1-1\): created bug "Crash on save" in Backlog$/);
    assert.match(activity[1], /^- \S+Z agent triager \(run run-1-2\): status Backlog → Todo; labels \+api$/);
    assert.match(activity[2], /^- \S+Z agent assistant \(run run-1-3\): commented: Seen twice$/);
    assert.match(activity[3], /^- \S+Z person: priority none → high$/);
  });

  it('list rows and lane counts; a filter the board lacks is the same teaching error as over HTTP', async () => {
    const l = await call('work_list', { project: 'engine' });
    assert.equal(l.text, 'board engine (ENG): Backlog 0 · Todo 1 · In Progress 0 · Done 0 · Canceled 0\nKEY | title | status | kind | assignee\nENG-1 | Crash on save | Todo | bug | -');
    for (const [args, q] of [
      [{ status: 'Review' }, 'status=Review'],
      [{ kind: 'epic' }, 'kind=epic'],
      [{ label: 'db' }, 'label=db'],
      [{ assignee: 'zed' }, 'assignee=zed'],
    ] as const) {
      const r = await call('work_list', { project: 'engine', ...args });
      assert.equal(r.isError, true);
      const http = await h.t.api('GET', `/api/work?project=engine&${q}`);
      assert.equal(r.text, http.body.error);
      assert.match(r.text, /its (lanes|kinds|labels|assignees) are/);
    }
    const kind = await call('work_create', { project: 'engine', kind: 'epic', title: 'x' });
    assert.equal(kind.text, 'board "engine" has no kind "epic"; its kinds are "task", "bug", "feature"');
    const field = await call('work_update', { key: 'ENG-1', fields: { severity: 'huge' } });
    assert.match(field.text, /field "severity" of a bug must be one of "minor", "major", "critical"/);
  });

  it('parallel creates from tools and HTTP at once still get distinct, gap-free keys', async () => {
    assert.equal((await h.t.api('PUT', '/api/work/mixed', { prefix: 'MX' })).status, 200);
    const viaTool = Array.from({ length: 15 }, (_, i) => call('work_create', { project: 'mixed', kind: 'task', title: `tool ${i}` }, { runId: `run-9-${i}` }).then((r) => /created (MX-\d+)/.exec(r.text)?.[1]));
    const viaHttp = Array.from({ length: 15 }, (_, i) => h.t.api('POST', '/api/work/mixed', { kind: 'task', title: `http ${i}` }).then((r) => r.body.key as string));
    const keys = (await Promise.all([...viaTool, ...viaHttp])).sort((a, b) => Number(a!.slice(3)) - Number(b!.slice(3)));
    assert.deepEqual(keys, Array.from({ length: 30 }, (_, i) => `MX-${i + 1}`));
  });

  it('two boards with one prefix need project', async () => {
    assert.equal((await h.t.api('PUT', '/api/work/engine-copy', { prefix: 'ENG' })).status, 200);
    await call('work_create', { project: 'engine-copy', kind: 'task', title: 'the other one' });
    const amb = await call('work_get', { key: 'ENG-1' });
    assert.equal(amb.isError, true);
    assert.match(amb.text, /boards "engine" and "engine-copy" both use the prefix ENG; give project to say which/);
    const one = await call('work_get', { key: 'ENG-1', project: 'engine-copy' });
    assert.match(one.text, /title: the other one/);
  });
});

describe('work tools in a chat turn', () => {
  it('the scripted model creates and moves an item; the activity names the run; links show the chat', async () => {
    h.model.script(
      { toolCalls: [{ name: 'work_create', args: { project: 'web', kind: 'task', title: 'Ship the landing page' } }] },
      { toolCalls: [{ name: 'work_update', args: { key: 'WEB-1', status: 'In Progress', assignee: 'me' } }] },
      { text: 'Created WEB-1 and started it.' },
    );
    const seq = h.lastSeq();
    const sent = await h.send('work-1', 'file a task for the landing page and start it');
    assert.ok(sent.status < 300, JSON.stringify(sent.body));
    const end = await h.turnEnd('work-1', seq);
    assert.equal(end.kind, 'run.completed', JSON.stringify(end));
    const item = await h.t.api('GET', '/api/work/web/WEB-1');
    assert.equal(item.body.item.status, 'In Progress');
    assert.equal(item.body.item.assignee, 'me');
    assert.equal(item.body.item.activity.length, 2);
    for (const line of item.body.item.activity) assert.ok(line.includes(`(run ${end.runId})`), line);
    const updated = h.events.events.filter((e) => e.kind === 'work.updated' && e.key === 'WEB-1');
    assert.equal(updated.length, 2);
    assert.ok(updated.every((e) => e.runId === end.runId));
    const links = await h.t.api('GET', '/api/work/web/WEB-1/links');
    assert.deepEqual(links.body.chats, [{ sessionId: 'work-1' }]);
  });
});
