import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import type { MemoryService } from './service.js';

const bodyField = (body: unknown, key: string): unknown =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;

/**
 * Memory over HTTP (seed 000 §4.8), plus the snapshot routes that make consolidation undoable.
 * Snapshots are listed at `/api/memory-snapshots/<scope>`, outside `/api/memory/<scope>/<file>`, so no
 * scope (every agent name is one) is shadowed by a route; `consolidate` and `restore` are POST-only
 * and one segment deep, so they take no scope's path either.
 */
export function memoryRoutes(app: FastifyInstance, memory: MemoryService): void {
  app.get('/api/memory', async () => ({ scopes: await memory.scopes() }));
  app.get<{ Params: { scope: string; file: string } }>('/api/memory/:scope/:file', async (req) => ({
    content: await memory.read(req.params.scope, req.params.file),
  }));
  app.put<{ Params: { scope: string; file: string } }>('/api/memory/:scope/:file', async (req) => {
    await memory.write(req.params.scope, req.params.file, bodyField(req.body, 'content'));
    memory.changed(req.params.scope, req.params.file, 'write');
    return { ok: true };
  });
  app.delete<{ Params: { scope: string; file: string } }>('/api/memory/:scope/:file', async (req) => {
    await memory.remove(req.params.scope, req.params.file);
    memory.changed(req.params.scope, req.params.file, 'delete');
    return { ok: true };
  });
  app.post('/api/memory/consolidate', async (req) => {
    const scope = bodyField(req.body, 'scope');
    if (typeof scope !== 'string') throw badRequest('send {scope}: "shared" or an agent name');
    return memory.consolidate(scope);
  });
  app.get<{ Params: { scope: string } }>('/api/memory-snapshots/:scope', async (req) => ({ snapshots: await memory.listSnapshots(req.params.scope) }));
  app.post('/api/memory/restore', async (req) => {
    const scope = bodyField(req.body, 'scope');
    const snapshot = bodyField(req.body, 'snapshot');
    if (typeof scope !== 'string' || typeof snapshot !== 'string') throw badRequest('send {scope, snapshot}; GET /api/memory-snapshots/<scope> lists the snapshots');
    return { ok: true, ...(await memory.restore(scope, snapshot)) };
  });
}
