/**
 * `map`: runs one node spec (`config.node`) or one subworkflow (`config.workflow`) per item of
 * `config.items`, at most `config.concurrency` at a time. Items see `{{item}}` and `{{index}}`.
 * Stop reaches every child; a failed item fails the map (others are aborted) unless
 * `config.continueOnError`, which puts `{error}` in that item's place.
 */
import { LIMITS } from '../../../kernel/limits.js';
import type { NodeSpec, NodeType } from '../types.js';

export const mapNode: NodeType = {
  type: 'map',
  description:
    'Fans out over config.items (a list, or a template giving one such as "{{nodes.list.output}}"): for each item runs config.node (an inline node {type, config, retry?, timeoutMs?} whose templates see {{item}} and {{index}}) ' +
    `or config.workflow (a subworkflow id; the item is its payload), at most config.concurrency (default 4, max ${LIMITS.workflowMapConcurrencyMax}) at a time. ` +
    'Output: the list of results in item order. One failed item fails the map unless config.continueOnError puts {error} in its place.',
  config: {
    type: 'object',
    properties: {
      items: {},
      node: { type: 'object', properties: { type: { type: 'string' }, config: { type: 'object' } }, required: ['type'] },
      workflow: { type: 'string', minLength: 1 },
      concurrency: { type: 'integer', minimum: 1, maximum: LIMITS.workflowMapConcurrencyMax },
      continueOnError: { type: 'boolean' },
    },
    required: ['items'],
    additionalProperties: false,
  },
  example: { id: 'each', type: 'map', config: { items: '{{trigger.files}}', concurrency: 4, node: { type: 'command', config: { command: 'wc -l {{item}}' } } } },
  check(config, doc) {
    if ((config.node === undefined) === (config.workflow === undefined)) return ['give config.node (an inline node run per item) or config.workflow (a subworkflow per item), exactly one'];
    if (config.workflow === doc.id) return ['a map cannot run its own workflow per item; point config.workflow at another workflow'];
    const node = config.node as { type?: string } | undefined;
    if (node && typeof node.type === 'string' && (node.type.startsWith('trigger.') || node.type === 'gate' || node.type === 'map')) {
      return [`config.node cannot be of type "${node.type}"; a map item runs an action node (agent, command, http, state, condition, notify, wait, workflow)`];
    }
    return [];
  },
  lossy: () => true,
  async run(config, ctx) {
    const items = ctx.render(config.items);
    if (!Array.isArray(items)) throw new Error(`config.items must give a list; it gave ${items === undefined ? 'nothing' : typeof items}`);
    if (items.length > LIMITS.workflowMapItemsMax) throw new Error(`config.items has ${items.length} items; a map takes at most ${LIMITS.workflowMapItemsMax}`);
    const limit = Math.min(Number(config.concurrency ?? 4), LIMITS.workflowMapConcurrencyMax);
    const results: unknown[] = new Array(items.length);
    // A failing item aborts its siblings without stopping the run.
    const local = new AbortController();
    const signal = AbortSignal.any([ctx.signal, local.signal]);
    let next = 0;
    let failure: unknown;
    // One spec for every item (the id names the map; events carry the map's node id).
    const inner = config.node ? ({ id: `${ctx.nodeId}[item]`, ...(config.node as Omit<NodeSpec, 'id'>) } as NodeSpec) : undefined;
    const emit = ctx.emit;
    const nodeId = ctx.nodeId;
    const continueOnError = config.continueOnError === true;
    // Each worker takes the next item until none is left (one loop, no promise per item of its own).
    const worker = async () => {
      while (next < items.length && failure === undefined && !signal.aborted) {
        const index = next++;
        const item = items[index];
        try {
          results[index] = config.workflow ? await ctx.runChild(String(config.workflow), item, signal) : (await ctx.runInline(inner!, { item, index }, signal)).output;
          emit('node.delta', { item: index, status: 'completed', nodeId });
        } catch (err) {
          if (continueOnError && !ctx.signal.aborted) {
            results[index] = { error: (err as Error).message };
            emit('node.delta', { item: index, status: 'failed', error: (err as Error).message, nodeId });
            continue;
          }
          if (failure === undefined) failure = err;
          local.abort(err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('stopped');
    if (failure !== undefined) throw failure;
    return { output: results };
  },
};
