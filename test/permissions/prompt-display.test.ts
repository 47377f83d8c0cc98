/**
 * Prompts show what will run (issue 26): a tool that writes no display of its own (an MCP tool, the
 * `vault` tool) shows its masked arguments in `permission.requested` and GET /api/permissions/pending;
 * the vault tool is keyed by command, so "always" on a read never allows a write.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mcpTool } from '../../src/capabilities/mcp/tools.js';
import type { EventCollector } from '../support/events.js';
import type { TestEngine } from '../support/engine.js';
import { requested, startGateEngine } from './gate-support.js';

let t: TestEngine;
let events: EventCollector;
let close: () => Promise<void>;

before(async () => {
  const tool = mcpTool('echo', { name: 'say', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }, 'echo_say', () => undefined);
  ({ t, events, close } = await startGateEngine(tool));
});
after(() => close());

let seq = 0;
function call(name: string, args: Record<string, unknown>) {
  const run = t.engine.runs.start({ source: 'test' });
  const callId = `display-${++seq}`;
  const outcome = t.engine.tools.call(
    { callId, name, args },
    { signal: run.signal, emit: run.emit, runId: run.id, attended: true },
    { allowlist: new Set([name]) },
  );
  return { run, callId, outcome };
}

test('an MCP tool prompt shows its masked arguments, in the event and in the pending list', async () => {
  const c = call('echo_say', { message: 'rm -rf / please', token: 'sk-ant-abcdefghijklmnopqrstuvwx' });
  const ev = await events.waitFor(requested(c.callId));
  assert.equal(ev.key, 'echo_say');
  assert.match(String(ev.display), /rm -rf \/ please/);
  assert.ok(!String(ev.display).includes('abcdefghijklmnop'), `display leaked a secret: ${ev.display}`);
  const pending = await t.api('GET', '/api/permissions/pending');
  const shown = (pending.body.pending ?? pending.body).find((p: { callId: string }) => p.callId === c.callId);
  assert.match(shown.display, /rm -rf \/ please/);
  await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
  await c.outcome;
  await c.run.finish('completed');
});

test('the vault tool is keyed by command: always on a search never allows an append_log', async () => {
  const search = call('vault', { command: 'search', query: 'kettle' });
  const ev = await events.waitFor(requested(search.callId));
  assert.equal(ev.key, 'vault(search)');
  assert.match(String(ev.display), /kettle/);
  const res = await t.api('POST', '/api/permissions/resolve', { runId: search.run.id, callId: search.callId, decision: 'allow', scope: 'always' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await search.outcome;
  const rules = (await t.api('GET', '/api/permissions')).body.rules;
  assert.deepEqual(rules[0], { key: 'vault(search)', decision: 'allow' });

  // A second search runs without a prompt ...
  const again = call('vault', { command: 'search', query: 'tea' });
  await again.outcome;
  assert.ok(!events.events.some(requested(again.callId)));

  // ... but a write asks, and shows what it would write.
  const write = call('vault', { command: 'append_log', note: 'Alpha', entry: 'overwrote everything' });
  const wev = await events.waitFor(requested(write.callId));
  assert.equal(wev.key, 'vault(append_log)');
  assert.match(String(wev.display), /overwrote everything/);
  await t.api('POST', '/api/permissions/resolve', { runId: write.run.id, callId: write.callId, decision: 'deny' });
  assert.equal((await write.outcome).isError, true);
  for (const r of [search.run, again.run, write.run]) await r.finish('completed');
});
