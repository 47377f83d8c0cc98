import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import type { NotificationsService } from './service.js';

/** GET /api/notifications, POST /api/notifications/read (`{id}` one, no body all), POST .../<id>/dismiss. */
export function notificationsRoutes(app: FastifyInstance, notifications: NotificationsService): void {
  app.get('/api/notifications', async () => notifications.list());

  app.post('/api/notifications/read', async (req) => {
    const body = req.body as { id?: unknown } | undefined;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      throw badRequest('send {"id": "..."} to mark one read, or no body (or {}) to mark all read');
    }
    return notifications.markRead(body?.id === undefined ? undefined : (body.id as string));
  });

  app.post<{ Params: { id: string } }>('/api/notifications/:id/dismiss', async (req) => notifications.dismiss(req.params.id));
}
