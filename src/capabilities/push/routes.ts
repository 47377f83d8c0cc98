/**
 * GET /api/mobile/push/config (the VAPID public key a phone subscribes with), POST and DELETE
 * /api/mobile/push/subscribe (a device's push channel). Open to the mobile token like the other
 * mobile routes. A request a paired phone sent through the relay belongs to that phone: its
 * `deviceId` is the paired device's, whatever it says, and it forgets only its own channel.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bool, int, obj, ok, openObj, query, route, str } from '../../http/schemas.js';
import type { PushService } from './service.js';

const tag = 'mobile';
const deviceId = str('the device this channel belongs to; "local" (a phone on the LAN with the mobile token) when left out');
const endpoint = str('the push service URL (https)');
const keys = obj({ p256dh: str('base64url P-256 public key'), auth: str('base64url 16-byte auth secret') }, ['p256dh', 'auth'], { open: true });

/** The paired device a request came through the relay from, or undefined for a direct caller. */
type RelayedDevice = (headers: IncomingHttpHeaders) => string | undefined;

export function pushRoutes(app: FastifyInstance, push: PushService, relayedDevice: RelayedDevice): void {
  app.get(
    '/api/mobile/push/config',
    {
      schema: route(tag, 'the VAPID public key a phone subscribes with, and whether pushes can be sent yet', {
        response: {
          200: obj(
            {
              publicKey: str('base64url P-256 public key: PushManager.subscribe({applicationServerKey})'),
              ready: bool('false until a VAPID subject is set in the settings (push.subject)'),
              problem: str('what to do when not ready'),
            },
            ['publicKey', 'ready'],
          ),
        },
      }),
    },
    async () => push.config(),
  );

  app.post(
    '/api/mobile/push/subscribe',
    {
      schema: route(tag, "registers a device's push channel (one per device; a new one replaces the old): {subscription, deviceId?}, or the browser's PushSubscription.toJSON() itself", {
        body: obj({
          subscription: openObj('the browser PushSubscription as JSON', { endpoint, keys }),
          deviceId,
          endpoint,
          expirationTime: { type: ['number', 'null'], description: "the subscription's expiry as the browser gave it (not used)" },
          keys,
        }),
        response: { 200: ok({ deviceId: str() }) },
      }),
    },
    async (req) => {
      const body = req.body as { subscription?: unknown; deviceId?: unknown; endpoint?: unknown; keys?: unknown };
      const device = relayedDevice(req.headers);
      return push.subscribe(device ? { ...body, deviceId: device } : body);
    },
  );

  app.delete<{ Querystring: { deviceId?: unknown; endpoint?: unknown } }>(
    '/api/mobile/push/subscribe',
    {
      schema: route(tag, "forgets a device's push channel: by ?endpoint= (what the browser knows) or ?deviceId= (default local)", {
        querystring: query({ deviceId, endpoint: str('the subscription endpoint to forget') }),
        response: { 200: ok({ removed: int('subscriptions forgotten') }) },
      }),
    },
    async (req) => push.unsubscribe(req.query, relayedDevice(req.headers)),
  );
}
