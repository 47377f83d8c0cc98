import type { FastifyInstance } from 'fastify';
import { arr, bool, int, noBody, obj, openObj, route, str } from '../../http/schemas.js';
import { EngineError } from '../../kernel/errors.js';
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

  app.post(
    '/api/shell/snapshot',
    {
      schema: route('shell', "read the login shell's environment again (after a change to a profile, PATH or a version manager); commands run from this snapshot and source no rc files", {
        body: noBody,
        response: { 200: obj({ ok: bool(), shell: str(), variables: int(), durationMs: int(), takenAt: int(), error: str(), noise: str() }, ['ok', 'shell', 'variables']) },
      }),
    },
    async () => {
      const answer = await shell.snapshot();
      if (!answer) throw new EngineError(503, 'this engine runs commands with its own environment; there is no login shell snapshot to take');
      return answer;
    },
  );
}
