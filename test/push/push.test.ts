/**
 * Phone push end to end against a loopback push service (test/support/push-service.ts) that checks
 * every push as a real one would (the VAPID JWT) and decrypts it as the phone would (aes128gcm with
 * the subscription's own key pair): a real workflow gate, a real permission prompt from a chat turn,
 * runs that end together leaving as one push, the workbench's presence holding pushes back, a
 * subscription the push service calls gone (410), a device the relay unpairs, and nothing secret in
 * any payload or plain file. The hold of ended runs runs on a test clock: what a push groups is
 * decided by the test's own advance of it, never by how fast a busy machine ends two runs.
 */
import assert from 'node:assert/strict';
import { createECDH } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { schemeOnly } from '../../src/capabilities/web/floor-request.js';
import { LIMITS } from '../../src/kernel/limits.js';
import { defineTool } from '../../src/tools/types.js';
import { TestClock } from '../support/clock.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { gateFlow } from '../support/gate-flow.js';
import { startFakePushService, type FakePushService, type Subscriber } from '../support/push-service.js';

const SUBJECT = 'mailto:ops@example.com';
const SECRET = 'tok-9f8e7d6c5b4a39281706';

const quickFlow = (id: string) => ({ id, name: `Quick ${id}`, formatVersion: 2, group: null, nodes: [{ id: 'start', type: 'trigger.manual' }], edges: [] });

describe('phone push', () => {
  let t: TestEngine;
  let svc: FakePushService;
  let events: EventCollector;
  let model: ModelServer;
  let phone: Subscriber;
  const clock = new TestClock(Date.parse('2030-01-01T00:00:00Z'));
  /** Waits until every run started so far has ended (so the push service holds it), then ends the hold. */
  const endHold = async () => {
    for (const started of events.events.filter((e) => e.kind === 'run.started')) {
      await events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind));
    }
    clock.advance(LIMITS.pushRunHoldMs);
  };

  before(async () => {
    svc = await startFakePushService();
    model = await startModelServer();
    t = await startTestEngine({ clock, push: { floor: schemeOnly } });
    events = await collectEvents(t.url);
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'm' }], defaultProvider: 'scripted' });
    await t.api('POST', '/api/secrets', { name: 'deploy.token', value: SECRET });
  });
  after(async () => {
    events?.close();
    await t?.close();
    await svc?.close();
    await model?.close();
  });

  it('makes the VAPID pair once per home: the public key in GET /api/mobile/push/config, the private key only in the secrets', async () => {
    const config = await t.api('GET', '/api/mobile/push/config');
    assert.equal(config.status, 200);
    assert.equal(Buffer.from(config.body.publicKey, 'base64url').length, 65);
    assert.equal(config.body.ready, false, 'no subject yet');
    assert.match(config.body.problem, /push\.subject/);
    assert.deepEqual((await t.api('GET', '/api/mobile/push/config')).body.publicKey, config.body.publicKey, 'the same pair on every read');
    assert.ok(JSON.stringify((await t.api('GET', '/api/secrets')).body).includes('push:vapid-private-key'));
    const privateKey = await t.engine.secrets.get('push:vapid-private-key');
    assert.equal(Buffer.from(privateKey!, 'base64url').length, 32);
    // Not in any plain file of the home (the file secret backend keeps it encrypted).
    for (const file of await filesUnder(t.home)) assert.ok(!(await readFile(file, 'utf8')).includes(privateKey!), `${file} holds the private key`);
    const pushFile = path.join(t.home, 'push.json');
    assert.equal((await stat(pushFile)).mode & 0o077, 0, 'push.json is the owner’s only');
  });

  it('takes the VAPID subject from the settings and refuses a localhost-style one with a sentence', async () => {
    for (const bad of ['https://localhost/contact', 'mailto:me@localhost', 'http://example.com', 'mailto:admin@router.local', 'https://10.0.0.1/']) {
      const res = await t.api('PUT', '/api/settings', { push: { subject: bad } });
      assert.equal(res.status, 400, bad);
      assert.match(res.body.error, /push\.subject/);
    }
    const ok = await t.api('PUT', '/api/settings', { push: { subject: SUBJECT } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.push.subject, SUBJECT);
    assert.equal((await t.api('GET', '/api/mobile/push/config')).body.ready, true);
  });

  it('refuses a malformed subscription with a sentence and stores a good one under its device id', async () => {
    const good = svc.subscriber('phone-1');
    const cases: Array<[unknown, RegExp]> = [
      [{}, /subscription/],
      [{ subscription: { endpoint: 'not a url', keys: good.subscription.keys } }, /endpoint is not a URL/],
      [{ subscription: { endpoint: 'ftp://push.example.com/x', keys: good.subscription.keys } }, /https: URL/],
      [{ subscription: { endpoint: good.subscription.endpoint, keys: { p256dh: Buffer.alloc(65, 1).toString('base64url'), auth: good.subscription.keys.auth } } }, /p256dh/],
      [{ subscription: { endpoint: good.subscription.endpoint, keys: { p256dh: good.subscription.keys.p256dh, auth: 'abc' } } }, /auth/],
      [{ subscription: good.subscription, deviceId: 'a/b' }, /deviceId/],
    ];
    for (const [body, error] of cases) {
      const res = await t.api('POST', '/api/mobile/push/subscribe', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, error);
    }
    const res = await t.api('POST', '/api/mobile/push/subscribe', { subscription: good.subscription, deviceId: 'phone-1' });
    assert.deepEqual(res.body, { ok: true, deviceId: 'phone-1' });
    phone = good;
    // The browser's own PushSubscription.toJSON(), sent as it is, is taken too.
    const bare = svc.subscriber('bare').subscription;
    const plain = await t.api('POST', '/api/mobile/push/subscribe', { ...bare, expirationTime: null });
    assert.deepEqual(plain.body, { ok: true, deviceId: 'local' });
    assert.equal((await t.api('DELETE', `/api/mobile/push/subscribe?endpoint=${encodeURIComponent(bare.endpoint)}`)).body.removed, 1);
    const badBare = await t.api('POST', '/api/mobile/push/subscribe', { endpoint: bare.endpoint, expirationTime: null, keys: { p256dh: bare.keys.p256dh, auth: 'abc' } });
    assert.equal(badBare.status, 400);
    assert.match(badBare.body.error, /auth/);
    const local = await t.api('POST', '/api/mobile/push/subscribe', { subscription: svc.subscriber('lan').subscription }, { 'x-engine-mobile-token': t.engine.mobileToken });
    assert.equal(local.body.deviceId, 'local', 'a phone on the LAN without a device id is "local"');
    assert.deepEqual(t.engine.push.devices().sort(), ['local', 'phone-1']);
    assert.equal((await t.api('DELETE', '/api/mobile/push/subscribe?deviceId=local')).body.removed, 1);
    assert.equal((await t.api('DELETE', '/api/mobile/push/subscribe?deviceId=local')).status, 404);
  });

  it('pushes at once when a workflow gate waits: signed, encrypted, titles and ids only', async () => {
    await t.api('PUT', '/api/workflows/release', gateFlow('release', `Ship it with ${SECRET}? Customer list attached`, { name: 'Release train' }));
    const from = svc.received.length;
    const run = await t.api('POST', '/api/runs/release', {});
    const waiting = await events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === run.body.runId);
    const push = await svc.next((p) => p.id === phone.id, from);
    assert.equal(push.refused, undefined, push.refused);
    assert.equal(push.claims!.sub, SUBJECT);
    assert.equal(push.vapidKey, (await t.api('GET', '/api/mobile/push/config')).body.publicKey);
    assert.equal(push.headers.urgency, 'high');
    const payload = JSON.parse(push.text!);
    assert.equal(payload.kind, 'gate');
    assert.deepEqual(payload.ids, [waiting.key]);
    assert.equal(payload.url, `/m/?approval=${encodeURIComponent(String(waiting.key))}`);
    assert.match(payload.body, /Release train waits at review/);
    assert.ok(!push.text!.includes('Ship it') && !push.text!.includes('Customer'), 'the gate message stays on the engine');
    assert.ok(!push.text!.includes(SECRET));
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: true });
  });

  it('pushes at once when a tool permission prompt waits, naming the tool, never its arguments', async () => {
    // A tool of the `code` class: the gate asks a person in ask mode.
    t.engine.tools.register(
      defineTool({ name: 'deploy_plan', group: 'test', description: 'Deploys (asks permission).', parameters: { type: 'object', properties: { target: { type: 'string' } } }, permission: 'code', run: async () => 'deployed' }),
    );
    model.script({ toolCalls: [{ name: 'deploy_plan', args: { target: `plans.example.com?key=${SECRET}` } }] }, { text: 'deployed' });
    const from = svc.received.length;
    await t.api('POST', '/api/chat', { sessionId: 'push-chat', message: 'Write the plan', permissionMode: 'ask' });
    const asked = await events.waitFor((e) => e.kind === 'permission.requested' && e.sessionId === 'push-chat', 30_000);
    const push = await svc.next((p) => p.id === phone.id && !!p.text?.includes('"permission"'), from);
    const payload = JSON.parse(push.text!);
    assert.deepEqual(payload.ids, [`${asked.runId}:${asked.callId}`]);
    assert.match(payload.body, /^deploy_plan in Write the plan/);
    assert.ok(!push.text!.includes('plans.example.com') && !push.text!.includes(SECRET), 'no arguments in the push');
    await t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'deny', scope: 'once' });
  });

  it('holds runs that end together and sends one push for them', async () => {
    // The runs of the tests above (the gate, the chat turn) leave in a push of their own first.
    await endHold();
    await t.api('PUT', '/api/workflows/qa', quickFlow('qa'));
    await t.api('PUT', '/api/workflows/qb', quickFlow('qb'));
    const from = svc.received.length;
    const [a, b] = await Promise.all([t.api('POST', '/api/runs/qa', {}), t.api('POST', '/api/runs/qb', {})]);
    await endHold();
    const ours = (p: { id: string; text?: string }) => p.id === phone.id && !!p.text?.includes(a.body.runId);
    const push = await svc.next(ours, from);
    const payload = JSON.parse(push.text!);
    assert.equal(payload.kind, 'runs');
    assert.deepEqual([...payload.ids].sort(), [a.body.runId, b.body.runId].sort(), 'both runs in one push');
    assert.equal(payload.title, '2 runs finished');
    assert.match(payload.body, /Quick qa/);
    assert.equal(svc.received.slice(from).filter((p) => p.id === phone.id && !!p.text?.includes(b.body.runId)).length, 1, 'one push, not one per run');
  });

  it('sends nothing while the person is active at the workbench, and again once they leave', async () => {
    const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/events');
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ kind: 'presence', active: true }));
    await events.waitFor((e) => e.kind === 'presence.changed' && e.active === true);
    await t.api('PUT', '/api/workflows/present', gateFlow('present', 'ok?', { name: 'Present check' }));
    const from = svc.received.length;
    const run = await t.api('POST', '/api/runs/present', {});
    const skipped = await events.waitFor((e) => e.kind === 'push.skipped' && (e.ids as string[]).includes(`${run.body.runId}:review`));
    assert.equal(skipped.reason, 'present');
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: false });
    // The run's end is held back too.
    await endHold();
    await events.waitFor((e) => e.kind === 'push.skipped' && e.pushKind === 'runs' && (e.ids as string[]).includes(run.body.runId));
    assert.equal(svc.received.length, from, 'nothing reached the push service');
    ws.send(JSON.stringify({ kind: 'presence', active: false }));
    await events.waitFor((e) => e.kind === 'presence.changed' && e.active === false);
    const again = await t.api('POST', '/api/runs/present', {});
    const push = await svc.next((p) => p.id === phone.id && !!p.text?.includes(`${again.body.runId}:review`), from);
    assert.equal(JSON.parse(push.text!).kind, 'gate');
    ws.close();
    await t.api('POST', '/api/gates/resolve', { runId: again.body.runId, nodeId: 'review', approved: true });
  });

  it('drops a subscription its push service calls gone (410)', async () => {
    const stale = svc.subscriber('stale');
    await t.api('POST', '/api/mobile/push/subscribe', { subscription: stale.subscription, deviceId: 'stale' });
    svc.answer('stale', 410);
    await t.api('PUT', '/api/workflows/gone', gateFlow('gone', 'ok?', { name: 'Gone check' }));
    const run = await t.api('POST', '/api/runs/gone', {});
    const dropped = await events.waitFor((e) => e.kind === 'push.unsubscribed' && e.deviceId === 'stale');
    assert.equal(dropped.reason, 'gone');
    assert.ok(!t.engine.push.devices().includes('stale'));
    assert.ok(!(await readFile(path.join(t.home, 'push.json'), 'utf8')).includes(stale.subscription.endpoint), 'gone from the file too');
    assert.ok(t.engine.push.devices().includes('phone-1'), 'the other phone keeps its channel');
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: true });
  });

  it('keeps a subscription whose push service fails otherwise (500), with a log line naming the device, not its endpoint', async () => {
    const flaky = svc.subscriber('flaky');
    await t.api('POST', '/api/mobile/push/subscribe', { subscription: flaky.subscription, deviceId: 'flaky' });
    svc.answer('flaky', 500);
    const from = svc.received.length;
    const run = await t.api('POST', '/api/runs/gone', {});
    await svc.next((p) => p.id === 'flaky', from);
    await events.waitFor((e) => e.kind === 'push.sent' && (e.ids as string[]).includes(`${run.body.runId}:review`));
    const line = t.logs.find((l) => l.includes('device flaky failed'));
    assert.ok(line, t.logs.join('\n'));
    assert.match(line!, /answered 500/);
    assert.ok(!line!.includes('/push/flaky'), 'the endpoint path stays out of the log');
    assert.ok(t.engine.push.devices().includes('flaky'));
    await t.api('DELETE', `/api/mobile/push/subscribe?endpoint=${encodeURIComponent(flaky.subscription.endpoint)}`);
    assert.ok(!t.engine.push.devices().includes('flaky'), 'forgotten by its endpoint');
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: true });
  });

  it('forgets a device the relay unpairs (relay.device.unpaired)', async () => {
    const paired = svc.subscriber('paired');
    await t.api('POST', '/api/mobile/push/subscribe', { subscription: paired.subscription, deviceId: 'dev-7' });
    t.engine.bus.emit('relay.device.unpaired', { deviceId: 'dev-7' });
    const dropped = await events.waitFor((e) => e.kind === 'push.unsubscribed' && e.deviceId === 'dev-7');
    assert.equal(dropped.reason, 'unpaired');
    assert.ok(!t.engine.push.devices().includes('dev-7'));
  });

  it('never puts a secret in a payload: titles pass the secret mask', async () => {
    await t.api('PUT', '/api/workflows/masked', gateFlow('masked', 'ok?', { name: `Rotate ${SECRET} now` }));
    const from = svc.received.length;
    const run = await t.api('POST', '/api/runs/masked', {});
    const push = await svc.next((p) => p.id === phone.id && !!p.text?.includes(`${run.body.runId}:review`), from);
    assert.ok(!push.text!.includes(SECRET), push.text);
    assert.match(JSON.parse(push.text!).body, /Rotate \*\*\* now/);
    for (const p of svc.received) assert.ok(!p.text?.includes(SECRET));
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'review', approved: true });
  });
});

describe('the VAPID pair belongs to the home', () => {
  it('survives a restart; a lost private key makes a new pair and drops the subscriptions made for the old one', async () => {
    const home = await tempDir();
    const svc = await startFakePushService();
    try {
      let t = await startTestEngine({ home, push: { floor: schemeOnly } });
      const first = (await t.api('GET', '/api/mobile/push/config')).body.publicKey;
      await t.api('POST', '/api/mobile/push/subscribe', { subscription: svc.subscriber('p').subscription, deviceId: 'p' });
      await t.close();
      t = await startTestEngine({ home, push: { floor: schemeOnly } });
      assert.equal((await t.api('GET', '/api/mobile/push/config')).body.publicKey, first, 'the same pair after a restart');
      assert.deepEqual(t.engine.push.devices(), ['p']);
      assert.equal((await t.api('DELETE', '/api/secrets/push:vapid-private-key')).status, 200);
      await t.close();
      t = await startTestEngine({ home, push: { floor: schemeOnly } });
      const second = (await t.api('GET', '/api/mobile/push/config')).body.publicKey;
      assert.notEqual(second, first);
      assert.deepEqual(t.engine.push.devices(), []);
      assert.ok(t.logs.some((l) => /made anew.*1 phone subscription/.test(l)), t.logs.join('\n'));
      await t.close();
    } finally {
      await svc.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('phone push endpoints pass the URL floor', () => {
  let t: TestEngine;
  before(async () => {
    t = await startTestEngine();
  });
  after(() => t?.close());

  it('refuses an endpoint on this machine or on plain http with a sentence', async () => {
    const keys = { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: Buffer.alloc(16).toString('base64url') };
    const loop = await t.api('POST', '/api/mobile/push/subscribe', { subscription: { endpoint: 'https://127.0.0.1:8443/push/x', keys } });
    assert.equal(loop.status, 400);
    assert.match(loop.body.error, /cannot be pushed to/);
    const plain = await t.api('POST', '/api/mobile/push/subscribe', { subscription: { endpoint: 'http://push.example.com/x', keys } });
    assert.equal(plain.status, 400);
    assert.match(plain.body.error, /https: URL/);
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}
