/**
 * run_shell and check_diagnostics: thin model-facing adapters over the shell service.
 */
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type AnyTool } from '../../tools/types.js';
import { formatDiagnostics, usesOwnChecker } from './diagnostics.js';
import type { ShellService } from './service.js';
import type { FenceLike } from './types.js';

export function shellTools(shell: ShellService, fence: FenceLike): AnyTool[] {
  const runShell = defineTool<{ command: string; cwd?: string }>({
    name: 'run_shell',
    group: 'shell',
    description:
      `Runs a command in a bash login shell (its own process group) and returns "exit <code>" then the combined stdout and stderr. ` +
      `cwd is a workspace-relative directory ("." for the workspace root, or a mount name). Times out after ${LIMITS.shellTimeoutMs / 1000} s, killing everything the command started. ` +
      `Output keeps the first ${LIMITS.shellHeadChars} and last ${LIMITS.shellTailChars} characters; nothing past ${LIMITS.shellReadChars} is read, so filter large output (grep, head, tail). ` +
      `Secret-shaped environment variables are removed; ENGINE_MOUNTS lists mount names (comma-separated). ` +
      `Runs in a sandbox by default: only the workspace and mounts are writable (not .git/config or .git/hooks), /tmp is private, the network is off unless enabled (then public hosts only, through the engine's HTTP proxy in HTTP_PROXY/HTTPS_PROXY), ` +
      `and background processes end when the command ends.`,
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The bash command line to run.' },
        cwd: { type: 'string', description: 'Directory to run in: "." (workspace root, default), a workspace-relative folder, or <mount>/<folder>.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    permission: (args, ctx) => shell.permission(args.command, ctx),
    async run(args, ctx) {
      // Attended: if no sandbox can start, the gate has just shown a person a "not sandboxed" prompt.
      const result = await shell.exec({ command: args.command, cwd: args.cwd, signal: ctx.signal, emit: ctx.emit, callId: ctx.callId, approvedUnsandboxed: ctx.attended });
      return result.text;
    },
  });

  const checkDiagnostics = defineTool<{ root?: string }>({
    name: 'check_diagnostics',
    group: 'shell',
    description:
      `Runs the project's own typechecker over one root ("workspace" or a mount name) and returns lines "severity file:line:col - message", ` +
      `capped at ${LIMITS.diagnostics} with the rest counted. TypeScript roots (a tsconfig.json) are checked with tsc --noEmit; other roots have no known checker and say so.`,
    parameters: {
      type: 'object',
      properties: { root: { type: 'string', description: '"workspace" (default) or a mount name.' } },
      additionalProperties: false,
    },
    // The root's own node_modules/.bin/tsc is code from the workspace: running it is the `code` class.
    permission: async (args, ctx) => {
      const root = fence.root(args.root?.trim() || 'workspace');
      return (await usesOwnChecker(root)) ? shell.markUnsandboxed({ class: 'code', key: 'check_diagnostics' }, ctx) : { class: 'other', key: 'check_diagnostics' };
    },
    async run(args, ctx) {
      // Where no sandbox can start, the engine's own tsc may run anyway; the root's own needed a person.
      const own = await usesOwnChecker(fence.root(args.root?.trim() || 'workspace'));
      return formatDiagnostics(await shell.diagnostics(args.root, ctx.signal, ctx.attended || !own));
    },
  });

  return [runShell, checkDiagnostics];
}
