/**
 * The outbound connector: one MQTT 3.1.1 connection over WebSocket to the broker, which carries the
 * pairing, each phone's sealed requests and answers, and the event stream to phones that watch.
 * The broker only ever relays sealed frames on random-id topics (protocol.ts). mqtt.js redials
 * every second after a drop, so a broker restart is bridged within a few seconds, and re-subscribes.
 */
import type { MqttClient } from 'mqtt';
import { lazyRequire } from '../../kernel/lazy-require.js';
import {
  Counter,
  deviceKeys,
  fromB64u,
  importAes,
  open,
  pairingKeys,
  randomId,
  RefusedFrame,
  seal,
  toB64u,
  topics,
  WATCH_LEASE_MS,
  type DirectionKeys,
  type DownMessage,
  type PairReply,
  type PairRequest,
  type UpMessage,
} from './protocol.js';
import { freshPairing, type RelayStore, type StoredDevice } from './store.js';
import type { RelayState } from './types.js';

const mqtt = lazyRequire<typeof import('mqtt')>('mqtt');

export interface ConnectorDeps {
  store: RelayStore;
  /** Answers one phone request (policy, then the engine's own routes). */
  dispatch(device: StoredDevice, request: { method: string; path: string; body?: unknown }): Promise<{ status: number; body: unknown }>;
  /** Every engine event as its JSON text, for the phones that watch. */
  subscribeEvents(listener: (json: string) => void): () => void;
  onPaired(device: StoredDevice): void;
  log(line: string): void;
}

interface Live {
  keys: DirectionKeys;
  watchUntil: number;
  pending: string[];
}

export interface Connector {
  state(): RelayState;
  error(): string | null;
  refused: { tampered: number; replayed: number; malformed: number };
  start(): void;
  stop(): Promise<void>;
  /** Tells a device it is forgotten and drops its session at once. */
  drop(device: StoredDevice, reason: string): Promise<void>;
}

export function createConnector(deps: ConnectorDeps): Connector {
  const { store, log } = deps;
  const file = store.file;
  const counter = new Counter();
  const refused = { tampered: 0, replayed: 0, malformed: 0 };
  const live = new Map<string, Live>(); // by device id
  let client: MqttClient | undefined;
  let state: RelayState = 'off';
  let lastError: string | null = null;
  let pairTopic = '';
  let unsubscribeEvents: (() => void) | undefined;
  // Frames are opened one after another: the counter check must see them in arrival order.
  let inbox: Promise<void> = Promise.resolve();

  const deviceByTopic = (topic: string) => file.devices.find((d) => topics.up(file.engine, d.topic) === topic);

  async function session(device: StoredDevice): Promise<Live> {
    let s = live.get(device.id);
    if (!s) {
      s = { keys: { up: await importAes(fromB64u(device.up)), down: await importAes(fromB64u(device.down)) }, watchUntil: 0, pending: [] };
      live.set(device.id, s);
    }
    return s;
  }

  async function send(device: StoredDevice, message: DownMessage | string): Promise<void> {
    const s = await session(device);
    const topic = topics.down(file.engine, device.topic);
    client?.publish(topic, Buffer.from(await seal(s.keys.down, topic, counter.next(), message)), { qos: 0 });
  }

  function subscribePairing(): void {
    const next = topics.pair(file.engine, file.pairing.id);
    if (next === pairTopic) return;
    if (pairTopic) client?.unsubscribe(pairTopic);
    pairTopic = next;
    client?.subscribe(pairTopic, { qos: 0 });
  }

  async function onPair(topic: string, payload: Uint8Array): Promise<void> {
    const blob = { engine: file.engine, pair: file.pairing.id, secret: file.pairing.secret };
    const keys = await pairingKeys(blob);
    const { message } = await open<PairRequest>(keys.up, topic, payload, 0);
    if (message.t !== 'pair' || typeof message.pub !== 'string') throw new RefusedFrame('malformed');
    if (!file.key) throw new RefusedFrame('malformed'); // not enabled yet: nothing can be paired
    const own = await globalThis.crypto.subtle.importKey('jwk', file.key, { name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
    const raw = await deviceKeys(own, message.pub, blob);
    const device: StoredDevice = {
      id: randomId(12),
      topic: randomId(),
      name: typeof message.name === 'string' && message.name.trim() ? message.name.trim().slice(0, 80) : 'phone',
      pairedAt: Date.now(),
      lastSeenAt: null,
      up: toB64u(raw.up),
      down: toB64u(raw.down),
      lastUp: 0,
    };
    // One phone per code: the next pairing needs the next QR code, so a photo of an old one pairs nothing.
    file.devices.push(device);
    file.pairing = freshPairing();
    await store.save();
    const reply: PairReply = { t: 'paired', device: device.id, topic: device.topic };
    const replyTopic = topics.pairReply(blob.engine, blob.pair);
    client?.publish(replyTopic, Buffer.from(await seal(keys.down, replyTopic, counter.next(), reply)), { qos: 0 });
    subscribePairing();
    log(`relay: paired a phone ("${device.name}") as device ${device.id}`);
    deps.onPaired(device);
  }

  async function onUp(device: StoredDevice, topic: string, payload: Uint8Array): Promise<void> {
    const s = await session(device);
    const { message, counter: seen } = await open<UpMessage>(s.keys.up, topic, payload, device.lastUp);
    device.lastUp = seen;
    device.lastSeenAt = Date.now();
    store.touch();
    if (message.t === 'watch') s.watchUntil = Date.now() + WATCH_LEASE_MS;
    else if (message.t === 'unwatch') s.watchUntil = 0;
    // A request runs on its own once its frame is accepted, so a slow route does not hold the next frame.
    else if (message.t === 'req' && typeof message.id === 'string') void answer(device, message).catch(countRefusal);
    else throw new RefusedFrame('malformed');
  }

  async function answer(device: StoredDevice, request: Extract<UpMessage, { t: 'req' }>): Promise<void> {
    const result = await deps.dispatch(device, { method: String(request.method).toUpperCase(), path: String(request.path), body: request.body });
    // Unpaired while the request ran: nothing more goes to it.
    if (file.devices.includes(device)) await send(device, { t: 'res', id: request.id, ...result });
  }

  function onMessage(topic: string, payload: Buffer): void {
    inbox = inbox.then(async () => {
      try {
        if (topic === pairTopic) return await onPair(topic, payload);
        const device = deviceByTopic(topic);
        if (device) await onUp(device, topic, payload);
        // else: an unpaired or unknown device; nothing is answered
      } catch (err) {
        countRefusal(err);
      }
    });
  }

  function countRefusal(err: unknown): void {
    if (err instanceof RefusedFrame) refused[err.reason]++;
    else log(`relay: a phone request failed: ${(err as Error).message}`);
  }

  // Events: queued per watching device, sent once per tick as one frame.
  let flushing = false;
  function onEvent(json: string): void {
    const now = Date.now();
    let any = false;
    for (const [id, s] of live) {
      if (s.watchUntil < now) continue;
      if (!file.devices.some((d) => d.id === id)) continue;
      s.pending.push(json);
      any = true;
    }
    if (any && !flushing) {
      flushing = true;
      setImmediate(flushEvents);
    }
  }
  function flushEvents(): void {
    flushing = false;
    for (const [id, s] of live) {
      if (!s.pending.length) continue;
      const text = `{"t":"events","events":[${s.pending.join(',')}]}`;
      s.pending = [];
      const device = file.devices.find((d) => d.id === id);
      if (device) void send(device, text).catch((err) => log(`relay: could not send events: ${(err as Error).message}`));
    }
  }

  return {
    state: () => state,
    error: () => (state === 'connected' ? null : lastError),
    refused,
    start() {
      if (client || !file.url) return;
      state = 'connecting';
      lastError = null;
      const c = mqtt().connect(file.url, {
        // MQTT 3.1.1: every broker speaks it (aedes, which the tests run, has no v5); nothing here needs v5.
        protocolVersion: 4,
        clientId: `wb-${randomId(9)}`,
        clean: true,
        keepalive: 30,
        reconnectPeriod: 1000,
        connectTimeout: 5000,
        resubscribe: false,
      });
      client = c;
      c.on('connect', () => {
        state = 'connected';
        lastError = null;
        pairTopic = '';
        c.subscribe(topics.allUp(file.engine), { qos: 0 });
        subscribePairing();
        log(`relay: connected to the broker`);
      });
      c.on('reconnect', () => void (state = 'connecting'));
      c.on('close', () => void (client === c && (state = 'connecting')));
      c.on('error', (err) => void (lastError = `the broker connection failed: ${err.message}`));
      c.on('message', onMessage);
      unsubscribeEvents = deps.subscribeEvents(onEvent);
    },
    async stop() {
      unsubscribeEvents?.();
      unsubscribeEvents = undefined;
      const c = client;
      client = undefined;
      state = 'off';
      live.clear();
      pairTopic = '';
      if (c) await c.endAsync(true).catch(() => undefined);
    },
    async drop(device, reason) {
      await send(device, { t: 'bye', reason }).catch(() => undefined);
      live.delete(device.id);
    },
  };
}
