import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
const LIST_FIELDS = ['description', 'group', 'memory', 'model', 'name', 'tools', 'vault'];
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('an agent saves, lists, reads back and deletes', async () => {
  const events = await collectEvents(t.url);
  const put = await t.api('PUT', '/api/agents/reviewer', {
    description: 'Reviews diffs',
    system: 'You review code.',
    tools: ['set_plan', 'memory'],
    memory: true,
    group: 'dev',
    temperature: 0.2,
    maxTurns: 7,
    effort: 'low',
    extraBody: { top_k: 20 },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const text = await readFile(path.join(t.home, 'agents', 'reviewer.md'), 'utf8');
  assert.match(text, /^---\nname: reviewer\ndescription: Reviews diffs\n/);
  assert.match(text, /tools: set_plan, memory/);
  assert.match(text, /\n---\nYou review code.\n$/);

  const list = await t.api('GET', '/api/agents');
  assert.deepEqual(list.body, [
    { name: 'reviewer', description: 'Reviews diffs', memory: true, vault: null, group: 'dev', model: null, tools: ['set_plan', 'memory'] },
  ]);
  const one = await t.api('GET', '/api/agents/reviewer');
  assert.equal(one.body.system, 'You review code.\n');
  assert.equal(one.body.maxTurns, 7);
  assert.deepEqual(one.body.extraBody, { top_k: 20 });

  assert.equal((await t.api('DELETE', '/api/agents/reviewer')).status, 200);
  assert.equal((await t.api('GET', '/api/agents/reviewer')).status, 404);
  assert.equal((await t.api('DELETE', '/api/agents/reviewer')).status, 404);
  await events.waitFor((e) => e.kind === 'agents.changed' && e.name === 'reviewer' && e.op === 'delete');
  assert.ok(events.events.some((e) => e.kind === 'agents.changed' && e.name === 'reviewer' && e.op === 'create'));
  events.close();
});

test('agent validation answers 400 with a sentence naming the problem', async () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a..b', { description: 'x' }, /path characters/],
    ['bad name', { description: 'x' }, /path characters/],
    ['ok', { system: 'no description' }, /description is required/],
    ['ok', { description: 'x', tools: ['no_such_tool'] }, /tools: "no_such_tool" is not a registered tool/],
    ['ok', { description: 'x', tools: ['db_*'] }, /"db_\*" is a pattern.*exact tool names only/],
    ['ok', { description: 'x', tools: ['files'] }, /"files" is a tool family, not a tool.*e\.g\. .*read_file/],
    ['ok', { description: 'x', tools: ['meta'] }, /"meta" is a tool family.*e\.g\./],
    ['ok', { description: 'x', tools: ['Read'] }, /Claude Code tool name; the engine's tool is "read_file"/],
    ['ok', { description: 'x', tools: 'set_plan' }, /tools must be an array/],
    ['ok', { description: 'x', tools: ['vault'] }, /"vault" is not set through tools:; the vault tool is added to an agent whose definition sets vault: <mount>/],
    ['ok', { description: 'x', tools: ['db'] }, /"db" is a tool family, not a tool; an allowlist holds exact tool names only/],
    ['ok', { description: 'x', tools: ['mcp__github__create_issue'] }, /the engine would call it "github_create_issue", which is not registered now/],
    ['ok', { description: 'x', temperature: 9 }, /temperature must be a number from 0 to 2/],
    ['ok', { description: 'x', maxTurns: 0 }, /maxTurns must be a whole number/],
    ['ok', { description: 'x', effort: 'max' }, /effort must be one of/],
    ['ok', { description: 'x', memory: 'yes' }, /memory must be true or false/],
    ['ok', { description: 'x', extraBody: [1] }, /extraBody must be a JSON object/],
    ['ok', { description: 'x', colour: 'red' }, /unknown field "colour"/],
    ['ok', { description: 'x', name: 'other' }, /differs from "ok" in the URL/],
  ];
  for (const [name, body, sentence] of cases) {
    const res = await t.api('PUT', `/api/agents/${encodeURIComponent(name)}`, body);
    assert.equal(res.status, 400, `${name} ${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`);
    assert.match(res.body.error, sentence);
  }
  const slash = await t.api('GET', `/api/agents/${encodeURIComponent('../etc')}`);
  assert.equal(slash.status, 400);
  assert.equal((await t.api('GET', '/api/agents')).body.length, 0);
});

test('agent order round-trips and is validated', async () => {
  assert.deepEqual((await t.api('GET', '/api/agents/order')).body, { groups: [], agents: [] });
  const put = await t.api('PUT', '/api/agents/order', { groups: ['dev', 'ops'], agents: ['b', 'a'] });
  assert.equal(put.status, 200);
  assert.deepEqual((await t.api('GET', '/api/agents/order')).body, { groups: ['dev', 'ops'], agents: ['b', 'a'] });
  const bad = await t.api('PUT', '/api/agents/order', { groups: 'dev', agents: [] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /groups must be an array of strings/);
});

test('a Claude Code subagent file dropped in by hand loads as is', async () => {
  await mkdir(path.join(t.home, 'agents'), { recursive: true });
  await writeFile(
    path.join(t.home, 'agents', 'code-reviewer.md'),
    [
      '---',
      'name: code-reviewer',
      'description: Expert code review specialist. Use proactively after writing code.',
      'tools: Read, Grep, TodoWrite, Skill, NotebookEdit, memory, mcp__github__create_issue',
      'model: sonnet',
      'color: purple',
      '---',
      '',
      'You are a senior code reviewer.',
      '',
    ].join('\n'),
  );
  const list = await t.api('GET', '/api/agents');
  const row = list.body.find((a: { name: string }) => a.name === 'code-reviewer');
  assert.ok(row, JSON.stringify(list.body));
  assert.equal(row.description, 'Expert code review specialist. Use proactively after writing code.');
  // Claude Code names map to the engine's; NotebookEdit has no engine tool, so it is dropped and reported.
  assert.deepEqual(row.tools, ['read_file', 'grep', 'set_plan', 'load_skill', 'memory', 'github_create_issue']);
  assert.equal(row.model, null);
  // The list carries the seed's fields only; what was adjusted is on the agent itself.
  assert.deepEqual(Object.keys(row).sort(), LIST_FIELDS);
  const full = await t.api('GET', '/api/agents/code-reviewer');
  assert.equal(full.body.system, 'You are a senior code reviewer.\n');
  const warnings: string[] = full.body.warnings;
  assert.ok(warnings.some((w) => /"github_create_issue" is not registered now/.test(w)));
  assert.ok(warnings.some((w) => /model "sonnet" is a Claude Code alias/.test(w)));
  assert.ok(warnings.some((w) => /"NotebookEdit" is not a registered tool/.test(w)), JSON.stringify(warnings));

  // Saving through the API keeps the keys the engine does not own (color) and writes Claude Code's shape.
  const saved = await t.api('PUT', '/api/agents/code-reviewer', { description: 'Reviews code', system: 'Review.', tools: ['set_plan'] });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const text = await readFile(path.join(t.home, 'agents', 'code-reviewer.md'), 'utf8');
  assert.match(text, /color: purple/);
  assert.match(text, /tools: set_plan\n/);
});

test('hand-written files from Windows editors (CRLF, a byte-order mark) load as well', async () => {
  await writeFile(path.join(t.home, 'agents', 'crlf.md'), '---\r\nname: crlf\r\ndescription: Windows file\r\ntools: Read, Grep\r\n---\r\nYou are CRLF.\r\n');
  await writeFile(path.join(t.home, 'agents', 'bom.md'), '\ufeff---\nname: bom\ndescription: BOM file\ntools: Read\n---\nYou are BOM.\n');
  const crlf = (await t.api('GET', '/api/agents/crlf')).body;
  assert.equal(crlf.description, 'Windows file');
  assert.deepEqual(crlf.tools, ['read_file', 'grep']);
  const bom = (await t.api('GET', '/api/agents/bom')).body;
  assert.equal(bom.description, 'BOM file');
  assert.deepEqual(bom.tools, ['read_file']);
  assert.equal(bom.system, 'You are BOM.\n');
});

test('a file whose frontmatter name differs from its file name keeps the file name', async () => {
  await writeFile(path.join(t.home, 'agents', 'helper.md'), '---\nname: someone-else\ndescription: Helps\n---\nHelp.\n');
  const one = await t.api('GET', '/api/agents/helper');
  assert.equal(one.body.name, 'helper');
  assert.match(one.body.warnings[0], /the file name "helper" is the agent's name/);
});

test('a hand-written description that is not text reads as empty, with a warning', async () => {
  await writeFile(path.join(t.home, 'agents', 'numbered.md'), '---\ndescription: 42\n---\nCount.\n');
  const one = await t.api('GET', '/api/agents/numbered');
  assert.equal(one.status, 200, JSON.stringify(one.body));
  assert.equal(one.body.description, '');
  assert.deepEqual(one.body.warnings, ['description must be a string; the field was ignored']);
});

test('a file with broken frontmatter still lists with the seed fields; reading it says what is wrong', async () => {
  await writeFile(path.join(t.home, 'agents', 'broken.md'), '---\ndescription: [unclosed\n---\nx\n');
  const list = await t.api('GET', '/api/agents');
  const row = list.body.find((a: { name: string }) => a.name === 'broken');
  assert.deepEqual(row, { name: 'broken', description: '', memory: false, vault: null, group: null, model: null, tools: null });
  for (const r of list.body) assert.deepEqual(Object.keys(r).sort(), LIST_FIELDS, JSON.stringify(r));
  const one = await t.api('GET', '/api/agents/broken');
  assert.equal(one.status, 400);
  assert.match(one.body.error, /not valid YAML/);
});

test('names no agent can take are refused with a sentence saying why, whichever door', async () => {
  for (const name of ['order', 'shared', 'Shared']) {
    const res = await t.api('PUT', `/api/agents/${name}`, { description: 'x' });
    if (name === 'order') {
      // PUT /api/agents/order is the order route: an agent body there is recognised and explained.
      assert.equal(res.status, 400);
      assert.match(res.body.error, /"order" cannot be an agent name: \/api\/agents\/order is the route of the agent order.*send \{groups/);
      // DELETE has no route at /api/agents/order: 405 (issue 10), not an agent name to validate.
      assert.equal((await t.api('DELETE', '/api/agents/order')).status, 405);
      continue;
    }
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.error, /"shared" cannot be an agent name: it is the memory scope every memory-enabled agent shares/);
  }
  const chat = await t.api('POST', '/api/chat', { sessionId: 's-res', message: 'hi', agent: 'shared' });
  assert.equal(chat.status, 400);
  assert.match(chat.body.error, /cannot be an agent name/);
});
