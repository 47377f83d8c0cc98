/**
 * One push to one subscription: the payload encrypted for the device (RFC 8291, `aes128gcm`) and
 * signed for the push service (a VAPID JWT, RFC 8292), both by web-push's `generateRequestDetails`,
 * then POSTed through the `post` engine.ts gives (the URL floor: no loopback or private endpoints).
 * web-push's own `sendNotification` is not used: it opens its own https request with no floor.
 * 404 and 410 mean the subscription is gone for good (the phone unsubscribed or the browser dropped
 * it); anything else is a failure of this push only.
 */
import { describeError } from '../../kernel/errors.js';
import { webPush, type VapidKeys } from './keys.js';
import type { PushPost, PushSubscriptionJson, SendOutcome } from './types.js';

export interface SendOptions {
  keys: VapidKeys;
  subject: string;
  /** Seconds the push service keeps an undelivered push. */
  ttl: number;
  urgency: 'normal' | 'high';
  /** A newer push with the same topic replaces an undelivered older one (at most 32 base64url characters). */
  topic?: string;
}

export async function sendPush(post: PushPost, sub: PushSubscriptionJson, payload: string, o: SendOptions): Promise<{ outcome: SendOutcome; detail?: string }> {
  let request: { headers: Record<string, string | number>; body: Buffer | null };
  try {
    request = webPush().generateRequestDetails(sub, payload, {
      vapidDetails: { subject: o.subject, publicKey: o.keys.publicKey, privateKey: o.keys.privateKey },
      TTL: o.ttl,
      urgency: o.urgency,
      ...(o.topic ? { topic: o.topic } : {}),
      contentEncoding: 'aes128gcm',
    }) as unknown as typeof request;
  } catch (err) {
    return { outcome: 'failed', detail: describeError(err) };
  }
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
  const origin = new URL(sub.endpoint).origin;
  try {
    const res = await post(sub.endpoint, { headers, body: request.body ?? Buffer.alloc(0) });
    if (res.status >= 200 && res.status < 300) return { outcome: 'sent' };
    if (res.status === 404 || res.status === 410) return { outcome: 'gone', detail: `${origin} answered ${res.status}` };
    return { outcome: 'failed', detail: `${origin} answered ${res.status}${res.body ? `: ${res.body.slice(0, 200)}` : ''}` };
  } catch (err) {
    // The endpoint's path names the device at its push service: log lines say only the service.
    return { outcome: 'failed', detail: describeError(err).replaceAll(sub.endpoint, `${origin}/…`) };
  }
}
