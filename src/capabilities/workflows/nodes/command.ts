/**
 * `command`: a shell command through the shell service: the same hard denylist, permission gate,
 * sandbox and spawn path as run_shell (seed 001 §4.2 rule 5).
 */
import type { NodeType } from '../types.js';

export const commandNode: NodeType = {
  type: 'command',
  description:
    'Runs config.command (a template) in a bash login shell in config.cwd (workspace-relative, default "."), through the same denylist, permission gate, sandbox and spawn path as run_shell. ' +
    'Manual runs prompt a person when no rule allows the command; webhook and cron runs follow the unattended default; a gate just before it that a person approved approves this exact command. A non-zero exit fails the node unless config.allowFailure is true. Output: {exitCode, output}.',
  config: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1 },
      cwd: { type: 'string' },
      allowFailure: { type: 'boolean' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  example: { id: 'test', type: 'command', config: { command: 'npm test', cwd: '.' } },
  lossy: () => true,
  async run(config, ctx) {
    if (!ctx.services.command) throw new Error('the shell is not available in this engine');
    await ctx.services.checkpoint?.(ctx.runId, ctx.nodeId);
    const command = ctx.text(config.command);
    const result = await ctx.services.command({
      command,
      approved: ctx.approvedCommands().includes(command),
      cwd: config.cwd === undefined ? undefined : ctx.text(config.cwd),
      signal: ctx.signal,
      emit: ctx.emit,
      runId: ctx.runId,
      callId: `node:${ctx.nodeId}`,
      attended: ctx.attended,
      authors: ctx.authors,
    });
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('stopped');
    const output = { exitCode: result.exitCode, output: result.text.replace(/^exit -?\d+\n?/, '') };
    if (result.exitCode !== 0 && config.allowFailure !== true) {
      throw new Error(`the command exited with code ${result.exitCode}: ${output.output.slice(-500).trim()}`);
    }
    return { output };
  },
};
