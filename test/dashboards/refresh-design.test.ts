/**
 * Refresh on a test clock (an interval and a cron expression, through the workflows' clock and
 * parser), pause, a refresh storm that never runs two builds of one dashboard, and the design route
 * (one model pass, one retry with the checker's sentences).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestClock } from '../support/clock.js';
import { startDashboards, type DashHarness } from './harness.js';

let h: DashHarness;
const clock = new TestClock(Date.UTC(2026, 0, 5, 8, 0, 0));
before(async () => {
  h = await startDashboards({ clock });
});
after(async () => h.close());

const def = (extra: Record<string, unknown> = {}) => ({ name: 'Tick', layout: 1, slots: [{ id: 'n', title: 'N', type: 'stat' }], prompt: 'count', ...extra });
const publishStep = { toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'n', type: 'stat', data: { value: 1 } }] } }] };
const dashboardRuns = (id: string) => h.events.events.filter((e) => e.kind === 'dashboard.build.started' && e.dashboard === id);

test('an interval refresh builds on the clock; paused skips it; a storm never runs two builds at once', async () => {
  assert.equal((await h.t.api('PUT', '/api/dashboards/tick', def({ refresh: '15m' }))).status, 200);
  assert.deepEqual(h.t.engine.dashboards.refreshArmed(), ['tick']);
  h.model.script(publishStep, { text: 'ok' });
  clock.advance(14 * 60_000);
  assert.equal(dashboardRuns('tick').length, 0, 'not before its time');
  clock.advance(60_000);
  const first = await h.events.waitFor((e) => e.kind === 'dashboard.build.started' && e.dashboard === 'tick');
  assert.equal(first.reason, 'refresh');
  assert.equal((await h.ended(first.runId!)).kind, 'run.completed');

  // A build that hangs, and a storm of fires meanwhile: each is skipped, none starts a second build.
  h.model.script({ hang: true });
  const asked = h.model.requests.length;
  clock.advance(15 * 60_000);
  const hanging = await h.events.waitFor((e) => e.kind === 'dashboard.build.started' && e.dashboard === 'tick' && e.runId !== first.runId);
  await h.model.waitForRequests(asked + 1);
  for (let i = 0; i < 5; i++) clock.advance(15 * 60_000);
  await h.events.waitFor((e) => e.kind === 'dashboard.build.skipped' && e.dashboard === 'tick');
  assert.equal(dashboardRuns('tick').length, 2, 'one build at a time');
  assert.equal(h.events.events.filter((e) => e.kind === 'dashboard.build.skipped' && e.dashboard === 'tick').length, 5);
  assert.equal((await h.t.api('POST', `/api/runs/${hanging.runId}/stop`)).status, 202);
  await h.ended(hanging.runId!);

  // Paused: disarmed; the schedule fires nothing, a manual build still runs.
  assert.equal((await h.t.api('PUT', '/api/dashboards/tick', def({ refresh: '15m', paused: true }))).status, 200);
  assert.deepEqual(h.t.engine.dashboards.refreshArmed(), []);
  clock.advance(60 * 60_000);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(dashboardRuns('tick').length, 2);
  assert.equal((await h.t.api('GET', '/api/dashboards')).body.dashboards.find((d: any) => d.id === 'tick').paused, true);
});

test('a cron refresh fires at its minute through the workflows\' cron parser', async () => {
  const now = clock.now();
  const nextHour = Math.ceil((now + 1) / 3_600_000) * 3_600_000;
  assert.equal((await h.t.api('PUT', '/api/dashboards/hourly', def({ refresh: '0 * * * *' }))).status, 200);
  h.model.script(publishStep, { text: 'ok' });
  clock.advance(nextHour - now - 1000);
  assert.equal(dashboardRuns('hourly').length, 0);
  clock.advance(1000);
  const started = await h.events.waitFor((e) => e.kind === 'dashboard.build.started' && e.dashboard === 'hourly');
  assert.equal((await h.ended(started.runId!)).kind, 'run.completed');
  assert.equal((await h.t.api('DELETE', '/api/dashboards/hourly')).status, 200);
  assert.ok(!h.t.engine.dashboards.refreshArmed().includes('hourly'));
});

test('design: a refused answer gets one retry with the sentences; the definition is saved and returned', async () => {
  const before = h.model.requests.length;
  h.model.script(
    { text: '```json\n{"name": "Team", "layout": 0, "slots": [], "prompt": "p"}\n```' },
    { text: JSON.stringify({ name: 'Team health', icon: '🩺', layout: 2, refresh: '1h', slots: [{ id: 'open', title: 'Open items', type: 'stat' }], prompt: 'Count open items.' }) },
  );
  const res = await h.t.api('POST', '/api/dashboards/design', { description: 'how my team is doing' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.id, 'team-health');
  assert.equal(res.body.definition.refresh, '1h');
  const retry = h.model.requests[before + 1].body.messages.find((m: any) => m.role === 'user').content;
  assert.match(retry, /Your answer was refused:\n- layout must be the column count, an integer from 1 to 12 \(got 0\)\n- slots must be a non-empty array/);
  assert.equal((await h.t.api('GET', '/api/dashboards/team-health')).body.definition.name, 'Team health');

  // `id` changes an existing one; two refusals save nothing and say why.
  h.model.script({ text: 'no idea' }, { text: '{"name": 1}' });
  const bad = await h.t.api('POST', '/api/dashboards/design', { description: 'make it weekly', id: 'team-health' });
  assert.equal(bad.status, 502);
  assert.match(bad.body.error, /^the model's dashboard definition was refused twice; nothing was saved: unknown field|^the model's dashboard definition was refused twice; nothing was saved: name is required/);
  assert.equal((await h.t.api('GET', '/api/dashboards/team-health')).body.definition.refresh, '1h');
  h.model.script({ text: JSON.stringify({ name: 'Team health', layout: 2, refresh: '0 9 * * 1', slots: [{ id: 'open', title: 'Open items', type: 'stat' }], prompt: 'Count open items weekly.' }) });
  const changed = await h.t.api('POST', '/api/dashboards/design', { description: 'make it weekly', id: 'team-health' });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal((await h.t.api('GET', '/api/dashboards/team-health')).body.definition.refresh, '0 9 * * 1');
  assert.match(h.model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'user').content, /^Change this dashboard as asked\.\nNow: \{"name":"Team health"/);
});
