import type { FastifyInstance } from 'fastify';
import { notFound } from '../../kernel/errors.js';
import type { RunLedger } from '../../kernel/runs.js';

/** The run ledger over HTTP: the last 100 runs (live overlaid), one run's full log, stop. */
export function runsRoutes(app: FastifyInstance, runs: RunLedger): void {
  app.get('/api/runs', async () => ({ runs: runs.list() }));

  app.get<{ Params: { runId: string } }>('/api/runs/:runId/events', async (req) => ({ events: await runs.events(req.params.runId) }));

  app.post<{ Params: { runId: string } }>('/api/runs/:runId/stop', async (req, reply) => {
    const run = runs.get(req.params.runId);
    if (!run) throw notFound(`no run ${req.params.runId} is in flight; GET /api/runs lists the runs and their status`);
    run.stop();
    return reply.code(202).send({ ok: true });
  });
}
