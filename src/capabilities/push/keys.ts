/**
 * The engine's VAPID key pair (RFC 8292): a P-256 pair generated once per home. The public key is
 * not secret and lives in <home>/push.json beside the subscriptions; the private key is a secret
 * (`push:vapid-private-key`), so it never sits in a plain file and the exit mask hides it from every
 * response, event and log line. A home whose secret is gone (deleted on the secrets page, or a
 * keychain that was reset) gets a new pair: the old subscriptions were bound to the old public key,
 * so the service drops them and the phones subscribe again.
 */
import { createECDH } from 'node:crypto';
import { lazyRequire } from '../../kernel/lazy-require.js';
import type { SecretStore } from '../secrets/types.js';

const VAPID_SECRET = 'push:vapid-private-key';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** web-push (with http_ece, jws, asn1.js) loads on the first push, never at start. */
export const webPush = lazyRequire<typeof import('web-push')>('web-push');

/** The stored pair, or a new one (`fresh: true`) when either half is missing. */
export async function loadVapidKeys(storedPublic: string | undefined, secrets: SecretStore): Promise<VapidKeys & { fresh: boolean }> {
  const privateKey = await secrets.get(VAPID_SECRET);
  if (storedPublic && privateKey) return { publicKey: storedPublic, privateKey, fresh: false };
  // What web-push's generateVAPIDKeys does, without loading it: the raw uncompressed point (65
  // bytes) and the 32-byte scalar, both base64url (a browser's applicationServerKey takes the former).
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // getPrivateKey() drops leading zero bytes; VAPID wants exactly 32.
  const scalar = ecdh.getPrivateKey();
  const pair = { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]).toString('base64url') };
  await secrets.set(VAPID_SECRET, pair.privateKey);
  return { ...pair, fresh: true };
}
