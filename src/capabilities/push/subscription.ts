/**
 * Checks a subscribe request: `{subscription: {endpoint, keys: {p256dh, auth}}, deviceId?}`, the
 * shape a browser's `PushSubscription.toJSON()` gives. Each problem is one sentence saying what to
 * fix. The endpoint's host also passes the URL floor, here and at every send (engine.ts), so a
 * subscription cannot turn the engine into a client of this machine or its network.
 */
import { ECDH } from 'node:crypto';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { PushSubscriptionJson } from './types.js';

/** The device a subscription belongs to when the request names none: a phone on the LAN with the mobile token. */
export const LOCAL_DEVICE = 'local';
const DEVICE_ID = /^[A-Za-z0-9._-]{1,64}$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

export function validDeviceId(value: unknown): string {
  if (value === undefined) return LOCAL_DEVICE;
  if (typeof value !== 'string' || !DEVICE_ID.test(value)) throw badRequest('deviceId must be 1 to 64 letters, digits, dots, dashes or underscores (or left out for this LAN phone, "local")');
  return value;
}

/** `allowHttp`: tests only (a loopback push service); real push services are https. */
export function validSubscription(value: unknown, allowHttp = false): PushSubscriptionJson {
  const hint = 'send {"subscription": <the browser PushSubscription as JSON: endpoint and keys.p256dh, keys.auth>, "deviceId"?}, or that JSON itself';
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`subscription is missing; ${hint}`);
  const { endpoint, keys } = value as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof endpoint !== 'string' || !endpoint) throw badRequest(`subscription.endpoint is missing; ${hint}`);
  if (endpoint.length > LIMITS.pushEndpointChars) throw badRequest(`subscription.endpoint is longer than ${LIMITS.pushEndpointChars} characters; a push service's endpoint is much shorter`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw badRequest('subscription.endpoint is not a URL; send the endpoint the browser gave');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) throw badRequest(`subscription.endpoint must be an https: URL of a push service (got ${url.protocol})`);
  if (url.username || url.password) throw badRequest('subscription.endpoint must not carry a user name or password');
  if (!keys || typeof keys !== 'object') throw badRequest(`subscription.keys is missing; ${hint}`);
  const p256dh = decode(keys.p256dh, 'subscription.keys.p256dh');
  // A point on P-256, uncompressed: 0x04, then x and y (what a browser sends).
  if (p256dh.length !== 65 || p256dh[0] !== 4 || !onCurve(p256dh)) throw badRequest('subscription.keys.p256dh must be the 65-byte uncompressed P-256 public key the browser gave, base64url');
  const auth = decode(keys.auth, 'subscription.keys.auth');
  if (auth.length !== 16) throw badRequest('subscription.keys.auth must be the 16-byte auth secret the browser gave, base64url');
  return { endpoint: url.href, keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') } };
}

function decode(value: unknown, name: string): Buffer {
  if (typeof value !== 'string' || !value || !B64URL.test(value)) throw badRequest(`${name} must be a base64url string`);
  return Buffer.from(value, 'base64url');
}

function onCurve(point: Buffer): boolean {
  try {
    ECDH.convertKey(point, 'prime256v1', undefined, undefined, 'compressed');
    return true;
  } catch {
    return false;
  }
}
