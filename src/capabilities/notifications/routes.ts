import type { FastifyInstance } from 'fastify';
import { noBody, arr, bool, int, obj, ok, oneOf, params, route, str } from '../../http/schemas.js';
import type { NotificationsService } from './service.js';

const tag = 'notifications';
const unread = ok({ unreadCount: int() });
const record = obj(
  { id: str(), title: str(), body: str(), level: oneOf('info', 'success', 'warning', 'error'), runId: str(), link: str(), source: str(), ts: int(), read: bool() },
  ['id', 'title', 'level', 'ts', 'read'],
);

/** GET /api/notifications, POST /api/notifications/read (`{id}` one, no body all), POST .../<id>/dismiss. */
export function notificationsRoutes(app: FastifyInstance, notifications: NotificationsService): void {
  app.get(
    '/api/notifications',
    { schema: route(tag, 'the notifications, newest first, and the unread count', { response: { 200: obj({ notifications: arr(record), unreadCount: int() }, ['notifications', 'unreadCount']) } }) },
    async () => notifications.list(),
  );

  app.post(
    '/api/notifications/read',
    {
      schema: route(tag, 'mark one notification read ({id}), or all of them (no body or {})', {
        body: obj({ id: str('a notification id') }),
        response: { 200: unread },
      }),
    },
    async (req) => {
      const body = req.body as { id?: string } | undefined;
      return notifications.markRead(body?.id);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/notifications/:id/dismiss',
    { schema: route(tag, 'remove a notification', { params: params({ id: 'a notification id' }), body: noBody, response: { 200: unread } }) },
    async (req) => notifications.dismiss(req.params.id),
  );
}
