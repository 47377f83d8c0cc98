/** Triggers: manual refusals, webhooks exactly as seed §4.5 (both secret forms, 8 KB, JSON), a flood, cron on a test clock, missed fires, the preview. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestClock } from '../support/clock.js';
import { startWf, wf, type WfHarness } from './harness.js';
import { tempDir } from '../support/engine.js';
import { rawRequest } from '../support/raw-http.js';

const T0 = Date.parse('2026-03-02T08:59:58Z');
let clock: TestClock;
let h: WfHarness;
before(async () => {
  clock = new TestClock(T0);
  h = await startWf({ clock });
});
after(() => h.close());

const hook = (route: string, body: string | object | undefined, headers: Record<string, string> = {}) =>
  fetch(h.t.url + route, {
    method: 'POST',
    headers: typeof body === 'object' ? { 'content-type': 'application/json', ...headers } : headers,
    body: typeof body === 'object' ? JSON.stringify(body) : body,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

test('manual runs: 404 unknown, 409 disabled, 409 paused trigger, 409 already running', async () => {
  assert.equal((await h.t.api('POST', '/api/runs/nope', {})).status, 404);
  await h.save(wf('off', [{ id: 'start', type: 'trigger.manual' }], [], { disabled: true }));
  const off = await h.t.api('POST', '/api/runs/off', {});
  assert.equal(off.status, 409);
  assert.match(off.body.error, /disabled/);
  await h.save(wf('paused', [{ id: 'start', type: 'trigger.webhook', config: { paused: true } }]));
  const paused = await h.t.api('POST', '/api/runs/paused', {});
  assert.equal(paused.status, 409);
  assert.match(paused.body.error, /trigger "start" .* is paused/);
  await h.save(wf('gated', [{ id: 'start', type: 'trigger.manual' }, { id: 'g', type: 'gate', config: { message: 'hold' } }], [{ from: 'start', to: 'g' }]));
  const runId = await h.run('gated');
  await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  const again = await h.t.api('POST', '/api/runs/gated', {});
  assert.equal(again.status, 409);
  assert.match(again.body.error, /already running/);
  assert.equal((await h.t.api('POST', `/api/runs/${runId}/stop`)).status, 202);
  assert.equal((await h.end(runId)).kind, 'run.stopped');
});

test('webhooks: secret by header or ?secret=, compared whole; the payload is the first 8 KB, JSON parsed; statuses as the seed says', async () => {
  await h.t.api('POST', '/api/secrets', { name: 'hook-secret', value: 's3cret-from-store' });
  await h.save(
    wf(
      'hooked',
      [
        { id: 'plain', type: 'trigger.webhook', config: { secret: 'open-sesame' } },
        { id: 'stored', type: 'trigger.webhook', config: { secret: '{{secret:hook-secret}}' } },
        { id: 'stop', type: 'trigger.webhook', config: { secret: 'x', paused: true } },
        { id: 'keep', type: 'state', config: { key: 'got', value: '{{trigger}}' } },
      ],
      [
        { from: 'plain', to: 'keep' },
        { from: 'stored', to: 'keep' },
      ],
    ),
  );
  assert.equal((await hook('/hooks/hooked', { a: 1 })).status, 403, 'no secret');
  assert.equal((await hook('/hooks/hooked', { a: 1 }, { 'x-engine-secret': 'open-sesam' })).status, 403, 'a prefix is not the secret');
  assert.equal((await hook('/hooks/hooked', { a: 1 }, { 'x-engine-secret': 'open-sesame!' })).status, 403, 'nor is a longer one');
  const byHeader = await hook('/hooks/hooked', { a: 1, deep: { b: [2] } }, { 'x-engine-secret': 'open-sesame' });
  assert.equal(byHeader.status, 202, JSON.stringify(byHeader.body));
  const e1 = await h.end(byHeader.body.runId);
  assert.equal(e1.kind, 'run.completed');
  const log1 = await h.log(byHeader.body.runId);
  assert.deepEqual(log1.find((e) => e.kind === 'state.updated' && e.key === 'got')?.value, { a: 1, deep: { b: [2] } }, 'JSON body parsed into a real value');
  assert.equal(log1.find((e) => e.kind === 'node.completed' && e.nodeId === 'plain')?.nodeId, 'plain', 'the first webhook trigger fired');

  const big = 'x'.repeat(20_000);
  const byQuery = await hook('/hooks/hooked/stored?secret=s3cret-from-store', big, { 'content-type': 'text/plain' });
  assert.equal(byQuery.status, 202, JSON.stringify(byQuery.body));
  await h.end(byQuery.body.runId);
  const got = (await h.log(byQuery.body.runId)).find((e) => e.kind === 'state.updated' && e.key === 'got')?.value as string;
  assert.equal(got.length, 8 * 1024, 'the first 8 KB of the body');
  assert.equal((await hook('/hooks/hooked/stored?secret=open-sesame', 'x')).status, 403, 'each trigger has its own secret');
  assert.equal((await hook('/hooks/hooked/stop', 'x', { 'x-engine-secret': 'x' })).status, 409);
  assert.equal((await hook('/hooks/hooked/nope', 'x')).status, 404);
  assert.equal((await hook('/hooks/hooked/plain/extra', 'x')).status, 404, 'too many segments');
  assert.equal((await hook('/hooks/nothing', 'x')).status, 404);
  assert.equal((await hook('/hooks/hooked', '{"broken', { 'content-type': 'application/json', 'x-engine-secret': 'open-sesame' })).status, 400);
  await writeFile(path.join(h.t.home, 'workflows', 'rotten.json'), '{nope');
  await h.t.engine.workflows.store.reloadAll();
  assert.equal((await hook('/hooks/rotten', 'x')).status, 400, 'a rejected file is 400 with the reason');
  const foreign = await rawRequest(h.t.engine.port, { method: 'POST', path: '/hooks/hooked', headers: { host: 'evil.example', 'x-engine-secret': 'open-sesame', 'content-type': 'text/plain' }, body: 'x' });
  assert.equal(foreign.status, 403, 'webhooks pass the host guard: ' + foreign.body);
  // The secret never lands in the run's log.
  assert.ok(!JSON.stringify(log1).includes('open-sesame'));
});

test('a webhook flood starts one run; the rest get 409 while it runs', async () => {
  await h.save(wf('flood', [{ id: 'hook', type: 'trigger.webhook', config: { secret: 'f' } }, { id: 'g', type: 'gate' }], [{ from: 'hook', to: 'g' }]));
  const answers = await Promise.all(Array.from({ length: 40 }, () => hook('/hooks/flood', { x: 1 }, { 'x-engine-secret': 'f' })));
  const accepted = answers.filter((a) => a.status === 202);
  assert.equal(accepted.length, 1, JSON.stringify(answers.map((a) => a.status)));
  assert.equal(answers.filter((a) => a.status === 409).length, 39);
  const runs = (await h.t.api('GET', '/api/runs')).body.runs.filter((r: any) => r.workflowId === 'flood');
  assert.equal(runs.length, 1);
  await h.t.api('POST', `/api/runs/${accepted[0].body.runId}/stop`);
  await h.end(accepted[0].body.runId);
});

test('cron fires on the test clock (seconds, time zone); a fire while running is skipped with trigger.skipped', async () => {
  await h.save(
    wf('ticker', [{ id: 'tick', type: 'trigger.cron', config: { expr: '*/10 * * * * *', timezone: 'Europe/Berlin' } }, { id: 'g', type: 'gate' }], [{ from: 'tick', to: 'g' }]),
  );
  const seq = h.events.events.at(-1)?.seq ?? 0;
  clock.advance(2_000); // 09:00:00 UTC: the first fire
  const started = await h.events.waitFor((e) => e.kind === 'run.started' && e.workflowId === 'ticker' && e.seq > seq);
  assert.equal(started.source, 'cron');
  const firstLog = await h.events.waitFor((e) => e.kind === 'state.updated' && e.runId === started.runId && e.key === 'trigger');
  assert.equal((firstLog.value as any).firedAt, '2026-03-02T09:00:00.000Z');
  await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === started.runId);
  clock.advance(10_000); // the next fire finds the run still waiting at its gate
  const skipped = await h.events.waitFor((e) => e.kind === 'trigger.skipped' && e.workflowId === 'ticker' && e.seq > seq);
  assert.equal(skipped.runId, undefined);
  assert.match(String(skipped.reason), /still running/);
  const runs = (await h.t.api('GET', '/api/runs')).body.runs.filter((r: any) => r.workflowId === 'ticker');
  assert.equal(runs.length, 1, 'a cron storm does not start a second run');
  await h.t.api('POST', `/api/runs/${started.runId}/stop`);
  await h.end(started.runId!);
  // Pausing the trigger disarms it.
  await h.save(wf('ticker', [{ id: 'tick', type: 'trigger.cron', config: { expr: '*/10 * * * * *', paused: true } }]));
  assert.ok(!h.t.engine.workflows.armedCron().includes('ticker:tick'));
});

test('POST /api/cron/preview: next three fires and a description; a bad expression is ok:false with 200', async () => {
  const ok = await h.t.api('POST', '/api/cron/preview', { expr: '0 9 * * 1-5', timezone: 'UTC' });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.ok, true);
  assert.deepEqual(ok.body.next, ['2026-03-03T09:00:00.000Z', '2026-03-04T09:00:00.000Z', '2026-03-05T09:00:00.000Z']);
  assert.match(ok.body.description, /09:00 on weekdays/);
  const secs = await h.t.api('POST', '/api/cron/preview', { expr: '*/15 * * * * *' });
  assert.equal(secs.body.next.length, 3);
  assert.match(secs.body.description, /every 15 seconds/);
  const bad = await h.t.api('POST', '/api/cron/preview', { expr: 'every tuesday' });
  assert.equal(bad.status, 200);
  assert.equal(bad.body.ok, false);
  assert.match(bad.body.error, /not a valid cron expression/);
  const tz = await h.t.api('POST', '/api/cron/preview', { expr: '0 9 * * *', timezone: 'Mars/Olympus' });
  assert.equal(tz.body.ok, false);
  assert.match(tz.body.error, /time zone "Mars\/Olympus" is not known/);
});

test('fires missed while the engine was down are skipped and reported once; catchUp runs once instead', async () => {
  const home = await tempDir();
  const c1 = new TestClock(Date.parse('2026-03-02T10:00:00Z'));
  let e = await startWf({ clock: c1, home });
  await e.save(wf('hourly', [{ id: 'h', type: 'trigger.cron', config: { expr: '0 * * * *' } }, { id: 's', type: 'state', config: { key: 'x', value: 1 } }], [{ from: 'h', to: 's' }]));
  await e.save(wf('catchup', [{ id: 'h', type: 'trigger.cron', config: { expr: '0 * * * *', catchUp: true } }, { id: 's', type: 'state', config: { key: 'x', value: 1 } }], [{ from: 'h', to: 's' }]));
  await e.close();
  // Five hours later a new engine starts on the same home.
  const c2 = new TestClock(Date.parse('2026-03-02T15:30:00Z'));
  e = await startWf({ clock: c2, home });
  try {
    const runs = (await e.t.api('GET', '/api/runs')).body.runs;
    assert.equal(runs.filter((r: any) => r.workflowId === 'catchup').length, 1, 'catchUp ran once');
    assert.equal(runs.filter((r: any) => r.workflowId === 'hourly').length, 0, 'missed fires are not run');
    // trigger.skipped went out while the engine started (before any socket); the report stays as a notification.
    let notes: any[] = [];
    for (let i = 0; i < 100 && !notes.length; i++) {
      notes = (await e.t.api('GET', '/api/notifications')).body.notifications.filter((n: any) => /hourly/.test(n.title));
      if (!notes.length) await sleep(20);
    }
    assert.equal(notes.length, 1, 'reported once');
    assert.match(notes[0].body, /5 scheduled runs of trigger "h" were missed/);
  } finally {
    await e.close();
  }
});
