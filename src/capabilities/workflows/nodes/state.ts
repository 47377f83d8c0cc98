/** `state`: one write through the key's reducer (`config.value` is a template or any JSON value). */
import type { NodeType } from '../types.js';

export const stateNode: NodeType = {
  type: 'state',
  instant: true,
  description:
    'Writes config.value (a template such as "{{nodes.fetch.output.body}}" or any JSON value) into state key config.key through the key\'s reducer ' +
    '(replace, append, merge or add, declared in the workflow\'s state block; an undeclared key is replaced). Emits state.updated. Output: the key\'s new value.',
  config: {
    type: 'object',
    properties: { key: { type: 'string', minLength: 1, pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' }, value: {} },
    required: ['key', 'value'],
    additionalProperties: false,
  },
  example: { id: 'count', type: 'state', config: { key: 'total', value: 1 } },
  writes: (config) => (typeof config.key === 'string' ? config.key : undefined),
  check(config) {
    return config.key === 'trigger' ? ['the "trigger" state key holds the run\'s payload and cannot be written; pick another key'] : [];
  },
  async run(config, ctx) {
    return { output: ctx.writeState(String(config.key), ctx.render(config.value)) };
  },
};
