/** `trigger.cron`: a schedule (croner syntax with seconds and time zones). Output: `{firedAt}`. */
import { parseCron } from '../cron.js';
import type { NodeType } from '../types.js';

export const triggerCron: NodeType = {
  type: 'trigger.cron',
  instant: true,
  trigger: true,
  description:
    'Starts the workflow on a schedule: config.expr is a cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first); config.timezone an IANA zone (default: the engine machine\'s). ' +
    'A fire while the workflow still runs is skipped (trigger.skipped). Fires missed while the engine was down are skipped and reported once, unless config.catchUp is true (then one run catches up). Cron runs are unattended.',
  config: {
    type: 'object',
    properties: {
      expr: { type: 'string', minLength: 1 },
      timezone: { type: 'string' },
      paused: { type: 'boolean' },
      catchUp: { type: 'boolean' },
    },
    required: ['expr'],
    additionalProperties: false,
  },
  example: { id: 'nightly', type: 'trigger.cron', config: { expr: '0 2 * * *', timezone: 'Europe/Berlin' } },
  check(config) {
    try {
      parseCron(String(config.expr), typeof config.timezone === 'string' ? config.timezone : undefined);
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
  },
  async run(_config, ctx) {
    return { output: ctx.scope().trigger };
  },
};
