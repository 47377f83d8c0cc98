/**
 * The agent loop as this capability runs it, for the two callers that need a model: `delegate`
 * (a subagent in a fresh context under its own definition) and memory consolidation (one tool-less
 * pass). Both go through the ONE loop in src/agent, so usage, retries and stops behave as in chat.
 */
import { runAgent, underCallPrefix } from '../../agent/index.js';
import type { RunLedger } from '../../kernel/runs.js';
import type { ProviderService } from '../../providers/service.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { SettingsService } from '../settings/types.js';
import type { RunSubagent } from './delegate.js';

export interface RunnerDeps {
  tools: ToolRegistry;
  runs: RunLedger;
  providers: ProviderService;
  settings: SettingsService;
}

/**
 * A subagent: the parent run's provider unless the agent names its own, the agent's allowlist, and the
 * parent's signal, run-scoped emit (so token.usage adds to the parent run), session and attendance
 * (so the registry's gate applies the parent's policy and session mode).
 */
export function createSubagentRunner(deps: RunnerDeps): RunSubagent {
  return async ({ agent, task, ctx: { callId, ...ctx } }) => {
    const parent = ctx.runId ? deps.runs.record(ctx.runId) : undefined;
    const client = await deps.providers.resolve(agent.provider ?? parent?.provider, agent.model);
    const settings = deps.settings.get();
    const result = await runAgent({
      model: client,
      system: agent.system,
      messages: [{ role: 'user', content: task }],
      tools: underCallPrefix(deps.tools, callId),
      allowlist: agent.tools ? new Set(agent.tools) : undefined,
      ctx,
      maxTurns: agent.maxTurns ?? settings.chatMaxTurns,
      settings: agent.settings,
      compaction: { fraction: settings.compactFraction },
    });
    return { status: result.status, text: result.text, error: result.error };
  };
}

/**
 * One tool-less model pass billed to its own run (source `memory` unless another is given, e.g. `git`
 * for commit messages and reviews); throws the provider's sentence on failure.
 */
export function createModelPass(deps: RunnerDeps) {
  return async (req: { system: string; prompt: string; scope?: string; source?: string; title?: string; signal?: AbortSignal }): Promise<string> => {
    const client = await deps.providers.resolve();
    const run = deps.runs.start({
      source: req.source ?? 'memory',
      agent: req.scope === undefined || req.scope === 'shared' ? undefined : req.scope,
      model: client.modelId,
      provider: client.provider,
      title: req.title ?? `consolidate memory: ${req.scope}`,
      signal: req.signal,
    });
    try {
      const result = await runAgent({
        model: client,
        system: req.system,
        messages: [{ role: 'user', content: req.prompt }],
        tools: deps.tools,
        allowlist: new Set(),
        ctx: { signal: run.signal, emit: run.emit, runId: run.id, attended: false, depth: 0 },
        maxTurns: 1,
      });
      if (result.status !== 'completed') {
        const error = result.error ?? (result.status === 'stopped' ? 'the consolidation was stopped' : `the model did not finish (${result.status})`);
        await run.finish(result.status === 'stopped' ? 'stopped' : 'failed', { error });
        throw new Error(error);
      }
      await run.finish('completed');
      return result.text;
    } catch (err) {
      await run.finish('failed', { error: (err as Error).message });
      throw err;
    }
  };
}
