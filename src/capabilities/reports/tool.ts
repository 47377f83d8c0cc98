/**
 * `engine_activity` (seed 001 §4.4): the engine's own recent runs, or a spend and reliability rollup,
 * from the run ledger. Read-only, so it may run four at a time with other read-only tools.
 */
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { RunStatus } from '../../kernel/runs.js';
import { defineTool } from '../../tools/types.js';
import { GROUP_BY, type Bucket, type GroupBy, type ReportsService, type RunRow } from './service.js';

const usd = (c: number | null) => (c === null ? 'unknown' : `$${c.toFixed(4)}`);
const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

function runLine(r: RunRow): string {
  const what = r.workflowId ?? (r.source === 'chat' ? 'chat' : r.source);
  const extra = [r.agent && `agent ${r.agent}`, r.model && `model ${r.model}`, r.workItem && `item ${r.workItem}`].filter(Boolean).join(', ');
  const dur = r.durationMs === null ? 'running' : `${(r.durationMs / 1000).toFixed(1)} s`;
  return `${r.runId}  ${when(r.startedAt)}  ${r.status.padEnd(11)} ${what}${extra ? ` (${extra})` : ''}  ${dur}  in ${r.usage.input} / out ${r.usage.output} tokens  ${usd(r.cost)}`;
}

function bucketLine(b: Bucket): string {
  const st = Object.entries(b.statuses).map(([k, v]) => `${v} ${k}`).join(', ');
  const unpriced = b.unpriced.runs ? `; ${b.unpriced.runs} run(s) unpriced (${b.unpriced.input + b.unpriced.output} tokens)` : '';
  return `${b.key}: ${b.runs} run(s) (${st}); in ${b.input} / out ${b.output} / cached ${b.cached} / reasoning ${b.reasoning} tokens; cost ${usd(b.cost)}${unpriced}`;
}

export function engineActivityTool(reports: ReportsService) {
  return defineTool<{ sinceHours?: number; status?: RunStatus; workflow?: string; limit?: number; groupBy?: GroupBy; from?: number; to?: number }>({
    name: 'engine_activity',
    group: 'meta',
    readOnly: true,
    description:
      `The engine's own recent runs (workflows, chat turns, builds ...), newest first, or with groupBy a spend and reliability rollup by model, agent, workflow, day or source. ` +
      `Window: the last sinceHours (default ${LIMITS.activitySinceHoursDefault}) unless from/to (epoch ms) are given. Filters: status, workflow ("chat" for chat turns). limit default ${LIMITS.activityLimitDefault}, cap ${LIMITS.activityLimitCap}. Costs are USD; "unknown" means the model has no price.`,
    parameters: {
      type: 'object',
      properties: {
        sinceHours: { type: 'number', exclusiveMinimum: 0 },
        status: { type: 'string', enum: ['running', 'completed', 'failed'] },
        workflow: { type: 'string' },
        limit: { type: 'integer', minimum: 1 },
        groupBy: { type: 'string', enum: [...GROUP_BY] },
        from: { type: 'integer', minimum: 0 },
        to: { type: 'integer', minimum: 0 },
      },
    },
    permission: 'other',
    async run(args) {
      const now = Date.now();
      const from = args.from ?? (args.to === undefined ? now - (args.sinceHours ?? LIMITS.activitySinceHoursDefault) * 3_600_000 : undefined);
      const to = args.to;
      if (from !== undefined && to !== undefined && from > to) throw badRequest('engine_activity: from is after to');
      const limit = Math.min(args.limit ?? LIMITS.activityLimitDefault, LIMITS.activityLimitCap);
      const filter = { from, to, status: args.status, workflow: args.workflow };
      const window = `${from ? when(from) : 'the beginning'} to ${to ? when(to) : 'now'} (UTC)`;
      const none = `no runs from ${window}${args.status ? ` with status ${args.status}` : ''}${args.workflow ? ` for ${args.workflow}` : ''}`;
      if (args.groupBy) {
        const records = reports.select(filter);
        if (!records.length) return none;
        const [total] = reports.rollup(records, 'total');
        const buckets = reports.rollup(records, args.groupBy);
        const shown = buckets.slice(0, limit);
        const more = buckets.length > shown.length ? `\n(${buckets.length - shown.length} more groups; raise limit to see them)` : '';
        return [`runs from ${window}, grouped by ${args.groupBy}:`, `TOTAL ${bucketLine(total)}`, ...shown.map(bucketLine)].join('\n') + more;
      }
      const rows = reports.runs(filter, { limit, offset: 0 });
      if (!rows.total) return none;
      const head = `runs 1-${rows.runs.length} of ${rows.total} from ${window}, newest first${rows.total > rows.runs.length ? `; more remain (raise limit up to ${LIMITS.activityLimitCap}, or narrow with from/to)` : ''}`;
      return [head, ...rows.runs.map(runLine)].join('\n');
    },
  });
}
