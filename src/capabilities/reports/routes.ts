import type { FastifyInstance } from 'fastify';
import { arr, int, obj, openObj, query, route, says, str } from '../../http/schemas.js';
import { parseReportQuery, parseRunsQuery, type ReportsService } from './service.js';

const tag = 'reports';
/** A repeated parameter arrives as an array; the sentence says to give it once. */
const once = (description: string) => says(str(description), '{field} must be a non-empty string (given once)');
const epoch = once('a time in epoch milliseconds');
const range = { from: epoch, to: epoch };
const bucket = openObj('tokens, runs and cost of one group', { key: str() });

/** The spend report and run rows (seed 000 §4.4). Numbers arrive as strings; the service parses them with its own sentences. */
export function reportsRoutes(app: FastifyInstance, reports: ReportsService): void {
  app.get(
    '/api/report',
    {
      schema: route(tag, 'spend and activity between two times, by model, agent, workflow and source', {
        querystring: query(range),
        response: {
          200: obj(
            { from: { type: ['integer', 'null'] }, to: { type: ['integer', 'null'] }, currency: str(), totals: bucket, unpricedModels: arr(str()), byModel: arr(bucket), byAgent: arr(bucket), byWorkflow: arr(bucket), bySource: arr(bucket) },
            ['currency', 'totals', 'byModel'],
            { open: true },
          ),
        },
      }),
    },
    async (req) => reports.summary(parseReportQuery(req.query as Record<string, unknown>)),
  );
  app.get(
    '/api/report/runs',
    {
      schema: route(tag, 'run rows with usage and cost, newest first, filtered and paged', {
        querystring: query({
          ...range,
          workflow: once('a workflow id'),
          agent: once('an agent name'),
          model: once('a model id'),
          status: once('running, completed, failed, stopped or interrupted'),
          source: once('chat, workflow, agent, ...'),
          workItem: once('a work item id'),
          limit: once('rows per page (whole number)'),
          offset: once('rows to skip (whole number)'),
        }),
        response: { 200: obj({ runs: arr(openObj('a run row')), total: int(), limit: int(), offset: int() }, ['runs', 'total', 'limit', 'offset']) },
      }),
    },
    async (req) => {
      const { filter, page } = parseRunsQuery(req.query as Record<string, unknown>);
      return reports.runs(filter, page);
    },
  );
}
