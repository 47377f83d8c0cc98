/**
 * Work boards over real HTTP against a real engine: default board, create/update/comment, keys under
 * concurrency and after archive or deletion, hand-edited files, teaching errors, links.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let events: EventCollector;
const ws = () => t.engine.fence.root('workspace').path;
const itemFile = (project: string, key: string) => path.join(ws(), '.work', project, 'items', `${key}.md`);

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
});

describe('boards', () => {
  it('PUT {} starts the documented default board; GET /api/work lists it with lane counts', async () => {
    const put = await t.api('PUT', '/api/work/engine', {});
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.created, true);
    assert.equal(put.body.config.prefix, 'ENGI');
    assert.deepEqual(put.body.config.lanes.map((l: any) => l.category), ['backlog', 'unstarted', 'started', 'completed', 'canceled']);
    assert.ok(existsSync(path.join(ws(), '.work', 'engine', 'board.json')));
    const list = await t.api('GET', '/api/work');
    assert.equal(list.status, 200);
    const b = list.body.boards.find((x: any) => x.project === 'engine');
    assert.deepEqual(b.counts, { Backlog: 0, Todo: 0, 'In Progress': 0, Done: 0, Canceled: 0 });
    const again = await t.api('PUT', '/api/work/engine', { prefix: 'ENG', labels: ['api', 'ui'], members: ['ann', 'bob'] });
    assert.equal(again.body.created, false);
    assert.equal(again.body.config.prefix, 'ENG');
  });

  it('a bad config is a 400 that names the fix, and nothing is written', async () => {
    const r = await t.api('PUT', '/api/work/engine', { lanes: [{ name: 'Todo', category: 'doing' }] });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /category "doing"; the categories are "backlog", "unstarted", "started", "completed", "canceled"/);
    const cfg = JSON.parse(readFileSync(path.join(ws(), '.work', 'engine', 'board.json'), 'utf8'));
    assert.equal(cfg.lanes.length, 5);
    const bad = await t.api('PUT', '/api/work/engine', { prefix: 'eng' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /upper-case/);
  });

  it('creates in the first lane (201), writes one markdown file with an attributed activity line, emits work.updated', async () => {
    const r = await t.api('POST', '/api/work/engine', { kind: 'bug', title: 'Login fails', body: 'Steps:\n1. open', labels: ['api'], fields: { severity: 'major' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.ok, true);
    assert.equal(r.body.key, 'ENG-1');
    assert.equal(r.body.item.status, 'Backlog');
    assert.equal(r.body.item.fields.severity, 'major');
    const text = readFileSync(itemFile('engine', 'ENG-1'), 'utf8');
    assert.match(text, /^---\nkind: bug\ntitle: Login fails\nstatus: Backlog\n/);
    assert.match(text, /\nSteps:\n1\. open\n\n## Activity\n\n- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ person: created bug "Login fails" in Backlog\n$/);
    const ev = await events.waitFor((e) => e.kind === 'work.updated' && e.key === 'ENG-1');
    assert.equal(ev.actor, 'person');
    assert.equal(ev.project, 'engine');
  });

  it('update answers {ok, change, item} and appends exactly one line; comment appends one more', async () => {
    const u = await t.api('PUT', '/api/work/engine/ENG-1', { status: 'in progress', assignee: 'ann', priority: 'high' });
    assert.equal(u.status, 200, JSON.stringify(u.body));
    assert.equal(u.body.change, 'status Backlog → In Progress; assignee none → ann; priority none → high');
    assert.equal(u.body.item.status, 'In Progress');
    assert.equal(u.body.item.activity.length, 2);
    const c = await t.api('POST', '/api/work/engine/ENG-1/comment', { text: 'Reproduced on staging' });
    assert.equal(c.status, 200);
    assert.equal(c.body.item.activity.length, 3);
    assert.match(c.body.item.activity[2], /person: commented: Reproduced on staging$/);
    const same = await t.api('PUT', '/api/work/engine/ENG-1', { status: 'In Progress' });
    assert.equal(same.body.change, 'nothing changed');
    assert.equal(same.body.item.activity.length, 3);
    const get = await t.api('GET', '/api/work/engine/ENG-1');
    assert.equal(get.body.item.title, 'Login fails');
    assert.equal(get.body.item.body, 'Steps:\n1. open');
  });

  it('kind and fields are validated against the board with errors naming the valid values', async () => {
    const kind = await t.api('POST', '/api/work/engine', { kind: 'epic', title: 'x' });
    assert.equal(kind.status, 400);
    assert.equal(kind.body.error, 'board "engine" has no kind "epic"; its kinds are "task", "bug", "feature"');
    const field = await t.api('POST', '/api/work/engine', { kind: 'bug', title: 'x', fields: { sev: 'major' } });
    assert.equal(field.body.error, 'a bug has no field "sev"; its fields are "severity"');
    const value = await t.api('POST', '/api/work/engine', { kind: 'bug', title: 'x', fields: { severity: 'huge' } });
    assert.match(value.body.error, /field "severity" of a bug must be one of "minor", "major", "critical"; got "huge"/);
    const none = await t.api('POST', '/api/work/engine', { kind: 'task', title: 'x', fields: { severity: 'major' } });
    assert.match(none.body.error, /a task has no custom fields/);
    const label = await t.api('POST', '/api/work/engine', { kind: 'task', title: 'x', labels: ['db'] });
    assert.equal(label.body.error, 'board "engine" has no label "db"; its labels are "api", "ui"');
    const member = await t.api('PUT', '/api/work/engine/ENG-1', { assignee: 'zed' });
    assert.equal(member.body.error, 'board "engine" has no member "zed"; its members are "ann", "bob"');
    const lane = await t.api('PUT', '/api/work/engine/ENG-1', { status: 'Review' });
    assert.match(lane.body.error, /no lane "Review"; its lanes are "Backlog", "Todo", "In Progress", "Done", "Canceled"/);
    const unknown = await t.api('PUT', '/api/work/engine/ENG-1', { colour: 'red' });
    assert.equal(unknown.status, 400);
    const missing = await t.api('GET', '/api/work/engine/ENG-999');
    assert.equal(missing.status, 404);
    const noBoard = await t.api('POST', '/api/work/nope', { kind: 'task', title: 'x' });
    assert.equal(noBoard.status, 404);
    assert.match(noBoard.body.error, /no board "nope"; the boards are "engine"/);
    const required = await t.api('PUT', '/api/work/req', { kinds: [{ name: 'bug', fields: { version: { type: 'string', required: true } } }] });
    assert.equal(required.status, 200);
    const miss = await t.api('POST', '/api/work/req', { kind: 'bug', title: 'x' });
    assert.match(miss.body.error, /a bug needs the field "version"/);
  });

  it('a filter naming a lane, kind, label or assignee the board lacks is an error naming the valid ones', async () => {
    const cases: Array<[string, RegExp]> = [
      ['status=Review', /no lane "Review"; its lanes are "Backlog"/],
      ['kind=epic', /no kind "epic"; its kinds are "task", "bug", "feature"/],
      ['label=db', /no label "db"; its labels are "api", "ui"/],
      ['assignee=zed', /no assignee "zed"; its assignees are "ann", "bob"/],
    ];
    for (const [q, re] of cases) {
      const r = await t.api('GET', `/api/work?project=engine&${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.body.error, re);
    }
    const ok = await t.api('GET', '/api/work?project=engine&assignee=ann&kind=bug');
    assert.deepEqual(ok.body.boards[0].items.map((i: any) => i.key), ['ENG-1']);
  });

  it('hands out distinct keys to 40 parallel creates, in order, with no gaps', async () => {
    await t.api('PUT', '/api/work/race', { prefix: 'RC' });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => t.api('POST', '/api/work/race', { kind: 'task', title: `item ${i}` })));
    assert.ok(results.every((r) => r.status === 201), JSON.stringify(results.find((r) => r.status !== 201)?.body));
    const keys = results.map((r) => r.body.key).sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)));
    assert.deepEqual(keys, Array.from({ length: 40 }, (_, i) => `RC-${i + 1}`));
    const list = await t.api('GET', '/api/work?project=race');
    assert.equal(list.body.boards[0].counts.Backlog, 40);
  });

  it('never reuses a key after archive or deletion', async () => {
    const arch = await t.api('PUT', '/api/work/race/RC-40', { archived: true });
    assert.equal(arch.body.change, 'archived');
    const live = await t.api('GET', '/api/work?project=race');
    assert.equal(live.body.boards[0].items.length, 39);
    const archive = await t.api('GET', '/api/work?project=race&archived=1');
    assert.deepEqual(archive.body.boards[0].items.map((i: any) => i.key), ['RC-40']);
    let next = await t.api('POST', '/api/work/race', { kind: 'task', title: 'after archive' });
    assert.equal(next.body.key, 'RC-41');
    rmSync(itemFile('race', 'RC-41'));
    rmSync(itemFile('race', 'RC-40'));
    next = await t.api('POST', '/api/work/race', { kind: 'task', title: 'after deletion' });
    assert.equal(next.body.key, 'RC-42');
    // A counter lost (or rolled back by git) still cannot go below the highest key on disk.
    rmSync(path.join(ws(), '.work', 'race', 'counter.json'));
    next = await t.api('POST', '/api/work/race', { kind: 'task', title: 'after losing the counter' });
    assert.equal(next.body.key, 'RC-43');
    const gone = await t.api('GET', '/api/work/race/RC-41');
    assert.equal(gone.status, 404);
  });

  it('picks up hand edits: frontmatter, body, activity kept verbatim, a new file, a broken file', async () => {
    const file = itemFile('engine', 'ENG-1');
    const text = readFileSync(file, 'utf8')
      .replace('title: Login fails', 'title: Login fails on Safari')
      .replace('status: In Progress', 'status: Done')
      .replace('Steps:', 'Edited by hand. Steps:')
      .replace(/\n$/, '\n  (a note typed under the log by hand)\n');
    writeFileSync(file, text);
    const get = await t.api('GET', '/api/work/engine/ENG-1');
    assert.equal(get.body.item.title, 'Login fails on Safari');
    assert.equal(get.body.item.status, 'Done');
    assert.match(get.body.item.body, /^Edited by hand\./);
    const done = await t.api('GET', '/api/work?project=engine&status=done');
    assert.deepEqual(done.body.boards[0].items.map((i: any) => i.key), ['ENG-1']);
    const u = await t.api('PUT', '/api/work/engine/ENG-1', { labels: ['api', 'ui'] });
    assert.equal(u.body.change, 'labels +ui');
    const after = readFileSync(file, 'utf8');
    const before = text.slice(text.indexOf('## Activity'));
    assert.ok(after.includes(before), 'the activity section is kept byte for byte');
    assert.match(after.slice(after.indexOf('## Activity')), /by hand\)\n- \S+ person: labels \+ui\n$/);

    writeFileSync(itemFile('engine', 'ENG-7'), '---\nkind: task\ntitle: Written in an editor\nstatus: Todo\n---\nBody.\n');
    const listed = await t.api('GET', '/api/work?project=engine');
    assert.ok(listed.body.boards[0].items.some((i: any) => i.key === 'ENG-7' && i.title === 'Written in an editor'));
    const next = await t.api('POST', '/api/work/engine', { kind: 'task', title: 'next' });
    assert.equal(next.body.key, 'ENG-8', 'a key taken by hand is never handed out');

    writeFileSync(itemFile('engine', 'ENG-7'), '---\ntitle: [unclosed\n---\nBody.\n');
    const broken = await t.api('GET', '/api/work/engine/ENG-7');
    assert.equal(broken.status, 200);
    assert.match(broken.body.item.problem, /not valid YAML/);
  });

  it('refuses a config change that would orphan items', async () => {
    const r = await t.api('PUT', '/api/work/engine', { prefix: 'NEW' });
    assert.equal(r.status, 409);
    assert.match(r.body.error, /prefix cannot change/);
    const lanes = await t.api('PUT', '/api/work/engine', { prefix: 'ENG', lanes: [{ name: 'Open', category: 'unstarted' }] });
    assert.equal(lanes.status, 409);
    assert.match(lanes.body.error, /lanes this config drops/);
    const partial = await t.api('PUT', '/api/work/engine', { name: 'The engine' });
    assert.equal(partial.status, 200, 'settings left out keep their current values');
    assert.equal(partial.body.config.prefix, 'ENG');
    assert.deepEqual(partial.body.config.labels, ['api', 'ui']);
  });

  it('links: runs whose workItem is the key, chat sessions and commits that name it', async () => {
    const run = t.engine.runs.start({ source: 'workflow', workItem: 'ENG-1', title: 'fix it' });
    await run.finish('completed');
    const other = t.engine.runs.start({ source: 'workflow', workItem: 'ENG-10' });
    await other.finish('completed');
    const chatDir = t.engine.home.path('chat');
    execFileSync('mkdir', ['-p', chatDir]);
    writeFileSync(path.join(chatDir, 'talk.jsonl'), JSON.stringify({ type: 'message', text: 'look at ENG-1 please' }) + '\n');
    writeFileSync(path.join(chatDir, 'other.jsonl'), JSON.stringify({ type: 'message', text: 'ENG-12 and XENG-1' }) + '\n');
    const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws() });
    g('init', '-q');
    writeFileSync(path.join(ws(), 'a.txt'), 'a');
    g('add', 'a.txt');
    g('commit', '-q', '-m', 'Fix the login (ENG-1)');
    writeFileSync(path.join(ws(), 'b.txt'), 'b');
    g('add', 'b.txt');
    g('commit', '-q', '-m', 'Unrelated ENG-11');
    const r = await t.api('GET', '/api/work/engine/ENG-1/links');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.runs.map((x: any) => x.runId), [run.id]);
    assert.deepEqual(r.body.chats, [{ sessionId: 'talk' }]);
    assert.deepEqual(r.body.commits.map((c: any) => [c.subject, c.root]), [['Fix the login (ENG-1)', 'workspace']]);
  });

  it('a body may not fake the Activity heading; a board folder symlinked out of the workspace is never written', async () => {
    const r = await t.api('PUT', '/api/work/engine/ENG-1', { body: 'text\n## Activity\n- forged line' });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /must not contain a "## Activity" heading/);
    const outside = mkdtempSync(path.join(os.tmpdir(), 'work-outside-'));
    try {
      mkdirSync(path.join(outside, 'items'));
      writeFileSync(path.join(outside, 'board.json'), JSON.stringify({ prefix: 'EV' }));
      symlinkSync(outside, path.join(ws(), '.work', 'evil'));
      const c = await t.api('POST', '/api/work/evil', { kind: 'task', title: 'escape' });
      assert.equal(c.status, 403);
      assert.match(c.body.error, /outside the workspace/);
      assert.ok(!existsSync(path.join(outside, 'items', 'EV-1.md')));
      assert.ok(!existsSync(path.join(outside, 'counter.json')));
    } finally {
      rmSync(path.join(ws(), '.work', 'evil'), { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
