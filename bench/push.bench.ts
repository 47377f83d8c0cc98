/**
 * Phone push (docs/push.md), against the loopback push service of the tests (it verifies each VAPID
 * JWT and decrypts each payload, as a real service and the phone would):
 *   1. latency: from a workflow gate's `gate.waiting` event to its push arriving at the push
 *      service, through a real engine (aim: under 1 s). Beside it, one push sent by web-push directly.
 *   2. cost per push: the engine's sender (web-push's encryption and VAPID signing, then one POST
 *      through the URL floor's request) against web-push's own `sendNotification`, both over TLS to
 *      the same service, alternating rounds.
 * The service's certificate is made with openssl and trusted through https.globalAgent, which both
 * sides use.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { webPush } from '../src/capabilities/push/keys.js';
import { sendPush } from '../src/capabilities/push/sender.js';
import { floorRequest, schemeOnly } from '../src/capabilities/web/floor-request.js';
import type { SecretStore } from '../src/capabilities/secrets/types.js';
import { collectEvents } from '../test/support/events.js';
import { startTestEngine } from '../test/support/engine.js';
import { startFakePushService } from '../test/support/push-service.js';
import { fmt, median, result, table } from './lib/report.js';
import { alternate, describe, timed } from './lib/rounds.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const PUSHES = 100; // sent one after another per round and side
const SUBJECT = 'mailto:ops@example.com';

const dir = await mkdtemp(path.join(os.tmpdir(), 'push-bench-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
const tls = { key: await readFile(path.join(dir, 'key.pem'), 'utf8'), cert: await readFile(path.join(dir, 'cert.pem'), 'utf8') };
https.globalAgent.options.ca = tls.cert;
const svc = await startFakePushService({ tls });

// --- 1. gate.waiting -> push at the push service, through the engine -------------------------
const t = await startTestEngine({ push: { floor: schemeOnly } });
const events = await collectEvents(t.url);
await t.api('PUT', '/api/settings', { push: { subject: SUBJECT } });
const phone = svc.subscriber('phone');
await t.api('POST', '/api/mobile/push/subscribe', { subscription: phone.subscription, deviceId: 'phone' });
await t.api('PUT', '/api/workflows/gate', {
  id: 'gate',
  formatVersion: 2,
  group: null,
  nodes: [
    { id: 'start', type: 'trigger.manual' },
    { id: 'review', type: 'gate', config: { message: 'ok?' } },
  ],
  edges: [{ from: 'start', to: 'review' }],
});
const latencies: number[] = [];
for (let i = 0; i < ROUNDS + 1; i++) {
  const from = svc.received.length;
  const run = (await t.api('POST', '/api/runs/gate', {})).body.runId as string;
  const waiting = await events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === run);
  const push = await svc.next((p) => !!p.text?.includes(`${run}:review`), from);
  if (push.refused) throw new Error(`the push service refused the push: ${push.refused}`);
  if (i > 0) latencies.push(push.at - waiting.ts); // the first warms web-push and the connection
  await t.api('POST', '/api/gates/resolve', { runId: run, nodeId: 'review', approved: true });
  await events.waitFor((e) => e.kind === 'run.completed' && e.runId === run);
}
const publicKey = (await t.api('GET', '/api/mobile/push/config')).body.publicKey as string;
const privateKey = (await t.engine.secrets.get('push:vapid-private-key'))!;
events.close();
await t.close();

// --- 2. cost per push: the engine's sender against web-push's sendNotification ------------------
// The engine's own pair, read from its secrets.
const keys = { publicKey, privateKey };
const payload = JSON.stringify({ v: 1, kind: 'gate', title: 'Approval needed', body: 'Release train waits at review', url: '/m/?approval=run-1-1%3Areview', tag: 'gate:run-1-1:review', ids: ['run-1-1:review'], ts: Date.now() });
const options = { keys, subject: SUBJECT, ttl: 3600, urgency: 'high' as const };
const post = async (endpoint: string, init: { headers: Record<string, string>; body: Buffer }) => {
  const res = await floorRequest(endpoint, { floor: schemeOnly, method: 'POST', ...init, maxBytes: 4096 });
  return { status: res.status };
};
const engineSide = async () => {
  const ms = await timed(async () => {
    for (let i = 0; i < PUSHES; i++) if ((await sendPush(post, phone.subscription, payload, options)).outcome !== 'sent') throw new Error('a push was not accepted');
  });
  return ms / PUSHES;
};
const directSide = async () => {
  const ms = await timed(async () => {
    for (let i = 0; i < PUSHES; i++) await webPush().sendNotification(phone.subscription, payload, { vapidDetails: { subject: SUBJECT, ...keys }, TTL: 3600, urgency: 'high' });
  });
  return ms / PUSHES;
};
const perPush = await alternate(ROUNDS, { engine: engineSide, direct: directSide }, { warmup: 1 });
const refused = svc.received.filter((p) => p.refused).length;
await svc.close();
await rm(dir, { recursive: true, force: true });

const baselineOne = median(perPush.direct);
table([
  { measure: 'gate.waiting -> push received (ms)', engine: describe(latencies), baseline: `${fmt(baselineOne, 2)} (one web-push send)` },
  { measure: 'per push: encrypt + sign + POST (ms)', engine: describe(perPush.engine, 2), baseline: `${describe(perPush.direct, 2)} (web-push sendNotification)` },
]);
if (refused) throw new Error(`${refused} pushes were refused by the push service`);
result('push: gate.waiting to push at the push service', 'ms', latencies, baselineOne, { under: 1000 });
result('push: cost per push, engine sender vs web-push sendNotification', 'ms', perPush.engine, perPush.direct, { ratioAtMost: 1.5 });
