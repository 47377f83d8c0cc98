/**
 * The permission gate end to end: a real engine, a real tool call waiting in the background,
 * the prompt seen on the /events socket and answered over HTTP.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { defineTool, type PermissionRequest } from '../../src/tools/types.js';
import type { EventCollector } from '../support/events.js';
import type { TestEngine } from '../support/engine.js';
import { backgroundCall, requested, startGateEngine } from './gate-support.js';

let t: TestEngine;
let events: EventCollector;
let ran: string[] = [];
let rulesWhenRun = '';
let close: () => Promise<void>;

before(async () => {
  ({ t, events, close } = await startGateEngine(
    defineTool({
      name: 'test_code',
      group: 'test',
      description: 'Runs arbitrary code (test stand-in).',
      parameters: { type: 'object', properties: { note: { type: 'string' } } },
      permission: 'code',
      run: async (args: { note?: string }) => {
        ran.push(`code:${args.note ?? ''}`);
        return 'ran';
      },
    }),
    defineTool({
      name: 'test_shellish',
      group: 'test',
      description: 'Derives shell-style keys from its arguments (test stand-in for run_shell).',
      parameters: { type: 'object', properties: { segments: { type: 'array', items: { type: 'string' } }, force: { type: 'string' } }, required: ['segments'] },
      permission: (args: { segments: string[]; force?: string }): PermissionRequest => {
        const keys = args.segments.map((s) => `test_shellish(${s}:*)`);
        const program = args.segments[0].split(' ')[0];
        return {
          class: 'code',
          key: keys[0],
          keys,
          broaderKey: `test_shellish(${program}:*)`,
          display: args.segments.join(' && ') + ' --token sk-ant-abcdefghijklmnopqrstuv',
          forcePrompt: args.force,
        };
      },
      run: async (args: { segments: string[] }) => {
        ran.push(`shell:${args.segments.join('&&')}`);
        // What the rules file holds when the call runs: `always` must have landed before this.
        rulesWhenRun = await readFile(path.join(t.home, 'permissions.json'), 'utf8').catch(() => '');
        return 'ran';
      },
    }),
    defineTool({
      name: 'test_delete',
      group: 'test',
      description: 'Deletes something (test stand-in).',
      parameters: { type: 'object', properties: {} },
      permission: 'delete',
      run: async () => 'deleted',
    }),
    defineTool({
      name: 'test_other',
      group: 'test',
      description: 'Reads something harmless.',
      parameters: { type: 'object', properties: {} },
      permission: 'other',
      run: async () => 'read',
    }),
  ));
});

after(() => close());

const startCall = (name: string, args: Record<string, unknown>, opts?: { attended?: boolean; sessionId?: string }) => backgroundCall(t, name, args, opts);

async function rulesOnDisk(): Promise<Array<{ key: string; decision: string }>> {
  const text = await readFile(path.join(t.home, 'permissions.json'), 'utf8');
  return JSON.parse(text).rules;
}

test('a prompt answered once allows this call only and persists nothing', async () => {
  ran = [];
  const { run, callId, outcome } = startCall('test_code', { note: 'a' });
  const ev = await events.waitFor(requested(callId));
  assert.equal(ev.runId, run.id);
  assert.equal(ev.tool, 'test_code');
  assert.equal(ev.class, 'code');
  assert.equal(ev.key, 'test_code');
  assert.equal(t.engine.permissions.gate.pending().length, 1);

  const res = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId, decision: 'allow', scope: 'once' });
  assert.equal(res.status, 200);
  const out = await outcome;
  assert.equal(out.isError, false, out.text);
  assert.deepEqual(ran, ['code:a']);
  const resolved = await events.waitFor((e) => e.kind === 'permission.resolved' && e.callId === callId);
  assert.equal(resolved.decision, 'allow');
  assert.equal(resolved.scope, 'once');

  // Answering again is a 404 with a sentence, never a silent 200.
  const again = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId, decision: 'allow', scope: 'once' });
  assert.equal(again.status, 404);
  assert.match(again.body.error, /no permission prompt is waiting/);
  const rules = await t.api('GET', '/api/permissions');
  assert.deepEqual(rules.body.rules, []);

  // The next call prompts again.
  const second = startCall('test_code', { note: 'b' });
  await events.waitFor(requested(second.callId));
  await t.api('POST', '/api/permissions/resolve', { runId: second.run.id, callId: second.callId, decision: 'deny' });
  assert.equal((await second.outcome).isError, true);
  await run.finish('completed');
  await second.run.finish('completed');
});

test('a prompt answered deny refuses the call with a teaching sentence', async () => {
  ran = [];
  const { run, callId, outcome } = startCall('test_shellish', { segments: ['rm build'] });
  await events.waitFor(requested(callId));
  const res = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId, decision: 'deny', scope: 'once' });
  assert.equal(res.status, 200);
  const out = await outcome;
  assert.equal(out.isError, true);
  assert.match(out.text, /Permission denied for test_shellish\(rm build:\*\) by the user; do not retry the same call/);
  assert.deepEqual(ran, []);
  const resolved = await events.waitFor((e) => e.kind === 'permission.resolved' && e.callId === callId);
  assert.equal(resolved.decision, 'deny');
  await run.finish('completed');
});

test('always persists the narrow key first, for every unmatched segment, before unblocking; the display is masked', async () => {
  ran = [];
  const { run, callId, outcome } = startCall('test_shellish', { segments: ['git status', 'npm test'] });
  const ev = await events.waitFor(requested(callId));
  assert.equal(ev.key, 'test_shellish(git status:*)');
  assert.equal(ev.broaderKey, 'test_shellish(git:*)');
  assert.deepEqual(ev.keys, ['test_shellish(git status:*)', 'test_shellish(npm test:*)']);
  assert.ok(!String(ev.display).includes('abcdefghijklmnop'), `display leaked a secret: ${ev.display}`);
  assert.match(String(ev.display), /git status && npm test/);

  // The client says which keys its card listed (here: every key the prompt gave).
  const res = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId, decision: 'allow', scope: 'always', keys: ev.keys });
  assert.equal(res.status, 200);
  // Persisted before the call was unblocked: the file held both rules when the call ran.
  const out = await outcome;
  assert.equal(out.isError, false, out.text);
  assert.deepEqual(JSON.parse(rulesWhenRun).rules.slice(0, 2).map((r: { key: string }) => r.key), ['test_shellish(git status:*)', 'test_shellish(npm test:*)']);
  const onDisk = await rulesOnDisk();
  assert.deepEqual(onDisk.slice(0, 2), [
    { key: 'test_shellish(git status:*)', decision: 'allow' },
    { key: 'test_shellish(npm test:*)', decision: 'allow' },
  ]);

  // Now the same command runs without a prompt; a new subcommand still prompts.
  const again = startCall('test_shellish', { segments: ['git status', 'npm test'] });
  assert.equal((await again.outcome).isError, false);
  assert.ok(!events.events.some(requested(again.callId)));
  const other = startCall('test_shellish', { segments: ['git push'] });
  const ev2 = await events.waitFor(requested(other.callId));
  assert.equal(ev2.key, 'test_shellish(git push:*)');
  // Choosing the broader key persists the program-level rule.
  await t.api('POST', '/api/permissions/resolve', { runId: other.run.id, callId: other.callId, decision: 'allow', scope: 'always', key: 'test_shellish(git:*)' });
  assert.equal((await other.outcome).isError, false);
  assert.deepEqual((await rulesOnDisk())[0], { key: 'test_shellish(git:*)', decision: 'allow' });
  const covered = startCall('test_shellish', { segments: ['git log'] });
  assert.equal((await covered.outcome).isError, false);

  // Only unmatched segments are offered and persisted.
  const mixed = startCall('test_shellish', { segments: ['git diff', 'make build'] });
  const ev3 = await events.waitFor(requested(mixed.callId));
  assert.equal(ev3.key, 'test_shellish(make build:*)');
  assert.equal(ev3.broaderKey, 'test_shellish(make:*)');
  await t.api('POST', '/api/permissions/resolve', { runId: mixed.run.id, callId: mixed.callId, decision: 'allow', scope: 'once' });
  assert.equal((await mixed.outcome).isError, false);

  // A forced prompt asks even though every key is allowed.
  const forced = startCall('test_shellish', { segments: ['git status'], force: 'the command runs a command substitution' });
  const ev4 = await events.waitFor(requested(forced.callId));
  assert.equal(ev4.reason, 'the command runs a command substitution');
  await t.api('POST', '/api/permissions/resolve', { runId: forced.run.id, callId: forced.callId, decision: 'allow' });
  assert.equal((await forced.outcome).isError, false);

  // A newer deny on the program overrides the older allows, and one denied segment denies the whole call.
  await t.api('POST', '/api/permissions/rule', { key: 'test_shellish(npm:*)', decision: 'deny' });
  const denied = startCall('test_shellish', { segments: ['git status', 'npm test'] });
  const dout = await denied.outcome;
  assert.equal(dout.isError, true);
  assert.match(dout.text, /Permission denied for test_shellish\(npm test:\*\) by a saved rule/);
  const dev = await events.waitFor((e) => e.kind === 'permission.denied' && e.callId === denied.callId);
  assert.equal(dev.runId, denied.run.id);
  for (const r of [run, again.run, other.run, covered.run, mixed.run, forced.run, denied.run]) await r.finish('completed');
});

test('the unattended default decides code calls with nobody watching; delete and other are allowed', async () => {
  const code = startCall('test_code', {}, { attended: false });
  const out = await code.outcome;
  assert.equal(out.isError, true);
  assert.match(out.text, /nobody is watching this run and the unattended default is deny/);
  assert.ok(!events.events.some(requested(code.callId)));

  const del = startCall('test_delete', {}, { attended: false });
  assert.equal((await del.outcome).isError, false);
  const other = startCall('test_other', {}, { attended: true });
  assert.equal((await other.outcome).isError, false);

  const put = await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' });
  assert.equal(put.status, 200);
  const code2 = startCall('test_code', {}, { attended: false });
  assert.equal((await code2.outcome).isError, false);
  // A forced prompt with nobody watching takes the unattended default too.
  const forcedAllowed = startCall('test_shellish', { segments: ['git status'], force: 'eval' }, { attended: false });
  assert.equal((await forcedAllowed.outcome).isError, false);
  await t.api('PUT', '/api/permissions/defaults', { unattended: 'deny' });
  const forcedDenied = startCall('test_shellish', { segments: ['git status'], force: 'eval' }, { attended: false });
  assert.match((await forcedDenied.outcome).text, /unattended default is deny/);
  for (const r of [code.run, del.run, other.run, code2.run, forcedAllowed.run, forcedDenied.run]) await r.finish('completed');
});

test('attended delete prompts; a bare tool-name rule allows it', async () => {
  const del = startCall('test_delete', {});
  await events.waitFor(requested(del.callId));
  await t.api('POST', '/api/permissions/resolve', { runId: del.run.id, callId: del.callId, decision: 'allow', scope: 'always' });
  assert.equal((await del.outcome).isError, false);
  assert.deepEqual((await t.api('GET', '/api/permissions')).body.rules[0], { key: 'test_delete', decision: 'allow' });
  const del2 = startCall('test_delete', {});
  assert.equal((await del2.outcome).isError, false);
  await t.api('DELETE', '/api/permissions/rule?key=test_delete');
  await del.run.finish('completed');
  await del2.run.finish('completed');
});

test('a run stopped while its call waits for permission releases it, denied as stopped', async () => {
  ran = [];
  const { run, callId, outcome } = startCall('test_code', { note: 'never' });
  await events.waitFor(requested(callId));
  const stop = await t.api('POST', `/api/runs/${run.id}/stop`);
  assert.equal(stop.status, 202);
  const out = await outcome;
  assert.equal(out.isError, true);
  assert.match(out.text, /stopped/);
  assert.deepEqual(ran, []);
  const denied = await events.waitFor((e) => e.kind === 'permission.denied' && e.callId === callId);
  assert.equal(denied.reason, 'stopped');
  const late = await t.api('POST', '/api/permissions/resolve', { runId: run.id, callId, decision: 'allow' });
  assert.equal(late.status, 404);
  assert.equal(t.engine.permissions.gate.pending().length, 0);
  await run.finish('stopped');
});

test('switching a chat session to allow releases its blocked prompt; allow mode skips prompts', async () => {
  const modes = new Map<string, 'ask' | 'allow'>();
  const gate = t.engine.permissions.gate;
  gate.setModeLookup((id) => modes.get(id));
  try {
    modes.set('s1', 'ask');
    modes.set('s2', 'ask');
    const a = startCall('test_code', { note: 's1' }, { sessionId: 's1' });
    const b = startCall('test_code', { note: 's2' }, { sessionId: 's2' });
    await events.waitFor(requested(a.callId));
    await events.waitFor(requested(b.callId));
    gate.releaseSession('s1'); // still `ask`: nothing moves
    assert.equal(gate.pending().length, 2);
    modes.set('s1', 'allow');
    gate.releaseSession('s1');
    assert.equal((await a.outcome).isError, false);
    const rel = await events.waitFor((e) => e.kind === 'permission.resolved' && e.callId === a.callId);
    assert.equal(rel.by, 'mode');
    assert.deepEqual(gate.pending().map((p) => p.callId), [b.callId]);
    // In allow mode a forced prompt is allowed too.
    const forced = startCall('test_shellish', { segments: ['curl x'], force: 'command substitution' }, { sessionId: 's1' });
    assert.equal((await forced.outcome).isError, false);
    // A deny rule still wins over allow mode.
    await t.api('POST', '/api/permissions/rule', { key: 'test_shellish(rm:*)', decision: 'deny' });
    const denied = startCall('test_shellish', { segments: ['rm x'] }, { sessionId: 's1' });
    assert.equal((await denied.outcome).isError, true);
    await t.api('POST', '/api/permissions/resolve', { runId: b.run.id, callId: b.callId, decision: 'deny' });
    assert.equal((await b.outcome).isError, true);
    for (const r of [a.run, b.run, forced.run, denied.run]) await r.finish('completed');
  } finally {
    gate.setModeLookup(() => undefined);
  }
});
