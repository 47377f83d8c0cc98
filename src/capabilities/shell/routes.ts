import type { FastifyInstance } from 'fastify';
import { arr, int, obj, openObj, route, str } from '../../http/schemas.js';
import type { ShellService } from './service.js';

/** POST /api/diagnostics {root} -> {root, checker, diagnostics[], total, omitted, summary}. */
export function shellRoutes(app: FastifyInstance, shell: ShellService): void {
  app.post(
    '/api/diagnostics',
    {
      schema: route('shell', "run the project's type checker or linter over a root and answer its findings", {
        body: obj({ root: str('"workspace" (default) or a mount name') }),
        response: {
          200: obj(
            { root: str(), checker: { type: ['string', 'null'] }, diagnostics: arr(openObj('a finding: {path, line, column, severity, message}')), total: int(), omitted: int(), summary: str() },
            ['root', 'diagnostics'],
            { open: true },
          ),
        },
      }),
    },
    async (req) => shell.diagnostics((req.body as { root?: string } | undefined)?.root),
  );
}
