/**
 * Issue 26: GET /api/workflows shows each trigger's state (active, a cron trigger's next fire) and
 * the last run with why it failed; POST /api/cron/preview answers local times for a time zone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestClock } from '../support/clock.js';
import { startWf, wf, type WfHarness } from './harness.js';

const T0 = Date.parse('2026-03-02T08:30:00Z');
let h: WfHarness;
before(async () => {
  h = await startWf({ clock: new TestClock(T0) });
});
after(() => h.close());

test('cron/preview answers the next fires in UTC and as wall-clock times of the zone', async () => {
  const res = await h.t.api('POST', '/api/cron/preview', { expr: '0 9 * * *', timezone: 'Europe/Berlin' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.next, ['2026-03-03T08:00:00.000Z', '2026-03-04T08:00:00.000Z', '2026-03-05T08:00:00.000Z']);
  assert.deepEqual(res.body.nextLocal, ['2026-03-03T09:00:00+01:00', '2026-03-04T09:00:00+01:00', '2026-03-05T09:00:00+01:00']);
  assert.equal(res.body.timezone, 'Europe/Berlin');
  // Across a daylight-saving change the offset follows the zone.
  const summer = await h.t.api('POST', '/api/cron/preview', { expr: '0 9 30 3 *', timezone: 'Europe/Berlin' });
  assert.equal(summer.body.nextLocal[0], '2026-03-30T09:00:00+02:00');
});

test('GET /api/workflows shows whether each trigger is active, the next cron fire and the last run', async () => {
  await h.save(wf('nightly', [{ id: 'cron', type: 'trigger.cron', config: { expr: '0 3 * * *', timezone: 'UTC' } }, { id: 'hook', type: 'trigger.webhook', config: { secret: 's', paused: true } }, { id: 'go', type: 'trigger.manual' }, { id: 'boom', type: 'command', config: { command: 'exit 3' } }], [{ from: 'go', to: 'boom' }]));
  await h.save(wf('off', [{ id: 'go', type: 'trigger.manual' }], [], { disabled: true }));
  assert.equal((await h.t.api('POST', '/api/permissions/rule', { key: 'run_shell', decision: 'allow' })).status, 200);
  const runId = await h.run('nightly');
  assert.equal((await h.end(runId)).kind, 'run.failed');

  const list = (await h.t.api('GET', '/api/workflows')).body as Array<Record<string, any>>;
  const nightly = list.find((w) => w.id === 'nightly')!;
  assert.deepEqual(nightly.triggers, [
    { nodeId: 'cron', type: 'trigger.cron', active: true, next: '2026-03-03T03:00:00.000Z' },
    { nodeId: 'hook', type: 'trigger.webhook', active: false, reason: 'the trigger is paused' },
    { nodeId: 'go', type: 'trigger.manual', active: true },
  ]);
  assert.equal(nightly.lastRun.runId, runId);
  assert.equal(nightly.lastRun.status, 'failed');
  assert.equal(nightly.lastRun.source, 'manual');
  assert.match(nightly.lastRun.error, /exited with code 3/);
  const off = list.find((w) => w.id === 'off')!;
  assert.deepEqual(off.triggers, [{ nodeId: 'go', type: 'trigger.manual', active: false, reason: 'the workflow is disabled' }]);
  assert.equal(off.lastRun, null);
});
