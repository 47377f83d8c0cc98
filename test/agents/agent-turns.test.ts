/** Agents in real turns: POST /api/chat {agent}, delegate, the memory tool, consolidation, over the scripted model server. */
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { until } from '../support/patience.js';

let t: TestEngine;
let model: ModelServer;
let events: EventCollector;
let userHome: string;

before(async () => {
  model = await startModelServer();
  userHome = await tempDir('engine-userhome-');
  t = await startTestEngine({ skillsUserHome: userHome });
  const put = await t.api('PUT', '/api/config', {
    providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }],
    defaultProvider: 'scripted',
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
  await model.close();
  const { rm } = await import('node:fs/promises');
  await rm(userHome, { recursive: true, force: true });
});

/** Sends a chat turn and waits for its run to start. */
async function begin(sessionId: string, message: string, agent?: string, extra: Record<string, unknown> = {}): Promise<EngineEvent> {
  const seq = events.events.at(-1)?.seq ?? 0;
  const res = await t.api('POST', '/api/chat', { sessionId, message, ...(agent ? { agent } : {}), ...extra });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq, 20_000);
}

/** The event that ended a run. */
const ended = (runId: string | undefined) => events.waitFor((e) => e.runId === runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 30_000);

/** Sends a chat turn and waits for its run to end. */
async function turn(sessionId: string, message: string, agent?: string): Promise<EngineEvent> {
  return ended((await begin(sessionId, message, agent)).runId);
}

/** Waits for a run's permission prompt, checks it with `check`, allows it and returns the run's completed end. */
async function allowPromptAndEnd(runId: string | undefined, check: (asked: EngineEvent) => void): Promise<EngineEvent> {
  const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.runId === runId, 20_000);
  check(asked);
  const ok = await t.api('POST', '/api/permissions/resolve', { runId, callId: asked.callId, decision: 'allow' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const end = await ended(runId);
  assert.equal(end.kind, 'run.completed');
  return end;
}

const offered = (i: number) => (model.requests[i].body.tools ?? []).map((x: { function: { name: string } }) => x.function.name).sort();
const systemOf = (i: number) => model.requests[i].body.messages.find((m: { role: string }) => m.role === 'system')?.content as string;
const results = (runId: string, tool: string) => events.events.filter((e) => e.runId === runId && e.kind === 'tool.result' && e.tool === tool);

test('an agent with a two-tool allowlist is offered exactly those, and a call outside is refused with the seed sentence', async () => {
  const put = await t.api('PUT', '/api/agents/planner', { description: 'Plans', system: 'You plan things.', tools: ['set_plan', 'engine_activity'], temperature: 0.3 });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const first = model.requests.length;
  model.script(
    { toolCalls: [{ name: 'read_file', args: { path: 'x.txt' } }, { name: 'set_plan', args: { steps: [{ text: 'one', status: 'active' }] } }] },
    { text: 'Planned.' },
  );
  const end = await turn('s-allow', 'plan it', 'planner');
  assert.equal(end.kind, 'run.completed');
  assert.deepEqual(offered(first), ['engine_activity', 'set_plan']);
  assert.deepEqual(offered(first + 1), ['engine_activity', 'set_plan']);
  assert.equal(systemOf(first), 'You plan things.');
  assert.equal(model.requests[first].body.temperature, 0.3);
  const refused = results(end.runId!, 'read_file');
  assert.equal(refused.length, 1);
  assert.equal(refused[0].ok, false);
  assert.equal(refused[0].result, 'Tool "read_file" is not available to this agent (not in its allowlist)');
  assert.equal(results(end.runId!, 'set_plan')[0].ok, true);
  assert.ok(events.events.some((e) => e.runId === end.runId && e.kind === 'plan.update'));
  const run = (await t.api('GET', `/api/report/runs?agent=planner`)).body.runs[0];
  assert.equal(run.runId, end.runId);
});

test('delegate nests two deep, is refused at three, and the subagents\' usage adds to the parent run', async () => {
  for (const [name, next] of [['lead', 'mid'], ['mid', 'leaf'], ['leaf', 'lead']]) {
    const put = await t.api('PUT', `/api/agents/${name}`, { description: `The ${name}`, system: `You are ${name}; hand work to ${next}.`, tools: ['delegate'] });
    assert.equal(put.status, 200);
  }
  const first = model.requests.length;
  const u = { input: 100, output: 10, cached: 0, reasoning: 0 };
  model.script(
    { toolCalls: [{ name: 'delegate', args: { agent: 'mid', task: 'do the middle part' } }], usage: u },
    { toolCalls: [{ name: 'delegate', args: { agent: 'leaf', task: 'do the leaf part' } }], usage: u },
    { toolCalls: [{ name: 'delegate', args: { agent: 'lead', task: 'too deep' } }], usage: u },
    { text: 'leaf done', usage: u },
    { text: 'mid done: leaf done', usage: u },
    { text: 'lead done', usage: u },
  );
  const end = await turn('s-deleg', 'start', 'lead');
  assert.equal(end.kind, 'run.completed');
  assert.equal(model.requests.length - first, 6);
  assert.match(systemOf(first), /^You are lead/);
  // A delegate caller is told whom it can hand work to (everyone but itself), by name and description.
  const agentsBlock = systemOf(first).split('# Agents\n')[1];
  assert.ok(agentsBlock, systemOf(first));
  assert.match(agentsBlock, /\n- mid: The mid\n/);
  assert.match(agentsBlock, /\n- leaf: The leaf/);
  assert.doesNotMatch(agentsBlock, /- lead:/);
  assert.match(systemOf(first + 1), /^You are mid/);
  assert.match(systemOf(first + 2), /^You are leaf/);
  // The subagent starts fresh: its only user message is the task.
  assert.deepEqual(model.requests[first + 1].body.messages.filter((m: { role: string }) => m.role !== 'system'), [{ role: 'user', content: 'do the middle part' }]);
  const delegates = results(end.runId!, 'delegate');
  assert.equal(delegates.length, 3);
  const refusal = delegates.find((e) => e.ok === false)!;
  assert.match(String(refusal.result), /delegate refused: this agent is already a subagent 2 levels deep, and delegation nests at most 2 deep/);
  assert.deepEqual(delegates.filter((e) => e.ok).map((e) => e.result), ['leaf done', 'mid done: leaf done']);
  assert.deepEqual(end.usage, { input: 600, output: 60, cached: 0, reasoning: 0 });
  // The refusal reached the leaf model as its tool result.
  assert.match(JSON.stringify(model.requests[first + 3].body.messages), /delegate refused/);
});

test('stopping the parent turn stops a subagent mid-step', async () => {
  await t.api('PUT', '/api/agents/boss', { description: 'Boss', system: 'Boss.', tools: ['delegate'] });
  await t.api('PUT', '/api/agents/worker', { description: 'Worker', system: 'Worker.', tools: ['set_plan'] });
  const before = model.requests.length;
  model.script({ toolCalls: [{ name: 'delegate', args: { agent: 'worker', task: 'work forever' } }] }, { text: 'working', hang: true });
  const started = await begin('s-stop', 'go', 'boss');
  await model.waitForRequests(before + 2, 20_000);
  await t.api('POST', '/api/chat/stop', { sessionId: 's-stop' });
  const end = await ended(started.runId);
  assert.equal(end.kind, 'run.stopped');
  await until('the subagent\'s model request to be let go', () => model.hanging() === 0);
  assert.equal(model.hanging(), 0, 'the subagent\'s model request was aborted');
});

test('a Claude Code agent file and a skill folder dropped in by hand are used in a turn', async () => {
  await writeFile(
    path.join(t.home, 'agents', 'cc-helper.md'),
    '---\nname: cc-helper\ndescription: Uses skills\ntools: Skill, TodoWrite\nmodel: inherit\n---\nYou are helpful.\n',
  );
  const dir = path.join(t.home, 'workspace', '.claude', 'skills', 'greeting');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'SKILL.md'), '---\nname: greeting\ndescription: How to greet people\n---\nAlways greet with "Ahoy".\n');
  const first = model.requests.length;
  model.script({ toolCalls: [{ name: 'load_skill', args: { name: 'greeting' } }] }, { text: 'Ahoy!' });
  const end = await turn('s-cc', 'say hi', 'cc-helper');
  assert.equal(end.kind, 'run.completed');
  assert.deepEqual(offered(first), ['load_skill', 'set_plan']);
  assert.match(systemOf(first), /^You are helpful\.\n\n# Skills\n[\s\S]*- greeting: How to greet people/);
  const loaded = results(end.runId!, 'load_skill')[0];
  assert.equal(loaded.ok, true);
  assert.match(String(loaded.result), /Always greet with "Ahoy"/);
  assert.match(JSON.stringify(model.requests[first + 1].body.messages), /Always greet with/);
});

test('a memory: true agent gets the memory block and edits its own scope through the tool', async () => {
  await t.api('PUT', '/api/agents/keeper', { description: 'Remembers', system: 'You remember.', tools: ['set_plan'], memory: true });
  const first = model.requests.length;
  model.script(
    { toolCalls: [{ name: 'memory', args: { command: 'create', path: '/memories/memories/user.md', file_text: 'likes tea\n' } }] },
    { toolCalls: [{ name: 'memory', args: { command: 'create', path: '/memories/../agents/keeper.md', file_text: 'pwned' } }] },
    { text: 'noted' },
  );
  const end = await turn('s-mem', 'I like tea', 'keeper');
  assert.equal(end.kind, 'run.completed');
  assert.deepEqual(offered(first), ['memory', 'set_plan']);
  assert.match(systemOf(first), /# Memory\n/);
  assert.equal(await readFile(path.join(t.home, 'memory', 'keeper', 'user.md'), 'utf8'), 'likes tea\n');
  assert.ok(events.events.some((e) => e.runId === end.runId && e.kind === 'file.written' && e.path === '/memories/memories/user.md'));
  const escaped = results(end.runId!, 'memory')[1];
  assert.equal(escaped.ok, false);
  assert.match(String(escaped.result), /tries to leave the memory folders/);
  assert.match(await readFile(path.join(t.home, 'agents', 'keeper.md'), 'utf8'), /You remember/);
  // An agent without memory: true gets no memory block.
  assert.doesNotMatch(systemOf(0) ?? '', /# Memory/);
});

test('consolidate merges a scope through the model, records the previous state, and restore undoes it', async () => {
  await t.api('PUT', '/api/memory/shared/a.md', { content: 'fact one\n' });
  await t.api('PUT', '/api/memory/shared/b.md', { content: 'fact one again\nfact two\n' });
  model.script({ text: '<<<FILE facts.md>>>\n- fact one\n- fact two\n<<<END>>>', usage: { input: 50, output: 20, cached: 0, reasoning: 0 } });
  const res = await t.api('POST', '/api/memory/consolidate', { scope: 'shared' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.files, ['facts.md']);
  assert.deepEqual(res.body.before, ['a.md', 'b.md']);
  assert.match(JSON.stringify(model.requests.at(-1)!.body.messages), /fact one again/);
  const shared = (await t.api('GET', '/api/memory')).body.scopes.find((s: { scope: string }) => s.scope === 'shared');
  assert.deepEqual(shared.files.map((f: { name: string }) => f.name), ['facts.md']);
  // Billed to a run of its own.
  const memRuns = (await t.api('GET', '/api/report/runs?source=memory')).body.runs;
  assert.equal(memRuns[0].usage.input, 50);

  const snaps = (await t.api('GET', '/api/memory-snapshots/shared')).body.snapshots;
  assert.equal(snaps[0].id, res.body.snapshot);
  assert.deepEqual(snaps[0].files.sort(), ['a.md', 'b.md']);
  const undo = await t.api('POST', '/api/memory/restore', { scope: 'shared', snapshot: res.body.snapshot });
  assert.equal(undo.status, 200, JSON.stringify(undo.body));
  assert.equal((await t.api('GET', '/api/memory/shared/b.md')).body.content, 'fact one again\nfact two\n');
  assert.equal((await t.api('GET', '/api/memory/shared/facts.md')).status, 404);
  // The restore itself snapshotted the consolidated state, so it can be redone.
  const again = (await t.api('GET', '/api/memory-snapshots/shared')).body.snapshots;
  assert.deepEqual(again[0].files, ['facts.md']);
  const files = await readdir(path.join(t.home, 'memory', 'shared'));
  assert.deepEqual(files.sort(), ['a.md', 'b.md']);
});

test('a provider failure during consolidate is a 500 with the provider\'s sentence, and nothing changes', async () => {
  model.script({ error: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
  const res = await t.api('POST', '/api/memory/consolidate', { scope: 'shared' });
  assert.equal(res.status, 500);
  assert.match(res.body.error, /Incorrect API key provided|401/);
  assert.equal((await t.api('GET', '/api/memory/shared/a.md')).body.content, 'fact one\n');
  assert.equal((await t.api('POST', '/api/memory/consolidate', { scope: 'empty-scope' })).status, 400);
});

test('a subagent\'s calls gate under the parent\'s policy: its prompt belongs to the parent run and session', async () => {
  await t.api('PUT', '/api/agents/chief', { description: 'Chief', system: 'Chief.', tools: ['delegate'] });
  await t.api('PUT', '/api/agents/sheller', { description: 'Runs commands', system: 'Sheller.', tools: ['run_shell'] });
  model.script(
    { toolCalls: [{ name: 'delegate', args: { agent: 'sheller', task: 'say hi' } }] },
    { toolCalls: [{ name: 'run_shell', args: { command: 'echo hi-from-sub' }, id: 'sub-call-1' }] },
    { text: 'said hi' },
    { text: 'chief done' },
  );
  const started = await begin('s-gate', 'go', 'chief', { permissionMode: 'ask' });
  const end = await allowPromptAndEnd(started.runId, (asked) => assert.equal(asked.tool, 'run_shell'));
  const shell = results(end.runId!, 'run_shell')[0];
  assert.equal(shell.ok, true);
  assert.match(String(shell.result), /hi-from-sub/);

  // With the session in allow mode, the same subagent call runs without a prompt.
  model.script(
    { toolCalls: [{ name: 'delegate', args: { agent: 'sheller', task: 'again' } }] },
    { toolCalls: [{ name: 'run_shell', args: { command: 'echo again' } }] },
    { text: 'ok' },
    { text: 'done' },
  );
  const started2 = await begin('s-gate', 'again', 'chief', { permissionMode: 'allow' });
  const end2 = await ended(started2.runId);
  assert.equal(end2.kind, 'run.completed');
  assert.ok(!events.events.some((e) => e.kind === 'permission.requested' && e.runId === started2.runId));
  assert.match(String(results(end2.runId!, 'run_shell')[0].result), /again/);
});

test('a subagent\'s call ids never repeat its parent\'s within the run, so a prompt resolves by {runId, callId} unambiguously', async () => {
  await t.api('PUT', '/api/agents/twin-parent', { description: 'Parent', system: 'Parent.', tools: ['delegate', 'set_plan'] });
  await t.api('PUT', '/api/agents/twin-child', { description: 'Child', system: 'Child.', tools: ['run_shell'] });
  const first = model.requests.length;
  // Both models pick the same id, as a local model numbering its calls from zero does.
  model.script(
    { toolCalls: [{ name: 'delegate', args: { agent: 'twin-child', task: 'echo' }, id: 'call_0' }] },
    { toolCalls: [{ name: 'run_shell', args: { command: 'echo twin-ok' }, id: 'call_0' }] },
    { text: 'child done' },
    { toolCalls: [{ name: 'set_plan', args: { steps: [{ text: 'x', status: 'done' }] }, id: 'call_0' }] },
    { text: 'parent done' },
  );
  const started = await begin('s-twin', 'go', 'twin-parent', { permissionMode: 'ask' });
  const end = await allowPromptAndEnd(started.runId, (asked) => assert.equal(asked.callId, 'call_0/call_0'));
  const calls = events.events.filter((e) => e.runId === end.runId && e.kind === 'tool.call');
  assert.deepEqual(calls.map((e) => [e.tool, e.callId]), [['delegate', 'call_0'], ['run_shell', 'call_0/call_0'], ['set_plan', 'call_0']]);
  assert.match(String(results(end.runId!, 'run_shell')[0].result), /twin-ok/);
  // The child's model got its own id back with the result.
  const childResult = model.requests[first + 2].body.messages.find((m: { role: string }) => m.role === 'tool');
  assert.equal(childResult.tool_call_id, 'call_0');
});

test('delegate names the agents that exist when asked for one that does not', async () => {
  const out = await t.engine.tools.call(
    { callId: 'd1', name: 'delegate', args: { agent: 'nobody', task: 'x' } },
    { signal: new AbortController().signal, emit: () => undefined, attended: false },
  );
  assert.equal(out.isError, true);
  assert.match(out.text, /there is no agent "nobody"; the agents are .*planner/);
});
