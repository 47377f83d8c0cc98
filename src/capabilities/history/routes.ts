import type { FastifyInstance } from 'fastify';
import type { HistoryService } from './service.js';

type P = { kind: string; name: string; version: string };

/** GET /api/history/<kind>/<name>[/<version>], POST .../<version>/restore. */
export function historyRoutes(app: FastifyInstance, history: HistoryService): void {
  app.get<{ Params: P }>('/api/history/:kind/:name', async (req) => history.list(req.params.kind, req.params.name));
  app.get<{ Params: P }>('/api/history/:kind/:name/:version', async (req) => history.get(req.params.kind, req.params.name, req.params.version));
  app.post<{ Params: P }>('/api/history/:kind/:name/:version/restore', async (req) =>
    history.restore(req.params.kind, req.params.name, req.params.version),
  );
}
