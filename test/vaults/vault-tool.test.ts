/**
 * The `vault` tool through real chat turns with the scripted model: given only to an agent with
 * `vault: <mount>`, over that vault only; duplicate-proof propose; the write guards; capture.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let t: TestEngine;
let model: ModelServer;
let events: EventCollector;
let base: string;
let root: string;

const ALPHA = '---\naliases: [First]\n---\n# Alpha\n\nThe first project.\n\n## Log\n\n- 2026-01-01 started\n\n## Links\n\nSee [[Beta]].\n';

before(async () => {
  base = await tempDir('vault-tool-');
  root = path.join(base, 'kb');
  const files: Record<string, string> = {
    'notes/Alpha.md': ALPHA,
    'notes/Beta.md': '# Beta\n\nLinks back to [[Alpha]].\n',
    'decisions/D1.md': '# Decision one\n\nWe chose tea.\n\n## Log\n',
    'private/Secret.md': '# Secret\n\nThe platypus code.\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  model = await startModelServer();
  t = await startTestEngine();
  const put = await t.api('PUT', '/api/config', {
    providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }],
    defaultProvider: 'scripted',
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const schema = {
    types: { note: { folder: 'notes' }, decision: { folder: 'decisions', immutable: true } },
    agentForbidden: ['private/**'],
  };
  assert.equal((await t.api('POST', '/api/vaults', { name: 'kb', path: root, schema })).status, 201);
  assert.equal((await t.api('PUT', '/api/agents/librarian', { description: 'Keeps notes', system: 'You keep notes.', vault: 'kb', tools: ['set_plan'] })).status, 200);
  assert.equal((await t.api('PUT', '/api/agents/open', { description: 'All tools', system: 'You do anything.', vault: 'kb' })).status, 200);
  assert.equal((await t.api('PUT', '/api/agents/plain', { description: 'No vault', system: 'You chat.' })).status, 200);
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
  await model.close();
  await rm(base, { recursive: true, force: true });
});

const ended = (runId: string | undefined) => events.waitFor((e) => e.runId === runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 30_000);

async function turn(sessionId: string, message: string, agent?: string): Promise<EngineEvent> {
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', '/api/chat', { sessionId, message, permissionMode: 'allow', ...(agent ? { agent } : {}) });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 20_000);
  return ended(started.runId);
}

const offered = (i: number) => (model.requests[i].body.tools ?? []).map((x: { function: { name: string } }) => x.function.name).sort();
const results = (runId: string) => events.events.filter((e) => e.runId === runId && e.kind === 'tool.result' && e.tool === 'vault').map((e) => e as EngineEvent & { ok: boolean; result: string });

/** One turn in which the model makes `calls` to the vault tool, one step each, then answers. */
async function vaultTurn(agent: string, calls: Array<Record<string, unknown>>) {
  const first = model.requests.length;
  model.script(...calls.map((args) => ({ toolCalls: [{ name: 'vault', args }] })), { text: 'Done.' });
  const end = await turn(`s-${agent}-${first}`, 'work in the vault', agent);
  assert.equal(end.kind, 'run.completed');
  return { first, results: results(end.runId!) };
}

test('an agent with vault: gets the tool (added to its tools: list, or among all tools) and it works over that vault', async () => {
  const { first, results: r } = await vaultTurn('librarian', [
    { command: 'search', query: 'first project' },
    { command: 'read', note: 'First' },
    { command: 'links', note: 'Alpha' },
  ]);
  assert.deepEqual(offered(first), ['set_plan', 'vault']);
  assert.deepEqual(r.map((x) => x.ok), [true, true, true]);
  assert.match(r[0].result, /notes\/Alpha\.md/);
  assert.match(r[1].result, /The first project/);
  assert.match(r[2].result, /\[\[Beta\]\] -> notes\/Beta\.md/);
  assert.match(r[2].result, /Backlinks \(1\):\n- notes\/Beta\.md/);

  const all = await vaultTurn('open', [{ command: 'search', query: 'tea' }]);
  const names = offered(all.first);
  assert.ok(names.includes('vault') && names.includes('read_file'), names.join(','));
  assert.match(all.results[0].result, /decisions\/D1\.md/);
});

test('an agent without vault: and plain chat never see the tool; a call is refused', async () => {
  const { first, results: r } = await vaultTurn('plain', [{ command: 'search', query: 'alpha' }]);
  assert.ok(!offered(first).includes('vault'));
  assert.ok(offered(first).includes('read_file'));
  assert.equal(r[0].ok, false);
  assert.equal(r[0].result, 'Tool "vault" is not available to this agent (not in its allowlist)');

  const before = model.requests.length;
  model.script({ toolCalls: [{ name: 'vault', args: { command: 'read', note: 'Alpha' } }] }, { text: 'ok' });
  const end = await turn('s-no-agent', 'hello');
  assert.ok(!offered(before).includes('vault'));
  assert.equal(results(end.runId!)[0].ok, false);
});

test('propose stages a new note in the inbox and answers with the existing note for a taken name or alias', async () => {
  const { results: r } = await vaultTurn('librarian', [
    { command: 'propose', name: 'first', content: 'a copy' },
    { command: 'propose', name: 'Gamma', content: '---\naliases: [Beta]\n---\nnew' },
    { command: 'propose', name: 'Delta', content: '# Delta\n\nA new idea, see [[Alpha]].\n' },
    { command: 'propose', name: 'Delta', content: 'again' },
  ]);
  assert.match(r[0].result, /^Not proposed: note notes\/Alpha\.md already has the name or alias "first"/);
  assert.match(r[0].result, /The first project/, 'the existing note comes back');
  assert.match(r[1].result, /^Not proposed: note notes\/Beta\.md/);
  assert.match(r[2].result, /^Proposed inbox\/Delta\.md/);
  assert.match(r[3].result, /^Not proposed: note inbox\/Delta\.md/);
  assert.deepEqual((await readdir(path.join(root, 'inbox'))).sort(), ['Delta.md']);
  const text = await readFile(path.join(root, 'inbox/Delta.md'), 'utf8');
  assert.match(text, /proposedBy: librarian/);
  assert.match(text, /type: note/);
  const list = await t.api('GET', '/api/vaults');
  assert.equal(list.body[0].inbox, 1);
});

test('append_log adds one dated line under Log and changes nothing above it; immutable types and forbidden paths refuse', async () => {
  const { results: r } = await vaultTurn('librarian', [
    { command: 'append_log', note: 'Alpha', entry: 'reviewed\nthe plan' },
    { command: 'append_log', note: 'D1', entry: 'try to change' },
    { command: 'read', note: 'private/Secret.md' },
    { command: 'read', note: 'Secret' },
    { command: 'search', query: 'platypus' },
    { command: 'append_log', note: 'Secret', entry: 'x' },
    { command: 'propose', name: 'Secret', content: 'x' },
  ]);
  assert.equal(r[0].ok, true, r[0].result);
  const alpha = await readFile(path.join(root, 'notes/Alpha.md'), 'utf8');
  const cut = ALPHA.indexOf('- 2026-01-01 started\n') + '- 2026-01-01 started\n'.length;
  assert.equal(alpha.slice(0, cut), ALPHA.slice(0, cut), 'everything above the new line is unchanged');
  assert.match(alpha.slice(cut), /^- \d{4}-\d{2}-\d{2} \d{2}:\d{2} reviewed the plan \(librarian\)\n\n## Links\n\nSee \[\[Beta\]\]\.\n$/);
  assert.equal(r[1].ok, false);
  assert.match(r[1].result, /immutable/);
  assert.equal(await readFile(path.join(root, 'decisions/D1.md'), 'utf8'), '# Decision one\n\nWe chose tea.\n\n## Log\n');
  for (const i of [2, 3, 5]) {
    assert.equal(r[i].ok, false, r[i].result);
    assert.match(r[i].result, /no note/);
  }
  assert.match(r[4].result, /No note in vault "kb" matches/);
  assert.match(r[6].result, /^Proposed inbox\/Secret\.md/, 'a forbidden note is not even a duplicate an agent could learn of');
  await t.api('POST', '/api/vaults/kb/inbox/reject', { file: 'Secret' });
  assert.doesNotMatch(await readFile(path.join(root, 'private/Secret.md'), 'utf8'), /x/);
});

test('capture: a model pass (a run with source vault) turns text into inbox notes, duplicates answered with the existing note', async () => {
  model.script({
    text: '```json\n{"notes": [{"name": "Kettle facts", "type": "note", "content": "Water boils at 100 C."}, {"name": "Alpha", "content": "dup"}]}\n```',
  });
  const res = await t.api('POST', '/api/vaults/kb/capture', { text: 'Water boils at 100 C. Also alpha.', agent: 'librarian' });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const captured = await events.waitFor((e) => e.kind === 'vault.captured' && e.runId === res.body.runId, 20_000);
  assert.deepEqual(captured.files, ['kb/inbox/Kettle facts.md']);
  assert.deepEqual(captured.duplicates, [{ name: 'Alpha', existing: 'kb/notes/Alpha.md' }]);
  const end = await ended(res.body.runId);
  assert.equal(end.kind, 'run.completed');
  const runs = await t.api('GET', '/api/runs');
  const run = runs.body.runs.find((x: any) => x.runId === res.body.runId);
  assert.equal(run.source, 'vault');
  assert.equal(run.agent, 'librarian');
  assert.match(model.requests.at(-1)!.body.messages[0].content, /You keep notes\.[\s\S]*Answer with JSON only/);
  assert.equal((await t.api('POST', '/api/vaults/kb/capture', { text: 'x', agent: 'ghost' })).status, 404);
});

test('the vault tool is of the unknown-effect class: an attended chat in ask mode is prompted for it', async () => {
  model.script({ toolCalls: [{ name: 'vault', args: { command: 'search', query: 'alpha' } }] }, { text: 'ok' });
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', '/api/chat', { sessionId: 's-ask', message: 'find alpha', agent: 'librarian', permissionMode: 'ask' });
  assert.equal(res.status, 202);
  const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq, 20_000);
  assert.deepEqual([asked.tool, asked.class, asked.key], ['vault', 'unknown', 'vault(search)']);
  assert.equal((await t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow' })).status, 200);
  const end = await ended(asked.runId);
  assert.equal(end.kind, 'run.completed');
  assert.equal(results(end.runId!)[0].ok, true);
});

test('route schemas refuse malformed requests with a sentence', async () => {
  const missing = await t.api('POST', '/api/vaults', { path: root });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /name/);
  assert.equal((await t.api('POST', '/api/vaults', { name: 'rel', path: 'relative/folder' })).status, 400);
  assert.equal((await t.api('POST', '/api/vaults/kb/notes', { name: 'x', type: 'note' })).status, 400);
  assert.equal((await t.api('GET', '/api/vaults/kb/note')).status, 400);
  assert.equal((await t.api('GET', '/api/vaults/kb/search?q=x&limit=0')).status, 400);
  assert.equal((await t.api('POST', '/api/vaults/kb/capture', {})).status, 400);
});

test('a subagent reached through delegate uses its own vault: definition, though its parent has none', async () => {
  const first = model.requests.length;
  model.script(
    { toolCalls: [{ name: 'delegate', args: { agent: 'librarian', task: 'Find the first project.' } }] },
    { toolCalls: [{ name: 'vault', args: { command: 'search', query: 'first project' } }] },
    { text: 'It is notes/Alpha.md.' },
    { text: 'The librarian found it.' },
  );
  const end = await turn('s-delegate', 'ask the librarian', 'plain');
  assert.equal(end.kind, 'run.completed');
  assert.ok(!offered(first).includes('vault'), 'the parent is not offered the tool');
  assert.ok(offered(first + 1).includes('vault'), 'the subagent is');
  const r = results(end.runId!);
  assert.equal(r.length, 1);
  assert.equal(r[0].ok, true, r[0].result);
  assert.match(r[0].result, /notes\/Alpha\.md/);
});
