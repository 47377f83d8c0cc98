import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../kernel/errors.js';
import type { ShellService } from './service.js';

/** POST /api/diagnostics {root} -> {root, checker, diagnostics[], total, omitted, summary}. */
export function shellRoutes(app: FastifyInstance, shell: ShellService): void {
  app.post('/api/diagnostics', async (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('send a JSON object {"root": "workspace" | "<mount name>"}');
    if (body.root !== undefined && typeof body.root !== 'string') throw badRequest('root must be a string: "workspace" or a mount name');
    return shell.diagnostics(body.root as string | undefined);
  });
}
