/**
 * `agent`: one run of the engine's agent loop (src/agent) with the tool registry and the permission
 * gate, as an agent definition by name or an inline system prompt. The agent's own `tools:` outranks
 * the node's `config.tools` (seed 001 §5 rule 5).
 */
import type { NodeType } from '../types.js';

export const agentNode: NodeType = {
  type: 'agent',
  description:
    'Runs an agent: config.agent names an agent definition (agents/<name>.md) or config.system gives an inline system prompt; config.prompt (a template) is the task. ' +
    "config.tools limits the tools (exact names); an agent definition's own tools: list outranks it. config.maxTurns bounds model steps. Tool calls pass the permission gate: " +
    'manual runs prompt a person, webhook and cron runs follow the unattended default (in a workflow a model wrote: only what its author could do without a prompt). The reply streams as node.delta; output: the final text.',
  config: {
    type: 'object',
    properties: {
      agent: { type: 'string', minLength: 1 },
      system: { type: 'string', minLength: 1 },
      prompt: { type: 'string', minLength: 1 },
      tools: { type: 'array', items: { type: 'string' } },
      maxTurns: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    required: ['prompt'],
    additionalProperties: false,
  },
  example: { id: 'review', type: 'agent', config: { agent: 'reviewer', prompt: 'Review the diff of {{trigger.branch}} and list risks.' } },
  check(config) {
    if (config.agent === undefined && config.system === undefined) return ['give config.agent (an agent definition name) or config.system (an inline system prompt)'];
    if (config.agent !== undefined && config.system !== undefined) return ['give config.agent or config.system, not both'];
    return [];
  },
  lossy(_config, events, readOnly) {
    return events.some((e) => e.kind === 'tool.call' && !readOnly(String(e.tool)));
  },
  async run(config, ctx) {
    if (!ctx.services.agent) throw new Error('no agent runner is available in this engine');
    await ctx.services.checkpoint?.(ctx.runId, ctx.nodeId);
    const result = await ctx.services.agent({
      agent: config.agent as string | undefined,
      system: config.system === undefined ? undefined : ctx.text(config.system),
      prompt: ctx.text(config.prompt),
      tools: config.tools as string[] | undefined,
      maxTurns: config.maxTurns as number | undefined,
      signal: ctx.signal,
      emit: ctx.emit,
      runId: ctx.runId,
      nodeId: ctx.nodeId,
      attended: ctx.attended,
      authors: ctx.authors,
      onDelta: (text) => ctx.emit('node.delta', { text }),
    });
    if (result.status === 'stopped') throw ctx.signal.reason ?? new Error('stopped');
    if (result.status === 'failed') throw new Error(result.error ?? 'the agent failed');
    return { output: result.text };
  },
};
