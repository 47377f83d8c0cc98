import { defineTool } from '../../tools/types.js';

export interface PlanStep {
  text: string;
  status: 'pending' | 'active' | 'done';
}

/** `set_plan` (seed 001 §4.4): replaces the visible plan; clients render `plan.update`. */
export const setPlanTool = defineTool<{ steps: PlanStep[] }>({
  name: 'set_plan',
  group: 'meta',
  description:
    'Shows the user your plan as a checklist. Send the whole list each time (it replaces the previous one): steps of {text, status} with status pending, active (at most one, the step in hand) or done.',
  parameters: {
    type: 'object',
    properties: {
      steps: {
        type: 'array',
        items: {
          type: 'object',
          properties: { text: { type: 'string', minLength: 1 }, status: { type: 'string', enum: ['pending', 'active', 'done'] } },
          required: ['text', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['steps'],
  },
  permission: 'other',
  async run(args, ctx) {
    ctx.emit('plan.update', { steps: args.steps, agent: ctx.agent, sessionId: ctx.sessionId, callId: ctx.callId });
    return `plan updated (${args.steps.length} steps)`;
  },
});
