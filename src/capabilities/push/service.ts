/**
 * Phone push (docs/push.md): the VAPID key pair, one subscription per device, and the pushes the
 * engine sends from its own events. A gate or a permission prompt that starts waiting is pushed at
 * once; runs that end are held LIMITS.pushRunHoldMs and leave as one push; nothing is pushed while
 * the person is at the workbench (presence.ts) or before a VAPID subject is set in the settings.
 * A device that unpairs (`relay.device.unpaired {deviceId}`, from the relay) loses its subscription,
 * and so does one whose push service answers 404 or 410.
 */
import type { Bus, EngineEvent } from '../../kernel/bus.js';
import { notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunRecord } from '../../kernel/runs.js';
import { realClock, type Clock } from '../workflows/clock.js';
import type { SecretStore } from '../secrets/types.js';
import { loadVapidKeys, type VapidKeys } from './keys.js';
import { gateMessage, permissionMessage, runsMessage, topicOf, type EndedRun, type Mask } from './messages.js';
import { sendPush } from './sender.js';
import { createPushStore } from './store.js';
import { validDeviceId, validSubscription } from './subscription.js';
import type { PresenceSignal, PushMessage, PushPost } from './types.js';

export interface PushDeps {
  home: Home;
  bus: Bus;
  secrets: SecretStore;
  /** The VAPID subject from the settings (`push.subject`), null until set. */
  subject: () => string | null;
  /** A run's record (title, source, parent), from the run ledger. */
  run: (runId: string) => RunRecord | undefined;
  post: PushPost;
  /** Throws a sentence when an endpoint may not be pushed to (the URL floor); at subscribe time. */
  checkEndpoint: (endpoint: string) => Promise<void>;
  /** Tests only: accept http: endpoints (a loopback push service). */
  allowHttp?: boolean;
  presence: PresenceSignal;
  mask: Mask;
  log: (line: string) => void;
  /** Times how long ended runs wait to leave as one push (the engine's clock: tests move it, so what a push groups never depends on the machine's speed). */
  clock?: Clock;
}

/** Runs a person started push when they end; unattended ones (cron, webhook) only when they fail. */
const STARTED_BY_A_PERSON = new Set(['manual', 'chat', 'dashboard', 'atlas']);
const UNATTENDED = new Set(['cron', 'webhook']);

const NO_SUBJECT =
  'push: a push is due but no VAPID subject is set, so none is sent; set one with PUT /api/settings {"push": {"subject": "mailto:you@example.com"}}';

export async function createPushService(deps: PushDeps) {
  const { bus, log } = deps;
  const store = await createPushStore(deps.home, log);
  const clock = deps.clock ?? realClock;

  let keys: Promise<VapidKeys> | undefined;
  /** Made on first use (the config route or the first push), never at start. */
  const vapid = () =>
    (keys ??= loadVapidKeys(store.publicKey(), deps.secrets).then(async (pair) => {
      if (pair.fresh) {
        const dropped = await store.setPublicKey(pair.publicKey);
        if (dropped) log(`push: the VAPID key pair was made anew (its private key was missing from the secrets); ${dropped} phone subscription(s) made for the old one were dropped and must subscribe again`);
      }
      return pair;
    })).catch((err) => {
      keys = undefined;
      throw err;
    });

  const removed = (deviceId: string, reason: 'gone' | 'unpaired' | 'unsubscribed') => bus.emit('push.unsubscribed', { deviceId, reason });

  let toldNoSubject = false;
  async function deliver(message: PushMessage): Promise<void> {
    const subs = store.list();
    if (!subs.length) return;
    const skip = (reason: string) => void bus.emit('push.skipped', { pushKind: message.kind, ids: message.ids, reason });
    if (deps.presence.active()) return skip('present');
    const subject = deps.subject();
    if (!subject) {
      if (!toldNoSubject) log(NO_SUBJECT);
      toldNoSubject = true;
      return skip('no-subject');
    }
    const pair = await vapid();
    const payload = JSON.stringify({ v: 1, ...message, ts: Date.now() });
    const approval = message.kind !== 'runs';
    const options = {
      keys: pair,
      subject,
      ttl: approval ? LIMITS.pushApprovalTtlS : LIMITS.pushRunTtlS,
      urgency: approval ? ('high' as const) : ('normal' as const),
      topic: topicOf(message.tag),
    };
    const results = await Promise.all(subs.map(async (sub) => ({ sub, ...(await sendPush(deps.post, sub, payload, options)) })));
    const sent = results.filter((r) => r.outcome === 'sent').map((r) => r.sub.deviceId);
    for (const r of results) if (r.outcome === 'failed') log(`push: sending to device ${r.sub.deviceId} failed: ${r.detail}`);
    const gone = results.filter((r) => r.outcome === 'gone').map((r) => r.sub);
    if (gone.length) {
      await store.remove((s) => gone.some((g) => g.endpoint === s.endpoint));
      for (const g of gone) removed(g.deviceId, 'gone');
    }
    if (sent.length) bus.emit('push.sent', { pushKind: message.kind, ids: message.ids, devices: sent });
  }
  // After the event that caused it has reached every listener: the push's own events come after it.
  const push = (message: PushMessage) =>
    void Promise.resolve()
      .then(() => deliver(message))
      .catch((err) => log(`push: ${(err as Error).message}`));

  let held: EndedRun[] = [];
  let holdTimer: unknown;
  function runEnded(e: EngineEvent): void {
    const record = e.runId ? deps.run(e.runId) : undefined;
    if (!record || record.parentRunId) return;
    const failed = e.kind === 'run.failed';
    if (!(STARTED_BY_A_PERSON.has(record.source) || (failed && UNATTENDED.has(record.source)))) return;
    held.push({ runId: record.runId, title: record.title || record.workflowId || record.runId, failed });
    holdTimer ??= clock.setTimeout(() => {
      holdTimer = undefined;
      const ended = held;
      held = [];
      push(runsMessage(deps.mask, ended));
    }, LIMITS.pushRunHoldMs);
  }

  const titleOf = (runId: string | undefined) => {
    const r = runId ? deps.run(runId) : undefined;
    return r?.title || r?.workflowId || runId || 'a run';
  };

  const unsubscribeBus = bus.subscribe((e) => {
    switch (e.kind) {
      case 'gate.waiting':
        if (typeof e.key === 'string' && typeof e.nodeId === 'string') push(gateMessage(deps.mask, { key: e.key, nodeId: e.nodeId, runTitle: titleOf(e.runId) }));
        return;
      case 'permission.requested':
        if (e.runId && typeof e.callId === 'string' && typeof e.tool === 'string') push(permissionMessage(deps.mask, { runId: e.runId, callId: e.callId, tool: e.tool, runTitle: titleOf(e.runId) }));
        return;
      case 'run.completed':
      case 'run.failed':
        runEnded(e);
        return;
      case 'relay.device.unpaired':
        if (typeof e.deviceId === 'string') {
          const deviceId = e.deviceId;
          void store.remove((s) => s.deviceId === deviceId).then((gone) => gone.length && removed(deviceId, 'unpaired'));
        }
        return;
    }
  });

  return {
    async config(): Promise<{ publicKey: string; ready: boolean; problem?: string }> {
      const { publicKey } = await vapid();
      if (deps.subject()) return { publicKey, ready: true };
      return { publicKey, ready: false, problem: 'no VAPID subject is set, so no push is sent yet; on the workbench, set push.subject (an https: or mailto: address) in the settings' };
    },
    /** `{subscription, deviceId?}`, or the browser's own `PushSubscription.toJSON()` sent as it is. */
    async subscribe(body: { subscription?: unknown; deviceId?: unknown; endpoint?: unknown; keys?: unknown } | undefined): Promise<{ ok: true; deviceId: string }> {
      const bare = body?.subscription === undefined && (body?.endpoint !== undefined || body?.keys !== undefined);
      const subscription = validSubscription(bare ? { endpoint: body!.endpoint, keys: body!.keys } : body?.subscription, deps.allowHttp);
      const deviceId = validDeviceId(body?.deviceId);
      await deps.checkEndpoint(subscription.endpoint);
      // The key pair exists before a phone can hold a subscription made for it.
      await vapid();
      await store.put({ ...subscription, deviceId, createdAt: Date.now() });
      bus.emit('push.subscribed', { deviceId });
      return { ok: true, deviceId };
    },
    /** `owner`: the paired device a relayed request came from, which may forget only its own channel. */
    async unsubscribe(query: { deviceId?: unknown; endpoint?: unknown }, owner?: string): Promise<{ ok: true; removed: number }> {
      // Endpoints are stored as URL.href; the one given is read the same way.
      const endpoint = typeof query.endpoint === 'string' && query.endpoint ? (safeHref(query.endpoint) ?? query.endpoint) : undefined;
      const deviceId = endpoint ? undefined : (owner ?? validDeviceId(query.deviceId));
      const gone = await store.remove((s) => (!owner || s.deviceId === owner) && (endpoint ? s.endpoint === endpoint : s.deviceId === deviceId));
      if (!gone.length) throw notFound(endpoint ? 'no push subscription has that endpoint' : `device ${deviceId} has no push subscription`);
      for (const g of gone) removed(g.deviceId, 'unsubscribed');
      return { ok: true, removed: gone.length };
    },
    /** Device ids with a subscription (what the tests check a change against). */
    devices: () => store.list().map((s) => s.deviceId),
    close() {
      unsubscribeBus();
      clock.clearTimeout(holdTimer);
    },
  };
}

export type PushService = Awaited<ReturnType<typeof createPushService>>;

function safeHref(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}
