/** `trigger.manual`: a run started by a person or a client (POST /api/runs/<workflowId>). Output: the payload. */
import type { NodeType } from '../types.js';

export const triggerManual: NodeType = {
  type: 'trigger.manual',
  instant: true,
  trigger: true,
  description: 'Starts the workflow when a person or a client asks (POST /api/runs/<workflowId> with an optional payload). Its output is the payload; {{trigger.x}} reads into it anywhere.',
  config: { type: 'object', properties: {}, additionalProperties: false },
  example: { id: 'start', type: 'trigger.manual' },
  async run(_config, ctx) {
    return { output: ctx.scope().trigger };
  },
};
