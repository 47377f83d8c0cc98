/** `workflow`: runs another workflow as a child run (its own run id and log, `parentRunId` set) and waits for it. */
import type { NodeType } from '../types.js';

export const workflowNode: NodeType = {
  type: 'workflow',
  description:
    'Runs the workflow config.workflow as a subworkflow with config.payload (templates allowed; it becomes that run\'s {{trigger}}), and waits for it. ' +
    'The child is its own run (parentRunId points here); stopping this run stops it. Output: {runId, state, outputs} of the child (outputs of its last nodes).',
  config: {
    type: 'object',
    properties: { workflow: { type: 'string', minLength: 1 }, payload: {} },
    required: ['workflow'],
    additionalProperties: false,
  },
  example: { id: 'sub', type: 'workflow', config: { workflow: 'lint-one', payload: { file: '{{trigger.file}}' } } },
  check(config, doc) {
    return config.workflow === doc.id ? ['a workflow cannot run itself as a subworkflow'] : [];
  },
  lossy: () => true,
  async run(config, ctx) {
    const payload = config.payload === undefined ? {} : ctx.render(config.payload);
    return { output: await ctx.runChild(String(config.workflow), payload, ctx.signal) };
  },
};
