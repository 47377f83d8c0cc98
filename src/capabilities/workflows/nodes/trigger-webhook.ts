/** `trigger.webhook`: POST /hooks/<workflowId>[/<nodeId>], checked against `config.secret`. Output: the payload. */
import type { NodeType } from '../types.js';

export const triggerWebhook: NodeType = {
  type: 'trigger.webhook',
  instant: true,
  trigger: true,
  description:
    'Starts the workflow on POST /hooks/<workflowId> (the first webhook trigger) or /hooks/<workflowId>/<nodeId> (this one). ' +
    'The caller sends config.secret in the x-engine-secret header or ?secret=; "{{secret:name}}" reads it from the secret store. ' +
    'The first 8 KB of the body is the payload (a JSON body is parsed). config.paused refuses fires with 409. Webhook runs are unattended.',
  config: {
    type: 'object',
    properties: {
      secret: { type: 'string', minLength: 1, description: 'The shared secret, or "{{secret:name}}".' },
      paused: { type: 'boolean' },
    },
    additionalProperties: false,
  },
  secretFields: ['secret'],
  example: { id: 'hook', type: 'trigger.webhook', config: { secret: '{{secret:deploy-hook}}' } },
  async run(_config, ctx) {
    return { output: ctx.scope().trigger };
  },
};
