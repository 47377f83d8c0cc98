/**
 * A loopback stand-in for a browser vendor's push service (node:http, no network). For each POST to
 * `/push/<id>` it does what a real one does with a VAPID push and what the browser then does with it:
 * verifies the `Authorization: vapid t=<JWT>, k=<public key>` header (ES256 over the key in `k`, `aud`
 * equal to its own origin, `exp` in the future and at most 24 h away, `sub` an https: or mailto:
 * address), and decrypts the `aes128gcm` body (RFC 8188 / RFC 8291) with the subscription's private
 * key and auth secret, which `subscriber()` made the way a browser makes them. A push that fails any
 * check is answered 400 or 401 and recorded with the reason.
 */
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { patience } from './patience.js';

export interface ReceivedPush {
  id: string;
  at: number;
  headers: http.IncomingHttpHeaders;
  /** The decrypted payload text. */
  text?: string;
  claims?: { aud: string; exp: number; sub: string };
  /** The VAPID public key the push was signed with (`k=`). */
  vapidKey?: string;
  /** Why the push was refused, when it was. */
  refused?: string;
}

export interface Subscriber {
  id: string;
  /** The subscription as a browser's PushSubscription.toJSON() gives it. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  auth: Buffer;
}

export interface FakePushService {
  origin: string;
  received: ReceivedPush[];
  /** A new subscription on this service (P-256 key pair and 16-byte auth secret, as a browser makes them). */
  subscriber(id?: string): Subscriber;
  /** Answers every later push to this subscription with `status` (410: gone). */
  answer(id: string, status: number): void;
  /** Resolves with the next push (past ones counted from `from`) matching `match`; `timeoutMs` (quiet-machine ms, scaled) only bounds a hang. */
  next(match?: (p: ReceivedPush) => boolean, from?: number, timeoutMs?: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

/** `tls`: serve https with this key and certificate (the bench, where web-push itself sends). */
export async function startFakePushService(options: { tls?: { key: string; cert: string } } = {}): Promise<FakePushService> {
  const subscribers = new Map<string, Subscriber>();
  const statuses = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const waiters = new Set<() => void>();
  let origin = '';

  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = decodeURIComponent((req.url ?? '').replace(/^\/push\//, ''));
      const push: ReceivedPush = { id, at: Date.now(), headers: req.headers };
      const sub = subscribers.get(id);
      let status = statuses.get(id) ?? 201;
      try {
        if (req.method !== 'POST') throw new Error(`method ${req.method}`);
        if (!sub) throw new Error('no such subscription');
        const vapid = checkVapid(String(req.headers.authorization ?? ''), origin);
        push.claims = vapid.claims;
        push.vapidKey = vapid.key;
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`content-encoding ${req.headers['content-encoding']}`);
        if (!req.headers.ttl) throw new Error('no TTL header');
        push.text = decrypt(Buffer.concat(chunks), sub).toString('utf8');
      } catch (err) {
        push.refused = (err as Error).message;
        status = /vapid|jwt|aud|exp|sub|signature/i.test(push.refused) ? 401 : 400;
      }
      received.push(push);
      for (const w of [...waiters]) w();
      res.writeHead(status, { 'content-type': 'text/plain' }).end(push.refused ?? '');
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let counter = 0;

  return {
    origin,
    received,
    subscriber(id = `sub-${++counter}`) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const sub: Subscriber = { id, ecdh, auth, subscription: { endpoint: `${origin}/push/${id}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } } };
      subscribers.set(id, sub);
      return sub;
    },
    answer: (id, status) => void statuses.set(id, status),
    next(match = () => true, from = received.length, quietMs = 30_000) {
      const timeoutMs = patience(quietMs);
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = received.slice(from).find(match);
          if (!found) return false;
          waiters.delete(look);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no push arrived within ${timeoutMs} ms; got ${received.length - from}`));
        }, timeoutMs);
        if (!look()) waiters.add(look);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** RFC 8292: `vapid t=<JWT>, k=<base64url P-256 point>`; the JWT is ES256 over the key in k. */
function checkVapid(header: string, origin: string): { claims: { aud: string; exp: number; sub: string }; key: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`no vapid authorization header (got "${header.slice(0, 20)}")`);
  const [token, key] = [m[1], m[2]];
  const [h, p, s] = token.split('.');
  const head = JSON.parse(Buffer.from(h, 'base64url').toString());
  if (head.alg !== 'ES256') throw new Error(`jwt alg ${head.alg}`);
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('vapid key k is not an uncompressed P-256 point');
  const publicKey = createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') } });
  const signed = verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!signed) throw new Error('jwt signature does not verify against k');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  if (claims.aud !== origin) throw new Error(`jwt aud ${claims.aud} is not ${origin}`);
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) throw new Error(`jwt exp ${claims.exp} is not within the next 24 h`);
  if (typeof claims.sub !== 'string' || !/^(https:\/\/|mailto:)/.test(claims.sub)) throw new Error(`jwt sub ${claims.sub} is not https: or mailto:`);
  return { claims, key };
}

/** RFC 8291 §3.4 key derivation and RFC 8188 `aes128gcm` decoding (one record). */
function decrypt(body: Buffer, sub: Subscriber): Buffer {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const senderKey = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error(`keyid is ${idlen} bytes, not a P-256 point`);
  const shared = sub.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), sub.ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, sub.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(-16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, -16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 and then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('record delimiter missing');
  return padded.subarray(0, end);
}
