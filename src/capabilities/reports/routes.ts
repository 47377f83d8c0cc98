import type { FastifyInstance } from 'fastify';
import { parseReportQuery, parseRunsQuery, type ReportsService } from './service.js';

/** The spend report and run rows (seed 000 §4.4). */
export function reportsRoutes(app: FastifyInstance, reports: ReportsService): void {
  app.get('/api/report', async (req) => reports.summary(parseReportQuery(req.query as Record<string, unknown>)));
  app.get('/api/report/runs', async (req) => {
    const { filter, page } = parseRunsQuery(req.query as Record<string, unknown>);
    return reports.runs(filter, page);
  });
}
