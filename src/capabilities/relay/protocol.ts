/**
 * The relay's wire protocol, shared by the engine, the tests' phone and the /m/ page: plain
 * WebCrypto and JSON, no Node-only API, so a browser bundle imports it as is (docs/relay.md).
 *
 * - The pairing blob (QR code) holds the broker URL, the engine's topic id, a one-time pairing id
 *   and secret, and the engine's ECDH P-256 public key.
 * - Pairing: the phone sends its own public key sealed under keys derived from the pairing secret;
 *   both sides then derive two AES-GCM keys (one per direction) by HKDF over the ECDH secret, salted
 *   with the pairing secret. A broker that saw every message still lacks both private keys.
 * - Every frame: version, a 64-bit counter, a random 96-bit IV, AES-GCM ciphertext. The topic and
 *   the header are authenticated as additional data; a counter not above the last one accepted is
 *   refused (replay), checked only after the tag verifies (a forged frame cannot move it).
 * - Topics are `wb/<engine>/p/<pairing>[/r]` and `wb/<engine>/d/<device topic>/u|d`: random ids only.
 */

export const PROTOCOL_VERSION = 1;

const subtle = (): SubtleCrypto => globalThis.crypto.subtle;
/** Bytes on a plain ArrayBuffer, as WebCrypto takes them. */
export type Bytes = Uint8Array<ArrayBuffer>;
const enc = new TextEncoder();
const dec = new TextDecoder();

export function toB64u(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromB64u(text: string): Bytes {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

export const randomId = (bytes = 16): string => toB64u(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));

// ---- the pairing blob -------------------------------------------------------------------------

export interface PairingBlob {
  v: number;
  /** The broker's WebSocket URL (ws: or wss:). */
  url: string;
  /** The engine's topic id. */
  engine: string;
  /** The one-time pairing id (its topic). */
  pair: string;
  /** The one-time pairing secret (32 bytes, base64url). */
  secret: string;
  /** The engine's ECDH P-256 public key, raw, base64url. */
  pub: string;
}

/**
 * `<v>.<engine>.<pair>.<secret>.<pub>.<url>`, every part base64url: as short as the code can be, so
 * the QR code stays coarse enough for any phone camera.
 */
export const encodeBlob = (blob: PairingBlob): string => [blob.v, blob.engine, blob.pair, blob.secret, blob.pub, toB64u(enc.encode(blob.url))].join('.');

/** Reads a pairing code; throws a sentence saying what is wrong with it. */
export function decodeBlob(text: string): PairingBlob {
  const parts = text.trim().split('.');
  if (parts.length !== 6 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) throw new Error('the pairing code is not readable; scan the QR code of the workbench again');
  if (parts[0] !== String(PROTOCOL_VERSION)) throw new Error('the pairing code is from another version; scan the QR code of the workbench again');
  const [, engine, pair, secret, pub, url] = parts;
  return { v: PROTOCOL_VERSION, engine, pair, secret, pub, url: dec.decode(fromB64u(url)) };
}

// ---- topics -----------------------------------------------------------------------------------

export const topics = {
  pair: (engine: string, pair: string) => `wb/${engine}/p/${pair}`,
  pairReply: (engine: string, pair: string) => `wb/${engine}/p/${pair}/r`,
  up: (engine: string, device: string) => `wb/${engine}/d/${device}/u`,
  down: (engine: string, device: string) => `wb/${engine}/d/${device}/d`,
  /** What the engine subscribes to: every device's requests. */
  allUp: (engine: string) => `wb/${engine}/d/+/u`,
};

// ---- keys -------------------------------------------------------------------------------------

export interface DirectionKeys {
  up: CryptoKey;
  down: CryptoKey;
}

export async function generateKeyPair(): Promise<CryptoKeyPair> {
  return subtle().generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']) as Promise<CryptoKeyPair>;
}

export async function exportPublic(key: CryptoKey): Promise<string> {
  return toB64u(new Uint8Array(await subtle().exportKey('raw', key)));
}

export const importPublic = (raw: string): Promise<CryptoKey> => subtle().importKey('raw', fromB64u(raw), { name: 'ECDH', namedCurve: 'P-256' }, true, []);

async function hkdfKeys(ikm: Bytes, salt: Bytes, context: string): Promise<{ up: Bytes; down: Bytes }> {
  const base = await subtle().importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
  const derive = async (dir: string) =>
    new Uint8Array(await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: enc.encode(`wb-relay v${PROTOCOL_VERSION} ${context} ${dir}`) }, base, 256));
  return { up: await derive('up'), down: await derive('down') };
}

export const importAes = (raw: Bytes): Promise<CryptoKey> => subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);

async function importPair(raw: { up: Bytes; down: Bytes }): Promise<DirectionKeys> {
  return { up: await importAes(raw.up), down: await importAes(raw.down) };
}

/** The keys that seal the pairing exchange itself: whoever holds the blob's secret. */
export async function pairingKeys(blob: Pick<PairingBlob, 'engine' | 'pair' | 'secret'>): Promise<DirectionKeys> {
  return importPair(await hkdfKeys(fromB64u(blob.secret), enc.encode('wb-relay pairing'), `${blob.engine} ${blob.pair}`));
}

/**
 * A device's session keys: HKDF over the ECDH secret, salted with the pairing secret. Returned raw
 * too, so the engine can keep them (relay.json, 0600) and the phone in its storage.
 */
export async function deviceKeys(
  own: CryptoKey,
  peerPublic: string,
  blob: Pick<PairingBlob, 'engine' | 'pair' | 'secret'>,
): Promise<{ up: Bytes; down: Bytes }> {
  const shared = new Uint8Array(await subtle().deriveBits({ name: 'ECDH', public: await importPublic(peerPublic) }, own, 256));
  return hkdfKeys(shared, fromB64u(blob.secret), `${blob.engine} ${blob.pair} device`);
}

// ---- frames -----------------------------------------------------------------------------------

const HEADER = 1 + 8;
const IV = 12;

/** Monotonic counters: microseconds since the epoch at first, +1 after, so a restarted sender still climbs. */
export class Counter {
  private last = 0;
  next(): number {
    this.last = Math.max(this.last + 1, Date.now() * 1000);
    return this.last;
  }
}

export class RefusedFrame extends Error {
  constructor(readonly reason: 'tampered' | 'replayed' | 'malformed') {
    super(`relay frame refused: ${reason}`);
  }
}

function header(counter: number): Bytes {
  const h = new Uint8Array(HEADER);
  h[0] = PROTOCOL_VERSION;
  const view = new DataView(h.buffer);
  view.setUint32(1, Math.floor(counter / 2 ** 32));
  view.setUint32(5, counter >>> 0);
  return h;
}

const aad = (topic: string, head: Bytes): Bytes => {
  const t = enc.encode(topic);
  const out = new Uint8Array(t.length + head.length);
  out.set(t);
  out.set(head, t.length);
  return out;
};

/** Seals one message for a topic (a string is taken as the message's JSON text, already serialized). */
export async function seal(key: CryptoKey, topic: string, counter: number, message: object | string): Promise<Bytes> {
  const head = header(counter);
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV));
  const body = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: aad(topic, head) }, key, enc.encode(typeof message === 'string' ? message : JSON.stringify(message))));
  const out = new Uint8Array(HEADER + IV + body.length);
  out.set(head);
  out.set(iv, HEADER);
  out.set(body, HEADER + IV);
  return out;
}

/** Opens a frame: its message and counter. Refuses a forged or altered frame, and one whose counter is not above `after`. */
export async function open<T = unknown>(key: CryptoKey, topic: string, received: Uint8Array, after: number): Promise<{ message: T; counter: number }> {
  const frame: Bytes = new Uint8Array(received); // a copy on a plain ArrayBuffer (an MQTT payload may sit in a shared pool)
  if (frame.length < HEADER + IV + 16 || frame[0] !== PROTOCOL_VERSION) throw new RefusedFrame('malformed');
  const view = new DataView(frame.buffer);
  const counter = view.getUint32(1) * 2 ** 32 + view.getUint32(5);
  let plain: ArrayBuffer;
  try {
    plain = await subtle().decrypt({ name: 'AES-GCM', iv: frame.subarray(HEADER, HEADER + IV), additionalData: aad(topic, frame.subarray(0, HEADER)) }, key, frame.subarray(HEADER + IV));
  } catch {
    throw new RefusedFrame('tampered');
  }
  if (counter <= after) throw new RefusedFrame('replayed');
  try {
    return { message: JSON.parse(dec.decode(plain)) as T, counter };
  } catch {
    throw new RefusedFrame('malformed');
  }
}

// ---- messages ---------------------------------------------------------------------------------

/** Phone to engine. */
export type UpMessage =
  | { t: 'req'; id: string; method: string; path: string; body?: unknown }
  /** Start (or renew) the event stream; it lapses unless renewed within the lease. */
  | { t: 'watch' }
  | { t: 'unwatch' };

/** Engine to phone. */
export type DownMessage =
  | { t: 'res'; id: string; status: number; body: unknown }
  | { t: 'events'; events: unknown[] }
  /** The engine forgot this device (unpaired): the phone should forget it too. */
  | { t: 'bye'; reason: string };

/** Pairing, sealed with the pairing keys. */
export interface PairRequest {
  t: 'pair';
  pub: string;
  name?: string;
}
export interface PairReply {
  t: 'paired';
  device: string;
  topic: string;
}

/** How long an event stream lasts without a renewed `watch` (the phone renews at a third of it). */
export const WATCH_LEASE_MS = 90_000;
