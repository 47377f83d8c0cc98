/**
 * A dashboard definition a model wrote (the design route) never outranks its author: its refresh
 * runs unattended, so a tool call that would have needed a person's approval fails with the
 * authorship sentence instead of running. A person's PUT of the same definition makes it theirs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TestClock } from '../support/clock.js';
import { startDashboards, toolResult, type DashHarness } from './harness.js';

let h: DashHarness;
const clock = new TestClock(Date.UTC(2026, 0, 5, 8, 0, 0));
before(async () => {
  h = await startDashboards({ clock });
});
after(async () => h.close());

test('a refresh of a model-designed definition is gated as the model; a person saving it makes it theirs', async () => {
  const victim = path.join(h.t.home, 'workspace', 'victim.txt');
  await h.workspaceFile('victim.txt', 'keep me');
  const designed = { name: 'Disk', layout: 1, refresh: '15m', tools: ['read_file', 'delete_file'], slots: [{ id: 'n', title: 'N', type: 'stat' }], prompt: 'count files' };
  h.model.script({ text: JSON.stringify(designed) });
  const d = await h.t.api('POST', '/api/dashboards/design', { description: 'a dashboard that counts files every 15 minutes', id: 'disk' });
  assert.equal(d.status, 200, JSON.stringify(d.body));

  // The refresh fires; the model's build tries to delete a file (a delete asks a person, and nobody watches).
  h.model.script({ toolCalls: [{ id: 'w1', name: 'delete_file', args: { path: 'victim.txt' } }] }, { text: 'done' });
  const asked = h.model.requests.length;
  clock.advance(15 * 60_000);
  const started = await h.events.waitFor((e) => e.kind === 'dashboard.build.started' && e.dashboard === 'disk' && e.reason === 'refresh');
  await h.ended(started.runId!);
  const reply = toolResult(h.model.requests[asked + 1].body, 'w1');
  assert.match(reply, /a model wrote dashboard "disk"; delete_file/);
  assert.equal(existsSync(victim), true, 'the refused delete did not happen');

  // A person saves the definition through the route that shows it: theirs now, and the next refresh is not gated as the model.
  assert.equal((await h.t.api('PUT', '/api/dashboards/disk', designed)).status, 200);
  h.model.script({ toolCalls: [{ id: 'w2', name: 'delete_file', args: { path: 'victim.txt' } }] }, { text: 'done' });
  const asked2 = h.model.requests.length;
  clock.advance(15 * 60_000);
  const again = await h.events.waitFor((e) => e.kind === 'dashboard.build.started' && e.dashboard === 'disk' && e.runId !== started.runId);
  await h.ended(again.runId!);
  assert.doesNotMatch(toolResult(h.model.requests[asked2 + 1].body, 'w2'), /a model wrote/);
});
