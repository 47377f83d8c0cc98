import type { FastifyInstance } from 'fastify';
import { arr, obj, ok, openObj, params, route, str } from '../../http/schemas.js';
import type { MemoryService } from './service.js';

const tag = 'memory';
const file = params({ scope: '"shared" or an agent name', file: 'a memory file name, e.g. notes.md' });
const scopeBody = obj({ scope: str('"shared" or an agent name') }, ['scope']);

/**
 * Memory over HTTP (seed 000 §4.8), plus the snapshot routes that make consolidation undoable.
 * Snapshots are listed at `/api/memory-snapshots/<scope>`, outside `/api/memory/<scope>/<file>`, so no
 * scope (every agent name is one) is shadowed by a route; `consolidate` and `restore` are POST-only
 * and one segment deep, so they take no scope's path either.
 */
export function memoryRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get(
    '/api/memory',
    { schema: route(tag, 'the memory scopes and their files', { response: { 200: obj({ scopes: arr(openObj('a scope: {scope, files}')) }, ['scopes']) } }) },
    async () => ({ scopes: await memory.scopes() }),
  );
  app.get<{ Params: { scope: string; file: string } }>(
    '/api/memory/:scope/:file',
    { schema: route(tag, 'read a memory file', { params: file, response: { 200: obj({ content: str() }, ['content']) } }) },
    async (req) => ({ content: await memory.read(req.params.scope, req.params.file) }),
  );
  app.put<{ Params: { scope: string; file: string } }>(
    '/api/memory/:scope/:file',
    { schema: route(tag, 'write a memory file', { params: file, body: obj({ content: str('the whole file text') }, ['content']), response: { 200: ok() } }) },
    async (req) => {
      await memory.write(req.params.scope, req.params.file, (req.body as { content: string }).content);
      memory.changed(req.params.scope, req.params.file, 'write');
      return { ok: true };
    },
  );
  app.delete<{ Params: { scope: string; file: string } }>(
    '/api/memory/:scope/:file',
    { schema: route(tag, 'delete a memory file', { params: file, response: { 200: ok() } }) },
    async (req) => {
      await memory.remove(req.params.scope, req.params.file);
      memory.changed(req.params.scope, req.params.file, 'delete');
      return { ok: true };
    },
  );
  app.post(
    '/api/memory/consolidate',
    {
      schema: route(tag, "merge and tidy a scope's memory with the model (a snapshot is taken first)", {
        body: scopeBody,
        response: { 200: openObj('what consolidation did, with the snapshot to restore') },
      }),
    },
    async (req) => memory.consolidate((req.body as { scope: string }).scope),
  );
  app.get<{ Params: { scope: string } }>(
    '/api/memory-snapshots/:scope',
    { schema: route(tag, "a scope's snapshots (taken before each consolidation)", { params: params({ scope: '"shared" or an agent name' }), response: { 200: obj({ snapshots: arr(openObj('a snapshot')) }, ['snapshots']) } }) },
    async (req) => ({ snapshots: await memory.listSnapshots(req.params.scope) }),
  );
  app.post(
    '/api/memory/restore',
    {
      schema: route(tag, "restore a scope's memory from a snapshot", {
        body: obj({ scope: str('"shared" or an agent name'), snapshot: str('a snapshot id from GET /api/memory-snapshots/<scope>') }, ['scope', 'snapshot']),
        response: { 200: ok() },
      }),
    },
    async (req) => {
      const { scope, snapshot } = req.body as { scope: string; snapshot: string };
      return { ok: true, ...(await memory.restore(scope, snapshot)) };
    },
  );
}
