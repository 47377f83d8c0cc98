/**
 * Live output (issue 26): a running run_shell call and a running `command` node emit `shell.output`
 * events (run id, call id) as the output arrives, throttled, masked like the final result, before
 * the call ends.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let events: EventCollector;

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell', decision: 'allow' })).status, 200);
});
after(async () => {
  events.close();
  await t.close();
});

const SLOW = 'for i in 1 2 3 4; do echo line-$i; sleep 0.5; done; echo "token sk-ant-abcdefghijklmnopqrstuvwxyz0123"';

test('run_shell: output arrives as shell.output events while the command runs, masked, few per second', async () => {
  const run = t.engine.runs.start({ source: 'test' });
  const outcome = t.engine.tools.call({ callId: 'live-1', name: 'run_shell', args: { command: SLOW } }, { signal: run.signal, emit: run.emit, runId: run.id, callId: 'live-1', attended: true } as never);
  const first = await events.waitFor((e) => e.kind === 'shell.output' && e.runId === run.id && /line-1/.test(String(e.text)), 20_000);
  assert.equal(first.callId, 'live-1');
  // The first piece went out while the command still ran: no result yet.
  assert.ok(!events.events.some((e) => e.kind === 'tool.result' && e.callId === 'live-1'), 'live output came only with the result');
  const out = await outcome;
  assert.equal(out.isError, false, out.text);
  await run.finish('completed');
  const live = events.events.filter((e: EngineEvent) => e.kind === 'shell.output' && e.runId === run.id);
  const all = live.map((e) => String(e.text)).join('');
  assert.match(all, /line-1\nline-2\nline-3\nline-4\ntoken /);
  assert.ok(!all.includes('abcdefghijklmnop'), `a secret reached live output: ${all}`);
  assert.ok(live.length >= 2 && live.length <= 12, `${live.length} events for a 2 s command`);
  // Not kept in the run's log: the result holds the output.
  const logged = (await t.api('GET', `/api/runs/${run.id}/events`)).body.events;
  assert.ok(!logged.some((e: EngineEvent) => e.kind === 'shell.output'));
});

test('a command node streams its output with the run id and node:<id> as the call id', async () => {
  const doc = { id: 'slow', formatVersion: 2, group: null, nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'build', type: 'command', config: { command: 'echo compiling; sleep 1; echo done' } }], edges: [{ from: 'start', to: 'build' }] };
  assert.equal((await t.api('PUT', '/api/workflows/slow', doc)).status, 200);
  const started = await t.api('POST', '/api/runs/slow', {});
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const runId = started.body.runId;
  const first = await events.waitFor((e) => e.kind === 'shell.output' && e.runId === runId && /compiling/.test(String(e.text)), 20_000);
  assert.equal(first.callId, 'node:build');
  assert.equal(first.nodeId, 'build');
  const end = await events.waitFor((e) => e.runId === runId && /^run\.(completed|failed)$/.test(e.kind), 20_000);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
});
