/** `notify`: stores a notification (GET /api/notifications) and emits `notification`. */
import type { NodeType } from '../types.js';

export const notifyNode: NodeType = {
  type: 'notify',
  description: 'Raises a notification (GET /api/notifications, the `notification` event) with config.title and optional config.body (templates) and config.level (info, success, warning, error). Output: the notification id.',
  config: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1 },
      body: { type: 'string' },
      level: { enum: ['info', 'success', 'warning', 'error'] },
    },
    required: ['title'],
    additionalProperties: false,
  },
  example: { id: 'tell', type: 'notify', config: { title: 'Review ready for {{trigger.branch}}', level: 'success' } },
  async run(config, ctx) {
    if (!ctx.services.notify) throw new Error('notifications are not available in this engine');
    const record = (await ctx.services.notify({
      title: ctx.text(config.title),
      body: config.body === undefined ? undefined : ctx.text(config.body),
      level: (config.level as 'info') ?? 'info',
      runId: ctx.runId,
      link: `/runs/${ctx.runId}`,
      source: 'workflow',
    })) as { id?: string };
    return { output: record?.id ?? null };
  },
};
