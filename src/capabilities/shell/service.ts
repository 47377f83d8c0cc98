/**
 * The shell capability: commands in the fence (run_shell, later the `command` workflow node) and
 * the project's own typechecker (check_diagnostics, POST /api/diagnostics).
 */
import { stat } from 'node:fs/promises';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { Emit } from '../../kernel/bus.js';
import type { PermissionRequest } from '../../tools/types.js';
import { runDiagnostics, type DiagnosticsReport } from './diagnostics.js';
import { shellEnv } from './env.js';
import { formatCommandResult, runCommand, type CommandResult } from './run-command.js';
import type { FenceLike, HardDenied, Mask, ShellPermission } from './types.js';

export interface ShellDeps {
  fence: FenceLike;
  /** The engine home (GIT_CEILING_DIRECTORIES). */
  home: string;
  /** The shell policy (its request carries the denylist's refusal); without one every command is the `code` class under the tool's own key. */
  permission?: ShellPermission;
  /** The hard denylist: marks the request when there is no policy, and is enforced again in the spawn path. */
  hardDenied?: HardDenied;
  mask?: Mask;
  /** Default LIMITS.shellTimeoutMs. */
  timeoutMs?: number;
}

export interface ExecOptions {
  command: string;
  /** Virtual directory: `.` (default) is the workspace root, `<mount>` a mount root. */
  cwd?: string;
  signal?: AbortSignal;
  emit?: Emit;
  timeoutMs?: number;
}

export interface ExecResult extends CommandResult {
  /** The virtual cwd the command ran in. */
  cwd: string;
  /** `exit <code>` first, then the clipped output. */
  text: string;
}

export type ShellService = ReturnType<typeof createShellService>;

export function createShellService(deps: ShellDeps) {
  const mask = deps.mask ?? ((t: string) => t);
  const mountNames = () => deps.fence.roots().filter((r) => r.kind === 'mount').map((r) => r.name);
  const env = () => shellEnv({ home: deps.home, mounts: mountNames(), mask: deps.mask });

  /** Resolves a virtual directory inside the fence; the fence throws for anything outside. */
  async function resolveDir(virtual: string | undefined): Promise<{ real: string; virtual: string }> {
    const wanted = virtual === undefined || virtual.trim() === '' ? '.' : virtual.trim();
    const resolved = await deps.fence.resolve(wanted, { allowRoot: true });
    const info = await stat(resolved.real).catch(() => undefined);
    if (!info?.isDirectory()) throw badRequest(`cwd "${wanted}" is not a directory in the workspace or a mount; use "." for the workspace root`);
    return { real: resolved.real, virtual: resolved.virtual || '.' };
  }

  // The policy reads the command against the denylist over its own parse; asking the denylist again
  // here would parse every command a second time for the same answer.
  async function permission(command: string): Promise<PermissionRequest> {
    if (deps.permission) return deps.permission(command);
    const denied = deps.hardDenied?.(command);
    return { class: 'code', key: 'run_shell', ...(denied ? { hardDeny: denied } : {}) };
  }

  async function exec(options: ExecOptions): Promise<ExecResult> {
    if (!options.command.trim()) throw badRequest('command is empty; pass the shell command to run');
    const dir = await resolveDir(options.cwd);
    const timeoutMs = options.timeoutMs ?? deps.timeoutMs ?? LIMITS.shellTimeoutMs;
    const result = await runCommand({
      command: options.command,
      cwd: dir.real,
      env: env(),
      signal: options.signal,
      timeoutMs,
      hardDenied: deps.hardDenied,
    });
    options.emit?.('shell.exec', { command: mask(options.command), cwd: dir.virtual, exitCode: result.exitCode, durationMs: result.durationMs });
    return { ...result, cwd: dir.virtual, text: formatCommandResult(result, timeoutMs) };
  }

  async function diagnostics(rootName: string | undefined, signal?: AbortSignal): Promise<DiagnosticsReport> {
    const name = rootName === undefined || rootName.trim() === '' ? 'workspace' : rootName.trim();
    return runDiagnostics(deps.fence.root(name), { signal, env: env() });
  }

  return { exec, permission, diagnostics, env };
}
