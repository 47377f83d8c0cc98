import assert from 'node:assert/strict';
import { lstat, mkdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let userHome: string;
before(async () => {
  userHome = await tempDir('engine-userhome-');
  t = await startTestEngine({ skillsUserHome: userHome });
});
after(async () => {
  await t.close();
  await rm(userHome, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>, agent?: string) =>
  t.engine.tools.call({ callId: `c-${Math.random()}`, name, args }, { signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: false, agent });

test('skills: a folder dropped in by hand (Claude Code layout), the user tier read-only, CRUD on the workspace tier', async () => {
  const wsSkill = path.join(t.home, 'workspace', '.claude', 'skills', 'pdf-forms');
  await mkdir(wsSkill, { recursive: true });
  await writeFile(path.join(wsSkill, 'SKILL.md'), '---\nname: pdf-forms\ndescription: Fill PDF forms\nallowed-tools: Read\n---\n\n# PDF forms\nUse the fill script.\n');
  const userSkill = path.join(userHome, '.claude', 'skills', 'house-style');
  await mkdir(userSkill, { recursive: true });
  // Written by a Windows editor: a byte-order mark before the fence.
  await writeFile(path.join(userSkill, 'SKILL.md'), '\ufeff---\nname: house-style\ndescription: Our writing style\n---\nWrite plainly.\n');

  const list = await t.api('GET', '/api/skills');
  assert.equal(list.status, 200);
  assert.equal(list.body.includeUserTier, true);
  assert.deepEqual(
    list.body.skills.map((s: { name: string; tier: string; included: boolean }) => [s.name, s.tier, s.included]),
    [['pdf-forms', 'workspace', true], ['house-style', 'user', true]],
  );
  const one = await t.api('GET', '/api/skills/pdf-forms');
  assert.deepEqual(one.body, { name: 'pdf-forms', description: 'Fill PDF forms', body: '# PDF forms\nUse the fill script.\n', tier: 'workspace' });

  // Loaded by name through the tool: full instructions, no permission needed.
  const loaded = await call('load_skill', { name: 'pdf-forms' });
  assert.equal(loaded.isError, false, loaded.text);
  assert.match(loaded.text, /# Skill: pdf-forms[\s\S]*Use the fill script\./);
  assert.match((await call('load_skill', { name: 'house-style' })).text, /Write plainly/);
  assert.doesNotMatch((await call('load_skill', { name: 'house-style' })).text, /description: Our writing style/);

  const refuse = await t.api('DELETE', '/api/skills/house-style');
  assert.equal(refuse.status, 400);
  assert.match(refuse.body.error, /user tier .* read-only here/);

  const off = await t.api('PUT', '/api/skills-config', { includeUserTier: false });
  assert.equal(off.status, 200);
  assert.equal((await t.api('GET', '/api/skills')).body.includeUserTier, false);
  assert.match((await call('load_skill', { name: 'house-style' })).text, /no skill "house-style"/);
  assert.equal((await t.api('PUT', '/api/skills-config', { includeUserTier: 'no' })).status, 400);

  const put = await t.api('PUT', '/api/skills/release-notes', { description: 'Write release notes', body: 'List the changes.' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const file = await readFile(path.join(t.home, 'workspace', '.claude', 'skills', 'release-notes', 'SKILL.md'), 'utf8');
  assert.equal(file, '---\nname: release-notes\ndescription: Write release notes\n---\nList the changes.\n');
  // Saving keeps frontmatter keys the engine does not own.
  await t.api('PUT', '/api/skills/pdf-forms', { description: 'Fill PDF forms well', body: 'New body' });
  assert.match(await readFile(path.join(wsSkill, 'SKILL.md'), 'utf8'), /allowed-tools: Read/);
  // ... also from a file that starts with a byte-order mark.
  await writeFile(path.join(wsSkill, 'SKILL.md'), '\ufeff---\nname: pdf-forms\ndescription: Fill PDF forms well\nallowed-tools: Grep\n---\nNew body\n');
  assert.equal((await t.api('PUT', '/api/skills/pdf-forms', { description: 'Fill PDF forms well', body: 'New body' })).status, 200);
  assert.match(await readFile(path.join(wsSkill, 'SKILL.md'), 'utf8'), /allowed-tools: Grep/);
  assert.equal((await t.api('PUT', '/api/skills/bad%2Fname', { description: 'x', body: '' })).status, 400);
  assert.match((await t.api('PUT', '/api/skills/x', { body: '' })).body.error, /description is required/);

  assert.equal((await t.api('DELETE', '/api/skills/release-notes')).status, 200);
  await assert.rejects(stat(path.join(t.home, 'workspace', '.claude', 'skills', 'release-notes')));
  assert.equal((await t.api('GET', '/api/skills/release-notes')).status, 404);
  await t.api('PUT', '/api/skills-config', { includeUserTier: true });
});

test('saving a skill whose SKILL.md is a link out of the fence keeps nothing from where the link leads', async () => {
  const outside = path.join(userHome, 'private.md');
  await writeFile(outside, '---\nname: x\ndescription: private\ndeploy-key: sk-outside-the-fence\n---\nprivate body\n');
  const dir = path.join(t.home, 'workspace', '.claude', 'skills', 'planted');
  await mkdir(dir, { recursive: true });
  await symlink(outside, path.join(dir, 'SKILL.md'));
  assert.equal((await t.api('GET', '/api/skills/planted')).status, 404, 'a link out of the fence is no skill');
  const put = await t.api('PUT', '/api/skills/planted', { description: 'Planted', body: 'Mine.' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const file = path.join(dir, 'SKILL.md');
  assert.equal((await lstat(file)).isSymbolicLink(), false);
  assert.equal(await readFile(file, 'utf8'), '---\nname: planted\ndescription: Planted\n---\nMine.\n');
  assert.match(await readFile(outside, 'utf8'), /deploy-key: sk-outside-the-fence/, 'the file outside is untouched');
  assert.equal((await t.api('DELETE', '/api/skills/planted')).status, 200);
});

test('a workspace SKILL.md a model turned into a link out of the fence is read by no person route: no history snapshot, no frontmatter kept', async () => {
  const outside = await tempDir('engine-outside-');
  const dir = path.join(t.home, 'workspace', '.claude', 'skills', 'linked');
  try {
    await writeFile(path.join(outside, 'credentials.md'), '---\naws_secret: SECRET-OUTSIDE-THE-FENCE\n---\nSECRET-OUTSIDE-THE-FENCE\n');
    assert.equal((await t.api('PUT', '/api/skills/linked', { description: 'Linked', body: 'v1' })).status, 200);
    await unlink(path.join(dir, 'SKILL.md'));
    await symlink(path.join(outside, 'credentials.md'), path.join(dir, 'SKILL.md'));
    // Restoring version 1 snapshots "what is there now" first: a link out is nothing there.
    const restored = await t.api('POST', '/api/history/skill/linked/1/restore', {});
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.snapshot, undefined);
    const versions = (await t.api('GET', '/api/history/skill/linked')).body.versions as Array<{ version: number }>;
    for (const { version } of versions) assert.doesNotMatch(JSON.stringify((await t.api('GET', `/api/history/skill/linked/${version}`)).body), /SECRET-OUTSIDE/);
    // Saving over a link keeps no frontmatter from where it leads.
    await unlink(path.join(dir, 'SKILL.md'));
    await symlink(path.join(outside, 'credentials.md'), path.join(dir, 'SKILL.md'));
    assert.equal((await t.api('PUT', '/api/skills/linked', { description: 'Linked', body: 'v2' })).status, 200);
    assert.doesNotMatch(await readFile(path.join(dir, 'SKILL.md'), 'utf8'), /SECRET-OUTSIDE/);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});

test('an agent prompt lists its skills and, with memory: true only, the memory block', async () => {
  await t.api('PUT', '/api/agents/writer', { description: 'Writes', system: 'You write.', skills: ['house-style'], memory: true });
  await t.api('PUT', '/api/agents/plain', { description: 'Plain', system: 'You help.', tools: ['set_plan'] });
  const writer = await t.engine.agents.resolve('writer');
  assert.match(writer.system, /^You write\.\n\n# Skills\n/);
  assert.match(writer.system, /- house-style: Our writing style/);
  assert.doesNotMatch(writer.system, /pdf-forms/);
  assert.match(writer.system, /# Memory\n/);
  const plain = await t.engine.agents.resolve('plain');
  assert.equal(plain.system, 'You help.');
  assert.deepEqual(plain.tools, ['set_plan']);
  // load_skill refuses a skill outside the agent's skills:
  assert.match((await call('load_skill', { name: 'pdf-forms' }, 'writer')).text, /not among this agent's skills \(house-style\)/);
});

test('memory routes: scopes, files, validation', async () => {
  const events = await collectEvents(t.url);
  assert.equal((await t.api('PUT', '/api/memory/shared/team.md', { content: '# Team\n' })).status, 200);
  assert.equal((await t.api('PUT', '/api/memory/writer/style.md', { content: 'short sentences\n' })).status, 200);
  const scopes = await t.api('GET', '/api/memory');
  const names = scopes.body.scopes.map((s: { scope: string }) => s.scope);
  assert.equal(names[0], 'shared');
  assert.ok(names.includes('writer'));
  assert.deepEqual(scopes.body.scopes.find((s: { scope: string }) => s.scope === 'writer').files.map((f: { name: string }) => f.name), ['style.md']);
  assert.deepEqual((await t.api('GET', '/api/memory/writer/style.md')).body, { content: 'short sentences\n' });
  assert.match((await t.api('PUT', '/api/memory/shared/notes.txt', { content: 'x' })).body.error, /must end in \.md/);
  assert.equal((await t.api('GET', `/api/memory/shared/${encodeURIComponent('../x.md')}`)).status, 400);
  assert.equal((await t.api('GET', `/api/memory/${encodeURIComponent('a/b')}/x.md`)).status, 400);
  assert.equal((await t.api('GET', '/api/memory/shared/missing.md')).status, 404);
  assert.equal((await t.api('DELETE', '/api/memory/shared/team.md')).status, 200);
  assert.equal((await t.api('GET', '/api/memory/shared/team.md')).status, 404);
  await events.waitFor((e) => e.kind === 'memory.changed' && e.scope === 'shared' && e.file === 'team.md' && e.op === 'delete');
  events.close();
});

test('no route shadows an agent\'s memory: agents named like the memory routes reach their files', async () => {
  for (const name of ['snapshots', 'consolidate', 'restore']) {
    assert.equal((await t.api('PUT', `/api/agents/${name}`, { description: `named ${name}`, memory: true })).status, 200);
    assert.equal((await t.api('PUT', `/api/memory/${name}/notes.md`, { content: `${name} notes\n` })).status, 200);
    assert.deepEqual((await t.api('GET', `/api/memory/${name}/notes.md`)).body, { content: `${name} notes\n` });
    assert.deepEqual((await t.api('GET', `/api/memory-snapshots/${name}`)).body, { snapshots: [] });
    assert.equal((await t.api('DELETE', `/api/memory/${name}/notes.md`)).status, 200);
    assert.equal((await t.api('GET', `/api/memory/${name}/notes.md`)).status, 404);
    assert.equal((await t.api('DELETE', `/api/agents/${name}`)).status, 200);
  }
  const bad = await t.api('GET', `/api/memory-snapshots/${encodeURIComponent('../x')}`);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /memory scope .* is not valid/);
});

test('memory tool: every command, file.written on writes, and the escapes it refuses', async () => {
  const events = await collectEvents(t.url);
  const ok = async (args: Record<string, unknown>, agent = 'writer') => {
    const out = await call('memory', args, agent);
    assert.equal(out.isError, false, `${JSON.stringify(args)} -> ${out.text}`);
    return out.text;
  };
  assert.equal(await ok({ command: 'create', path: '/memories/memories/prefs.md', file_text: 'line one\nline two\n' }), 'created /memories/memories/prefs.md');
  assert.equal(await readFile(path.join(t.home, 'memory', 'writer', 'prefs.md'), 'utf8'), 'line one\nline two\n');
  await events.waitFor((e) => e.kind === 'file.written' && e.path === '/memories/memories/prefs.md' && e.scope === 'writer');
  assert.equal(await ok({ command: 'str_replace', path: '/memories/memories/prefs.md', old_str: 'two', new_str: '2' }), 'edited /memories/memories/prefs.md');
  await ok({ command: 'insert', path: '/memories/memories/prefs.md', insert_line: 0, insert_text: '# Prefs' });
  assert.equal(await ok({ command: 'view', path: '/memories/memories/prefs.md' }), '     1\t# Prefs\n     2\tline one\n     3\tline 2\n     4\t');
  assert.equal(await ok({ command: 'view', path: '/memories/memories/prefs.md', view_range: [2, 2] }), '     2\tline one');
  await ok({ command: 'create', path: '/memories/shared/common.md', file_text: 'shared fact\n' });
  assert.match(await ok({ command: 'view', path: '/memories' }), /memories\/\n    prefs\.md[\s\S]*shared\/\n    common\.md/);
  await ok({ command: 'rename', old_path: '/memories/memories/prefs.md', new_path: '/memories/shared/prefs.md' });
  assert.equal(await readFile(path.join(t.home, 'memory', 'shared', 'prefs.md'), 'utf8'), '# Prefs\nline one\nline 2\n');
  await ok({ command: 'delete', path: '/memories/shared/prefs.md' });
  await assert.rejects(stat(path.join(t.home, 'memory', 'shared', 'prefs.md')));
  assert.ok(events.events.filter((e) => e.kind === 'file.written').length >= 6);

  await ok({ command: 'create', path: '/memories/shared/other.md', file_text: 'x' });
  const refusals: Array<[Record<string, unknown>, RegExp, string?]> = [
    [{ command: 'view', path: '/memories/../agents/writer.md' }, /tries to leave the memory folders/],
    [{ command: 'create', path: '/memories/memories/../../x.md', file_text: 'x' }, /tries to leave/],
    [{ command: 'create', path: '/etc/passwd.md', file_text: 'x' }, /outside \/memories/],
    [{ command: 'create', path: 'memories/memories/x.md', file_text: 'x' }, /outside \/memories/],
    [{ command: 'create', path: '/memories/other-agent/x.md', file_text: 'x' }, /does not exist; the folders are/],
    [{ command: 'create', path: '/memories/memories/sub/x.md', file_text: 'x' }, /nested/],
    [{ command: 'create', path: '/memories/memories/x.txt', file_text: 'x' }, /must end in \.md/],
    [{ command: 'create', path: '/memories/memories/..\\x.md', file_text: 'x' }, /character/],
    [{ command: 'create', path: '/memories/memories/%2e%2e.md', file_text: 'x' }, /character/],
    [{ command: 'str_replace', path: '/memories/shared/common.md', old_str: 'nothere', new_str: 'x' }, /occurs 0 times/],
    [{ command: 'rename', old_path: '/memories/shared/common.md', new_path: '/memories/shared/../../x.md' }, /tries to leave/],
    [{ command: 'create', path: '/memories/memories/x.md', file_text: 'x' }, /runs as no agent/, ''],
    // Missing notes are named by the model's own path, not the engine's scope names.
    [{ command: 'view', path: '/memories/memories/absent.md' }, /^memory: \/memories\/memories\/absent\.md does not exist; view \/memories\/memories lists/],
    [{ command: 'delete', path: '/memories/shared/absent.md' }, /\/memories\/shared\/absent\.md does not exist/],
    [{ command: 'rename', old_path: '/memories/shared/absent.md', new_path: '/memories/shared/b.md' }, /\/memories\/shared\/absent\.md does not exist/],
    [{ command: 'rename', old_path: '/memories/shared/common.md', new_path: '/memories/shared/other.md' }, /\/memories\/shared\/other\.md already exists/],
  ];
  for (const [args, sentence, agent] of refusals) {
    const out = await call('memory', args, agent === '' ? undefined : 'writer');
    assert.equal(out.isError, true, `${JSON.stringify(args)} should be refused, got ${out.text}`);
    assert.match(out.text, sentence);
  }
  // Nothing escaped into the home.
  await assert.rejects(stat(path.join(t.home, 'x.md')));
  await assert.rejects(stat(path.join(t.home, 'memory', 'x.md')));
  events.close();
});

test('set_plan emits plan.update and engine_activity reads the ledger', async () => {
  const events = await collectEvents(t.url);
  const out = await call('set_plan', { steps: [{ text: 'read', status: 'done' }, { text: 'write', status: 'active' }] });
  assert.equal(out.text, 'plan updated (2 steps)');
  const ev = await events.waitFor('plan.update');
  assert.equal((ev.steps as unknown[]).length, 2);
  const bad = await call('set_plan', { steps: [{ text: 'x', status: 'later' }] });
  assert.equal(bad.isError, true);

  const run = t.engine.runs.start({ source: 'chat', agent: 'writer', model: 'gpt-4o-mini', sessionId: 's1' });
  run.emit('token.usage', { input: 1000, output: 200, cached: 0, reasoning: 0 });
  await run.finish('completed');
  const recent = await call('engine_activity', {});
  assert.match(recent.text, new RegExp(`${run.id} .* completed +chat \\(agent writer, model gpt-4o-mini\\)`));
  const byModel = await call('engine_activity', { groupBy: 'model', workflow: 'chat' });
  assert.match(byModel.text, /gpt-4o-mini: 1 run\(s\) \(1 completed\); in 1000 \/ out 200/);
  assert.match((await call('engine_activity', { workflow: 'nope' })).text, /^no runs from .* \(UTC\) for nope$/);
  assert.match((await call('engine_activity', { workflow: 'nope', status: 'failed', groupBy: 'agent' })).text, /^no runs from .* \(UTC\) with status failed for nope$/);
  events.close();
});

test('engine_activity lists 50 runs by default and at most 200, saying more remain', async () => {
  for (let i = 0; i < 205; i++) await t.engine.runs.start({ source: 'workflow', workflowId: 'bulk' }).finish('completed');
  const lines = (text: string) => text.split('\n').filter((l) => /^run-\d+-\d+ /.test(l)).length;
  const byDefault = await call('engine_activity', { workflow: 'bulk' });
  assert.equal(lines(byDefault.text), 50);
  assert.match(byDefault.text, /^runs 1-50 of 205 .*more remain \(raise limit up to 200/);
  const capped = await call('engine_activity', { workflow: 'bulk', limit: 1000 });
  assert.equal(capped.isError, false, capped.text);
  assert.equal(lines(capped.text), 200);
  assert.match(capped.text, /^runs 1-200 of 205 /);
  assert.equal(lines((await call('engine_activity', { workflow: 'bulk', limit: '7' })).text), 7);
});
