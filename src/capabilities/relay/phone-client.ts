/**
 * The phone's side of the relay, for the /m/ page and the tests alike: pairs from the blob, then
 * sends requests and receives responses and the event stream, all sealed (protocol.ts). It takes an
 * MQTT client already connected to the broker (the `mqtt` package in Node and in browsers), so
 * this file stays free of Node-only APIs.
 */
import {
  Counter,
  decodeBlob,
  deviceKeys,
  exportPublic,
  fromB64u,
  generateKeyPair,
  importAes,
  open,
  pairingKeys,
  randomId,
  RefusedFrame,
  seal,
  toB64u,
  topics,
  WATCH_LEASE_MS,
  type DownMessage,
  type PairReply,
  type PairRequest,
  type UpMessage,
} from './protocol.js';

/** The few MQTT client calls the phone uses (mqtt.js's MqttClient has them). */
export interface MqttLike {
  subscribe(topic: string, opts: { qos: 0 | 1 }, cb?: (err?: Error | null) => void): unknown;
  unsubscribe(topic: string, cb?: (err?: Error | null) => void): unknown;
  /** mqtt.js types the payload as its Buffer; a Uint8Array is written as is in Node and browsers alike. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  publish(topic: string, payload: any, opts: { qos: 0 | 1 }, cb?: (err?: Error) => void): unknown;
  on(event: 'message', listener: (topic: string, payload: Uint8Array) => void): unknown;
  removeListener(event: 'message', listener: (topic: string, payload: Uint8Array) => void): unknown;
}

/** What a phone keeps after pairing (serializable: the /m/ page stores it). */
export interface PairedDevice {
  url: string;
  engine: string;
  device: string;
  topic: string;
  up: string;
  down: string;
}

/**
 * Where a phone keeps the last engine counter it accepted, per engine, so that a frame the broker
 * kept from before a reload is still a replay after it (the /m/ page: IndexedDB, web/src/relay-marks.ts).
 * Without it the mark lives as long as the page.
 */
export interface ReplayMarks {
  load(engine: string): Promise<number>;
  save(engine: string, counter: number): void;
}

export interface RelayResponse<T = any> {
  status: number;
  body: T;
}

const subscribe = (mqtt: MqttLike, topic: string) =>
  new Promise<void>((resolve, reject) => mqtt.subscribe(topic, { qos: 0 }, (err) => (err ? reject(err) : resolve())));

/** Pairs with the engine whose blob this is; resolves with the device to keep. */
export async function pairPhone(mqtt: MqttLike, blobText: string, options: { name?: string; timeoutMs?: number } = {}): Promise<PairedDevice> {
  const blob = decodeBlob(blobText);
  const keys = await pairingKeys(blob);
  const own = await generateKeyPair();
  const replyTopic = topics.pairReply(blob.engine, blob.pair);
  await subscribe(mqtt, replyTopic);
  try {
    const reply = await new Promise<PairReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        mqtt.removeListener('message', onMessage);
        reject(new Error('the engine did not answer the pairing; check that its relay is on, or show a fresh QR code'));
      }, options.timeoutMs ?? 10_000);
      const onMessage = (topic: string, payload: Uint8Array) => {
        if (topic !== replyTopic) return;
        open<PairReply>(keys.down, topic, payload, 0).then(({ message }) => {
          if (message.t !== 'paired') return;
          clearTimeout(timer);
          mqtt.removeListener('message', onMessage);
          resolve(message);
        }, () => undefined); // not sealed by the engine: not our answer
      };
      mqtt.on('message', onMessage);
      void (async () => {
        const request: PairRequest = { t: 'pair', pub: await exportPublic(own.publicKey), name: options.name };
        const topic = topics.pair(blob.engine, blob.pair);
        mqtt.publish(topic, await seal(keys.up, topic, new Counter().next(), request), { qos: 0 });
      })().catch(reject);
    });
    const raw = await deviceKeys(own.privateKey, blob.pub, blob);
    return { url: blob.url, engine: blob.engine, device: reply.device, topic: reply.topic, up: toB64u(raw.up), down: toB64u(raw.down) };
  } finally {
    mqtt.unsubscribe(replyTopic);
  }
}

/** A paired phone's session over one MQTT connection. */
export class RelayPhone {
  private readonly counter = new Counter();
  private lastDown = 0;
  private readonly waiting = new Map<string, { resolve: (r: RelayResponse) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  private readonly eventListeners = new Set<(events: unknown[]) => void>();
  private renew?: ReturnType<typeof setInterval>;
  private keys?: { up: CryptoKey; down: CryptoKey };
  private readonly upTopic: string;
  private readonly downTopic: string;
  /** Called when the engine says it forgot this phone (unpaired). */
  onBye?: (reason: string) => void;
  /** Frames refused (tampered, replayed): counted, never acted on. */
  readonly refused = { tampered: 0, replayed: 0, malformed: 0 };
  /** Called after each refused frame (the page says so: a broker replaying or altering frames is one to know about). */
  onRefused?: (reason: keyof RelayPhone['refused']) => void;

  constructor(
    private readonly mqtt: MqttLike,
    readonly device: PairedDevice,
    private readonly timeoutMs = 15_000,
    private readonly marks?: ReplayMarks,
  ) {
    this.upTopic = topics.up(device.engine, device.topic);
    this.downTopic = topics.down(device.engine, device.topic);
  }

  /** Subscribes to the device's topic; call once the MQTT client is connected (and again after a reconnect without a session). */
  async start(): Promise<void> {
    this.keys ??= { up: await importAes(fromB64u(this.device.up)), down: await importAes(fromB64u(this.device.down)) };
    // The kept mark first: a frame the broker delivers the moment we subscribe is judged by it.
    if (this.marks) this.lastDown = Math.max(this.lastDown, await this.marks.load(this.device.engine));
    this.mqtt.removeListener('message', this.onMessage); // once, however often it is started
    this.mqtt.on('message', this.onMessage);
    await subscribe(this.mqtt, this.downTopic);
  }

  stop(): void {
    this.mqtt.removeListener('message', this.onMessage);
    this.mqtt.unsubscribe(this.downTopic);
    if (this.renew) clearInterval(this.renew);
    for (const w of this.waiting.values()) (clearTimeout(w.timer), w.reject(new Error('the relay session was closed')));
    this.waiting.clear();
  }

  /** One API request through the relay, answered as the engine answered it. */
  async request<T = any>(method: string, path: string, body?: unknown): Promise<RelayResponse<T>> {
    const id = randomId(9);
    const answer = new Promise<RelayResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer from the engine within ${Math.round(this.timeoutMs / 1000)} s; it may be offline`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
    });
    await this.send({ t: 'req', id, method, path, ...(body === undefined ? {} : { body }) });
    return answer as Promise<RelayResponse<T>>;
  }

  /** Streams the engine's events until the returned function is called. */
  watch(listener: (events: unknown[]) => void): () => void {
    this.eventListeners.add(listener);
    if (this.eventListeners.size === 1) {
      void this.send({ t: 'watch' });
      this.renew = setInterval(() => void this.send({ t: 'watch' }), WATCH_LEASE_MS / 3);
    }
    return () => {
      this.eventListeners.delete(listener);
      if (this.eventListeners.size === 0) {
        if (this.renew) clearInterval(this.renew);
        void this.send({ t: 'unwatch' });
      }
    };
  }

  /** Sends one sealed message (exposed for tests of the engine's refusals). */
  async send(message: UpMessage): Promise<Uint8Array> {
    if (!this.keys) throw new Error('start the relay session first');
    const frame = await seal(this.keys.up, this.upTopic, this.counter.next(), message);
    this.mqtt.publish(this.upTopic, frame, { qos: 0 });
    return frame;
  }

  // Frames are opened one after another: decryption is asynchronous, and the counter check must
  // see them in the order they arrived.
  private inbox: Promise<void> = Promise.resolve();
  private readonly onMessage = (topic: string, payload: Uint8Array): void => {
    if (topic !== this.downTopic || !this.keys) return;
    const keys = this.keys;
    this.inbox = this.inbox.then(() =>
      open<DownMessage>(keys.down, topic, payload, this.lastDown).then(
        ({ message, counter }) => {
          this.lastDown = counter;
          this.marks?.save(this.device.engine, counter);
          this.deliver(message);
        },
        (err) => {
          if (!(err instanceof RefusedFrame)) return;
          this.refused[err.reason]++;
          this.onRefused?.(err.reason);
        },
      ),
    );
  };

  private deliver(message: DownMessage): void {
    if (message.t === 'res') {
      const w = this.waiting.get(message.id);
      if (!w) return;
      this.waiting.delete(message.id);
      clearTimeout(w.timer);
      w.resolve({ status: message.status, body: message.body });
    } else if (message.t === 'events') {
      for (const l of this.eventListeners) l(message.events);
    } else if (message.t === 'bye') {
      this.stop();
      this.onBye?.(message.reason);
    }
  }
}
