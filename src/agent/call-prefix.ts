/**
 * The registry as a nested loop sees it (a delegated subagent, a workflow agent node). The nested
 * model picks its own call ids and may repeat ids already used in the run it shares, so wherever the
 * engine shows or answers a call (tool events, the run log, permission prompts resolved by
 * {runId, callId}) the id is `<owner>/<model's id>`, which nests (`a/b/c`) and never equals an
 * outer id. The model gets its own ids back, so its conversation stays consistent.
 */
import type { ToolRegistry } from '../tools/registry.js';
import type { RunAgentOptions } from './types.js';

export function underCallPrefix(tools: ToolRegistry, owner: string): RunAgentOptions['tools'] {
  const prefix = `${owner}/`;
  return {
    visible: (allowlist) => tools.visible(allowlist),
    runBatch: async (calls, ctx, options) => {
      const outcomes = await tools.runBatch(calls.map((c) => ({ ...c, callId: prefix + c.callId })), ctx, options);
      return outcomes.map((o, i) => ({ ...o, callId: calls[i].callId }));
    },
  };
}
