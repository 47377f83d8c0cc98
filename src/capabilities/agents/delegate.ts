/**
 * `delegate` (seed 001 §4.4, §5): runs a task under another agent's definition in a fresh context
 * (its own prompt, allowlist, memory scope, vault and generation settings) and answers with its final
 * text. The subagent inherits what the parent's calls carry: the abort signal, the run (so its events
 * and token usage land in the parent run), the session and whether a human is watching — which is
 * what the permission gate decides by, so its calls gate under the parent's policy. Depth is capped.
 */
import { badRequest, EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type ToolContext } from '../../tools/types.js';
import type { ResolvedAgent } from './types.js';

export type SubagentStatus = 'completed' | 'stopped' | 'max_turns' | 'failed';

/** What the composition root provides: one loop run for a resolved agent (it picks the model client). */
export type RunSubagent = (req: {
  agent: ResolvedAgent;
  task: string;
  ctx: Pick<ToolContext, 'signal' | 'emit' | 'runId' | 'callId' | 'attended' | 'sessionId' | 'authors'> & { agent: string; depth: number };
}) => Promise<{ status: SubagentStatus; text: string; error?: string }>;

export interface DelegateDeps {
  agents: { resolve(name: string): Promise<ResolvedAgent>; names(): Promise<string[]> };
  runSubagent: () => RunSubagent | undefined;
}

export function delegateTool(deps: DelegateDeps) {
  return defineTool<{ agent: string; task: string }>({
    name: 'delegate',
    group: 'meta',
    description:
      `Hands a self-contained task to another agent (by its definition name) and returns its final answer. The subagent starts fresh: it sees only \`task\`, so include every fact it needs. ` +
      `It works with its own tools and settings under the same permissions as you. Delegation nests at most ${LIMITS.delegateDepth} deep.`,
    parameters: {
      type: 'object',
      properties: {
        agent: { type: 'string', description: 'an agent definition name' },
        task: { type: 'string', minLength: 1, description: 'the complete task, with the context the subagent needs' },
      },
      required: ['agent', 'task'],
    },
    permission: 'other',
    async run(args, ctx) {
      const depth = ctx.depth ?? 0;
      if (depth >= LIMITS.delegateDepth) {
        throw badRequest(
          `delegate refused: this agent is already a subagent ${depth} levels deep, and delegation nests at most ${LIMITS.delegateDepth} deep; do the task yourself with your own tools, or answer your caller with what you found`,
        );
      }
      const run = deps.runSubagent();
      if (!run) throw badRequest('delegate: no model provider is set up to run a subagent; configure one with PUT /api/config');
      let agent: ResolvedAgent;
      try {
        agent = await deps.agents.resolve(args.agent);
      } catch (err) {
        if (!(err instanceof EngineError) || err.status !== 404) throw badRequest(`delegate: agent "${args.agent}" cannot be used: ${(err as Error).message}`);
        const names = await deps.agents.names();
        throw badRequest(`delegate: there is no agent "${args.agent}"; the agents are ${names.join(', ') || '(none defined)'}`);
      }
      const result = await run({
        agent,
        task: args.task,
        ctx: { signal: ctx.signal, emit: ctx.emit, runId: ctx.runId, callId: ctx.callId, attended: ctx.attended, sessionId: ctx.sessionId, authors: ctx.authors, agent: agent.name, depth: depth + 1 },
      });
      switch (result.status) {
        case 'completed':
          return result.text || `(agent ${agent.name} finished without a written answer)`;
        case 'max_turns':
          return `${result.text}\n\n[agent ${agent.name} stopped at its turn limit before finishing]`.trim();
        case 'stopped':
          return { text: `agent ${agent.name} was stopped before it finished${result.text ? `; its partial answer:\n${result.text}` : ''}`, isError: true };
        case 'failed':
          return { text: `agent ${agent.name} failed: ${result.error ?? 'unknown error'}`, isError: true };
      }
    },
  });
}
