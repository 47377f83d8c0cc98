import type { FastifyInstance } from 'fastify';
import { noBody, arr, int, obj, ok, params, route, str } from '../../http/schemas.js';
import type { HistoryService } from './service.js';

type P = { kind: string; name: string; version: string };

const tag = 'history';
const item = { kind: 'agent, skill, workflow, dashboard, widget or atlas', name: 'the item name' };
const version = obj({ version: int(), ts: int(), note: str(), bytes: int(), sha256: str() }, ['version', 'ts', 'bytes', 'sha256']);

/** GET /api/history/<kind>/<name>[/<version>], POST .../<version>/restore. */
export function historyRoutes(app: FastifyInstance, history: HistoryService): void {
  app.get<{ Params: P }>(
    '/api/history/:kind/:name',
    { schema: route(tag, "an item's saved versions, newest first", { params: params(item), response: { 200: obj({ kind: str(), name: str(), versions: arr(version) }, ['kind', 'name', 'versions']) } }) },
    async (req) => history.list(req.params.kind, req.params.name),
  );
  app.get<{ Params: P }>(
    '/api/history/:kind/:name/:version',
    {
      schema: route(tag, 'one saved version with its content', {
        params: params({ ...item, version: 'the version number' }),
        response: { 200: obj({ ...version.properties as object, kind: str(), name: str(), content: str() }, ['version', 'kind', 'name', 'content']) },
      }),
    },
    async (req) => history.get(req.params.kind, req.params.name, req.params.version),
  );
  app.post<{ Params: P }>(
    '/api/history/:kind/:name/:version/restore',
    {
      schema: route(tag, 'restore a saved version (the current state is saved first, so it can be undone)', {
        params: params({ ...item, version: 'the version number' }),
        body: noBody,
        response: { 200: ok({ kind: str(), name: str(), restored: int(), version: int() }) },
      }),
    },
    async (req) => history.restore(req.params.kind, req.params.name, req.params.version),
  );
}
