/** `wait`: pauses this branch for `config.ms` milliseconds (stop ends the wait at once). */
import type { NodeType } from '../types.js';

export const waitNode: NodeType = {
  type: 'wait',
  description: 'Pauses this branch for config.ms milliseconds (at most 7 days); other branches keep running, and stopping the run ends the wait at once. Output: the milliseconds waited.',
  config: {
    type: 'object',
    properties: { ms: { type: 'integer', minimum: 0, maximum: 7 * 24 * 3600 * 1000 } },
    required: ['ms'],
    additionalProperties: false,
  },
  example: { id: 'pause', type: 'wait', config: { ms: 5000 } },
  async run(config, ctx) {
    const ms = Number(config.ms);
    await ctx.sleep(ms);
    return { output: ms };
  },
};
