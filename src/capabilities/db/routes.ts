/**
 * /api/db (seed 000 §4.15): thin routes over the database service, each declaring its schemas.
 */
import { noBody, route } from '../../http/schemas.js';
import type { FastifyInstance } from 'fastify';
import type { ExportRequest } from './export.js';
import type { QueryRequest } from './query.js';
import * as S from './schemas.js';
import type { DbFacade } from './facade.js';
import type { TableDataRequest, UpdateCellRequest } from './table.js';
import type { ConnectionInput } from './types.js';

type Id = { Params: { id: string } };

export function dbRoutes(app: FastifyInstance, db: () => Promise<DbFacade>): void {
  app.get('/api/db', {
    schema: route('db', 'Lists saved database connections (never a password or URL)', { response: { 200: { type: 'object', properties: { connections: { type: 'array', items: S.connectionView } }, required: ['connections'], additionalProperties: false } } }),
    handler: async () => ({ connections: await (await db()).service.list() }),
  });

  app.post<{ Body: ConnectionInput }>('/api/db/test', {
    schema: route('db', 'Tests an unsaved connection definition with a real round trip', { body: S.connectionInput, response: { 200: S.testResult } }),
    handler: async (req) => (await db()).service.testUnsaved(req.body),
  });

  app.put<Id & { Body: ConnectionInput }>('/api/db/connections/:id', {
    schema: route('db', 'Creates or replaces a connection; the path is its identity', { params: S.idParams, body: S.connectionInput, response: { 200: S.connectionView } }),
    handler: async (req) => (await db()).service.put(req.params.id, req.body),
  });

  app.delete<Id>('/api/db/connections/:id', {
    schema: route('db', 'Deletes a connection, its secrets and history, and closes its pool', { params: S.idParams, response: { 200: S.okResponse } }),
    handler: async (req) => {
      await (await db()).service.remove(req.params.id);
      return { ok: true };
    },
  });

  app.post<Id>('/api/db/connections/:id/test', {
    schema: route('db', 'Tests a saved connection with a real round trip', { params: S.idParams, body: noBody, response: { 200: S.testResult } }),
    handler: async (req) => (await db()).service.test(req.params.id),
  });

  app.get<Id & { Querystring: { refresh?: string } }>('/api/db/:id/schema', {
    schema: route('db', 'Tables, views, columns, keys and indexes (cached 60 s; ?refresh reads again)', {
      params: S.idParams,
      querystring: { type: 'object', properties: { refresh: { type: 'string' } }, additionalProperties: false },
      response: { 200: S.schemaResponse },
    }),
    handler: async (req) => (await db()).service.schema(req.params.id, req.query.refresh !== undefined && req.query.refresh !== 'false' && req.query.refresh !== '0'),
  });

  app.post<Id & { Body: QueryRequest }>('/api/db/:id/query', {
    schema: route('db', 'Runs SQL (several statements allowed; mode explain shows the plan)', { params: S.idParams, body: S.queryBody, response: { 200: S.queryResponse } }),
    handler: async (req) => (await db()).queries.human(req.params.id, req.body),
  });

  app.get<Id>('/api/db/:id/history', {
    schema: route('db', "This connection's query history, newest first", { params: S.idParams, response: { 200: S.historyResponse } }),
    handler: async (req) => ({ history: await (await db()).service.history(req.params.id) }),
  });

  app.post<Id & { Body: TableDataRequest }>('/api/db/:id/table-data', {
    schema: route('db', 'A page of a table with filters and sort (limit default 100)', { params: S.idParams, body: S.tableDataBody, response: { 200: S.tableDataResponse } }),
    handler: async (req) => (await db()).tables.page(req.params.id, req.body),
  });

  app.post<Id & { Body: UpdateCellRequest }>('/api/db/:id/update-cell', {
    schema: route('db', 'Changes cells of exactly one row addressed by its primary key', { params: S.idParams, body: S.updateCellBody, response: { 200: S.updateCellResponse } }),
    handler: async (req) => (await db()).tables.updateCell(req.params.id, req.body),
  });

  app.post<Id & { Body: ExportRequest }>('/api/db/:id/export', {
    schema: route('db', 'Streams the rows of one read as csv, json, ndjson or sql INSERTs', { params: S.idParams, body: S.exportBody, response: { 200: S.exportFile } }),
    handler: async (req, reply) => {
      const out = await (await db()).exportRows(req.params.id, req.body);
      reply.header('content-type', out.contentType);
      reply.header('content-disposition', `attachment; filename="${out.filename}"`);
      return reply.send(out.body);
    },
  });
}
