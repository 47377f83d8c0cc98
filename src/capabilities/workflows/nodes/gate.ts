/** `gate`: waits for a person (POST /api/gates/resolve); edges `approved` / `rejected`. */
import type { NodeType } from '../types.js';

export const gateNode: NodeType = {
  type: 'gate',
  description:
    'Stops this branch until a person approves or rejects (GET /api/gates, POST /api/gates/resolve {runId, nodeId, approved, note?}). gate.waiting carries config.message and what the run changed so far. ' +
    'Approval follows edges with when "approved" (or no when); rejection follows edges with when "rejected", and with none the branch ends there. Output: {approved, note}.',
  config: { type: 'object', properties: { message: { type: 'string' } }, additionalProperties: false },
  example: { id: 'review', type: 'gate', config: { message: 'Merge the changes for {{trigger.branch}}?' } },
  branches: ['approved', 'rejected'],
  defaultBranch: 'approved',
  async run(config, ctx) {
    if (!ctx.services.gate) throw new Error('gates are not available in this engine');
    const message = config.message === undefined ? `Approve step "${ctx.nodeId}" of workflow ${ctx.workflowId}?` : ctx.text(config.message);
    const answer = await ctx.services.gate({ runId: ctx.runId, workflowId: ctx.workflowId, nodeId: ctx.nodeId, message, signal: ctx.signal, emit: ctx.emit });
    return { output: { approved: answer.approved, note: answer.note ?? null }, branch: answer.approved ? 'approved' : 'rejected' };
  },
};
