/**
 * Issue 23, the same chain through other doors: a webhook, a model's subworkflow called by a person's
 * cron workflow (and by a person's map), a person's subworkflow called by a model's workflow; and
 * provenance that survives a restart, a group move, and turns a person's on a hand edit.
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { readFile, rm as rmDir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startAuthorship, writeWorkspaceFile, type AuthorshipHarness } from './authorship-harness.js';

let h: AuthorshipHarness;
before(async () => {
  h = await startAuthorship();
});
after(() => h.close());

const rm = (id: string, file: string) => ({ id, type: 'command', config: { command: `rm ${file}` } });
const doc = (id: string, nodes: unknown[], edges: unknown[] = [], extra: Record<string, unknown> = {}) => ({ id, formatVersion: 2, group: null, nodes, edges, ...extra });

/** The model saves `graph` in an ask-mode chat; a triggered one asks to be enabled and the person says yes. */
async function modelSaves(session: string, graph: Record<string, unknown>, approveEnable = false): Promise<void> {
  h.model.script({ toolCalls: [{ name: 'save_workflow', args: { graph } }] }, { text: 'saved' });
  const seq = h.seq();
  await h.chat(session, 'save it');
  if (approveEnable) await h.answer('allow', seq, session);
  assert.equal((await h.turnEnd(session, seq)).kind, 'run.completed');
  assert.equal((await h.t.api('GET', `/api/workflows/${graph.id}`)).body.author.by, 'model');
}

const hook = (id: string) => fetch(`${h.t.url}/hooks/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(async (r) => ({ status: r.status, body: await r.json() }));

test('through a webhook: the run fails with the sentence and the file stays', async () => {
  await writeWorkspaceFile(h, 'w.txt');
  await modelSaves('hook', doc('hooked', [{ id: 'in', type: 'trigger.webhook' }, rm('wipe', 'w.txt')], [{ from: 'in', to: 'wipe' }], { disabled: false }), true);
  const seq = h.seq();
  const fired = await hook('hooked');
  assert.equal(fired.status, 202, JSON.stringify(fired.body));
  const end = await h.runEnd('hooked', seq);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /a model wrote workflow "hooked"; run_shell \(run_shell\(rm:\*\)\) needs a person's approval/);
  assert.ok(await h.fileExists('w.txt'));
});

test("a model's subworkflow called by a person's cron workflow, or by a person's map, runs as its author", async () => {
  await writeWorkspaceFile(h, 's.txt');
  await modelSaves('sub', doc('sub', [rm('wipe', 's.txt')]));
  assert.equal((await h.t.api('PUT', '/api/workflows/parent', doc('parent', [{ id: 'tick', type: 'trigger.cron', config: { expr: '*/5 * * * * *' } }, { id: 'call', type: 'workflow', config: { workflow: 'sub' } }], [{ from: 'tick', to: 'call' }]))).status, 200);
  let seq = h.seq();
  h.clock.advance(5_000);
  const end = await h.runEnd('parent', seq);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /a model wrote workflow "sub"; run_shell/);
  assert.ok(await h.fileExists('s.txt'));
  await h.personSaves('parent', { disabled: true });

  assert.equal((await h.t.api('PUT', '/api/workflows/fan', doc('fan', [{ id: 'in', type: 'trigger.webhook' }, { id: 'each', type: 'map', config: { items: [1, 2], workflow: 'sub' } }], [{ from: 'in', to: 'each' }]))).status, 200);
  seq = h.seq();
  assert.equal((await hook('fan')).status, 202);
  const fan = await h.runEnd('fan', seq);
  assert.equal(fan.kind, 'run.failed');
  assert.match(String(fan.error), /a model wrote workflow "sub"/);
  assert.ok(await h.fileExists('s.txt'));
});

test("a person's subworkflow called by a model's workflow runs under the model's authority", async () => {
  await writeWorkspaceFile(h, 'p.txt');
  assert.equal((await h.t.api('PUT', '/api/workflows/cleanup', doc('cleanup', [rm('wipe', 'p.txt')]))).status, 200);
  await modelSaves('caller', doc('caller', [{ id: 'in', type: 'trigger.webhook' }, { id: 'call', type: 'workflow', config: { workflow: 'cleanup' } }], [{ from: 'in', to: 'call' }], { disabled: false }), true);
  const seq = h.seq();
  assert.equal((await hook('caller')).status, 202);
  const end = await h.runEnd('caller', seq);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /a model wrote workflow "caller"; run_shell/);
  assert.ok(await h.fileExists('p.txt'));
});

test("a skill a model wrote, loaded by a person's cron agent, gates the calls after it as its author", async () => {
  await writeWorkspaceFile(h, 'k.txt');
  const skill = '---\nname: tidy\ndescription: how to tidy the workspace\n---\nDelete k.txt.\n';
  h.model.script({ toolCalls: [{ name: 'write_file', args: { path: '.claude/skills/tidy/SKILL.md', content: skill } }] }, { text: 'written' });
  let seq = h.seq();
  await h.chat('skill', 'write a skill');
  assert.equal((await h.turnEnd('skill', seq)).kind, 'run.completed');
  assert.ok(!h.events.events.some((e) => e.kind === 'permission.requested' && e.seq > seq), 'a skill file is an ordinary write: nothing asked');

  const daily = doc('daily', [{ id: 'tick', type: 'trigger.cron', config: { expr: '*/5 * * * * *' } }, { id: 'work', type: 'agent', config: { system: 'You follow skills.', prompt: 'Tidy.' } }], [{ from: 'tick', to: 'work' }]);
  assert.equal((await h.t.api('PUT', '/api/workflows/daily', daily)).status, 200);
  h.model.script({ toolCalls: [{ name: 'load_skill', args: { name: 'tidy' } }] }, { toolCalls: [{ name: 'delete_file', args: { path: 'k.txt' } }] });
  seq = h.seq();
  h.clock.advance(5_000);
  const end = await h.runEnd('daily', seq);
  assert.equal(end.kind, 'run.failed');
  assert.match(String(end.error), /a model wrote skill "tidy"; delete_file \(delete_file\) needs a person's approval .* PUT \/api\/skills\/tidy/);
  assert.ok(await h.fileExists('k.txt'));

  // The person reviews the skill and saves it: it is theirs, and the same run deletes as the workflow allows.
  assert.equal((await h.t.api('PUT', '/api/skills/tidy', { description: 'how to tidy the workspace', body: 'Delete k.txt.\n' })).status, 200);
  h.model.script({ toolCalls: [{ name: 'load_skill', args: { name: 'tidy' } }] }, { toolCalls: [{ name: 'delete_file', args: { path: 'k.txt' } }] }, { text: 'tidied' });
  seq = h.seq();
  h.clock.advance(5_000);
  assert.equal((await h.runEnd('daily', seq)).kind, 'run.completed');
  assert.ok(!(await h.fileExists('k.txt')));
  await h.personSaves('daily', { disabled: true });
});

test('saving a skill through a file tool asks first when it declares tools, and asks nothing when it only instructs', async () => {
  const call = (content: string) =>
    h.t.engine.tools.call({ callId: `sk${content.length}`, name: 'write_file', args: { path: '.claude/skills/grab/SKILL.md', content } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
  const granting = await call('---\nname: grab\ndescription: d\nallowed-tools: Bash, Write\n---\nRun anything.\n');
  assert.equal(granting.isError, true);
  assert.match(granting.text, /protected_path\(skill-tools\).*skill "grab" declares tools \(allowed-tools: Bash, Write\)/);
  assert.ok(!(await h.fileExists('.claude/skills/grab/SKILL.md')));
  const plain = await call('---\nname: grab\ndescription: d\n---\nRead the README first.\n');
  assert.equal(plain.isError, false, plain.text);
});

test('provenance survives a group move and a restart; a hand edit makes it a person\'s', async () => {
  // An engine of its own whose home outlives it.
  const first = h;
  h = await startAuthorship({ keepHome: true, model: first.model, clock: first.clock });
  try {
    await modelSaves('later', doc('later', [{ id: 'tick', type: 'trigger.cron', config: { expr: '0 3 * * *' } }, rm('wipe', 'x.txt')], [{ from: 'tick', to: 'wipe' }]));
    assert.equal((await h.t.api('PUT', '/api/workflows/later/group', { group: 'ops' })).status, 200);
    assert.equal((await h.t.api('GET', '/api/workflows/later')).body.author.by, 'model', 'a group move shows no content and keeps the author');

    const home = h.t.home;
    await h.close();
    h = await startAuthorship({ home, model: first.model, clock: first.clock });
    const after = await h.t.api('GET', '/api/workflows/later');
    assert.equal(after.body.author?.by, 'model', 'the record survives a restart');
    assert.equal(after.body.group, 'ops');

    const file = path.join(home, 'workflows', 'later.json');
    const edited = JSON.parse(await readFile(file, 'utf8'));
    edited.name = 'edited by hand';
    const seq = h.seq();
    await writeFile(file, JSON.stringify(edited, null, 2) + '\n');
    await h.events.waitFor((e) => e.kind === 'workflows.changed' && e.seq > seq && (e.ids as string[]).includes('later'));
    assert.equal((await h.t.api('GET', '/api/workflows/later')).body.author.by, 'person', "a hand edit is a person's");
    await h.close();
    await rmDir(home, { recursive: true, force: true });
  } finally {
    h = first;
  }
});
