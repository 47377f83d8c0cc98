/**
 * GET /api/mobile/push/config (the VAPID public key a phone subscribes with), POST and DELETE
 * /api/mobile/push/subscribe (a device's push channel). Open to the mobile token like the other
 * mobile routes; the relay fills `deviceId` for a paired phone.
 */
import type { FastifyInstance } from 'fastify';
import { bool, int, obj, ok, openObj, query, route, str } from '../../http/schemas.js';
import type { PushService } from './service.js';

const tag = 'mobile';
const deviceId = str('the device this channel belongs to; "local" (a phone on the LAN with the mobile token) when left out');

export function pushRoutes(app: FastifyInstance, push: PushService): void {
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
      schema: route(tag, "registers a device's push channel (one per device; a new one replaces the old)", {
        body: obj(
          {
            subscription: openObj('the browser PushSubscription as JSON', {
              endpoint: str('the push service URL (https)'),
              keys: obj({ p256dh: str('base64url P-256 public key'), auth: str('base64url 16-byte auth secret') }, ['p256dh', 'auth'], { open: true }),
            }),
            deviceId,
          },
          ['subscription'],
        ),
        response: { 200: ok({ deviceId: str() }) },
      }),
    },
    async (req) => push.subscribe(req.body as { subscription?: unknown; deviceId?: unknown }),
  );

  app.delete<{ Querystring: { deviceId?: unknown; endpoint?: unknown } }>(
    '/api/mobile/push/subscribe',
    {
      schema: route(tag, "forgets a device's push channel: by ?endpoint= (what the browser knows) or ?deviceId= (default local)", {
        querystring: query({ deviceId, endpoint: str('the subscription endpoint to forget') }),
        response: { 200: ok({ removed: int('subscriptions forgotten') }) },
      }),
    },
    async (req) => push.unsubscribe(req.query),
  );
}
