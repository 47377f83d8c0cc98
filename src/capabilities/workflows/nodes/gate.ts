/** `gate`: waits for a person (POST /api/gates/resolve); edges `approved` / `rejected`. */
import type { NodeType } from '../types.js';

export const gateNode: NodeType = {
  type: 'gate',
  description:
    'Stops this branch until a person approves or rejects (GET /api/gates, POST /api/gates/resolve {runId, nodeId, approved, note?}). gate.waiting carries config.message and what the run changed so far. ' +
    'Approval follows edges with when "approved" (or no when); rejection follows edges with when "rejected", and with none the branch ends there. ' +
    'A command node right after the gate is shown in the message as it will run, and approving the gate approves that exact command (no second prompt, even in a webhook or cron run). Output: {approved, note, commands?}.',
  config: { type: 'object', properties: { message: { type: 'string' } }, additionalProperties: false },
  example: { id: 'review', type: 'gate', config: { message: 'Merge the changes for {{trigger.branch}}?' } },
  branches: ['approved', 'rejected'],
  defaultBranch: 'approved',
  async run(config, ctx) {
    if (!ctx.services.gate) throw new Error('gates are not available in this engine');
    let message = config.message === undefined ? `Approve step "${ctx.nodeId}" of workflow ${ctx.workflowId}?` : ctx.text(config.message);
    // A command just after the gate is shown as it will run; approving the gate approves that exact
    // command, so a person is not asked twice (the command node re-renders and compares).
    const commands: Record<string, string> = {};
    for (const next of ctx.following('approved')) {
      if (next.type === 'command' && typeof next.config?.command === 'string') commands[next.id] = ctx.text(next.config.command);
    }
    const shown = Object.entries(commands).map(([id, command]) => `On approval node "${id}" runs: ${command}`);
    if (shown.length) message = `${message}\n\n${shown.join('\n')}`;
    const answer = await ctx.services.gate({ runId: ctx.runId, workflowId: ctx.workflowId, nodeId: ctx.nodeId, message, signal: ctx.signal, emit: ctx.emit });
    return { output: { approved: answer.approved, note: answer.note ?? null, ...(shown.length ? { commands } : {}) }, branch: answer.approved ? 'approved' : 'rejected' };
  },
};
