/**
 * The shell capability: commands in the fence (run_shell, later the `command` workflow node) and
 * the project's own typechecker (check_diagnostics, POST /api/diagnostics).
 */
import { realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { badRequest, forbidden } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { Emit } from '../../kernel/bus.js';
import type { PreparedCommand, Sandbox } from '../../sandbox/sandbox.js';
import type { HiddenPaths } from '../../kernel/hidden.js';
import type { PermissionRequest } from '../../tools/types.js';
import { runDiagnostics, type DiagnosticsReport } from './diagnostics.js';
import { shellEnv } from './env.js';
import { liveOutput } from './live-output.js';
import type { LoginEnv } from './login-env.js';
import { formatCommandResult, runCommand, type CommandResult } from './run-command.js';
import type { FenceLike, FenceRoot, HardDenied, Mask, ShellPermission } from './types.js';

export interface ShellDeps {
  fence: FenceLike;
  /** The engine home (GIT_CEILING_DIRECTORIES). */
  home: string;
  /** The shell policy (its request carries the denylist's refusal); without one every command is the `code` class under the tool's own key. */
  permission?: ShellPermission;
  /** The hard denylist: marks the request when there is no policy, and is enforced again in the spawn path. */
  hardDenied?: HardDenied;
  /**
   * Loads what the synchronous denylist reads with (the bash grammar, loaded on first use): awaited
   * before it runs, so a command reaching exec without the policy first (a workflow's shell node)
   * is judged by the parser, not by the stricter lexer fallback.
   */
  denylistReady?: () => Promise<unknown>;
  mask?: Mask;
  /** Default LIMITS.shellTimeoutMs. */
  timeoutMs?: number;
  /** The OS sandbox every command runs in (src/sandbox); without one commands run unsandboxed (unit tests). */
  sandbox?: Sandbox;
  /** Paths hidden from models (vaults' agentForbidden): not there inside the sandbox; their schema files read-only. */
  hidden?: HiddenPaths;
  /** The login shell's environment snapshot commands start from; without one, the engine's own environment. */
  loginEnv?: LoginEnv;
}

export interface ExecOptions {
  command: string;
  /** Virtual directory: `.` (default) is the workspace root, `<mount>` a mount root. */
  cwd?: string;
  signal?: AbortSignal;
  emit?: Emit;
  /** The tool call (or node) the command runs for: its live output goes out as `shell.output` with it. */
  callId?: string;
  timeoutMs?: number;
  /**
   * A person allowed this command to run without the sandbox when none can start (the attended
   * "not sandboxed" prompt). Callers with nobody to ask (the workflow `command` node) leave it unset,
   * so `sandbox.whenUnavailable: ask` refuses them.
   */
  approvedUnsandboxed?: boolean;
}

export interface ExecResult extends CommandResult {
  /** The virtual cwd the command ran in. */
  cwd: string;
  /** `exit <code>` first, then the clipped output. */
  text: string;
  /** The command ran inside the OS sandbox. */
  sandboxed: boolean;
}

export type ShellService = ReturnType<typeof createShellService>;

export function createShellService(deps: ShellDeps) {
  const mask = deps.mask ?? ((t: string) => t);
  const mountNames = () => deps.fence.roots().filter((r) => r.kind === 'mount').map((r) => r.name);
  // /term starts an interactive login shell, which reads the person's files itself: the engine's own environment.
  const env = () => shellEnv({ home: deps.home, mounts: mountNames(), mask: deps.mask });
  // Commands source nothing: they start from the login shell's snapshot.
  const commandEnv = async () => shellEnv({ home: deps.home, mounts: mountNames(), mask: deps.mask, base: deps.loginEnv && (await deps.loginEnv.get()).env });

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
  // Without a sandbox the request is marked "not sandboxed" (and prompts or refuses per settings).
  async function permission(command: string, ctx: { attended: boolean } = { attended: false }): Promise<PermissionRequest> {
    let request: PermissionRequest;
    if (deps.permission) request = await deps.permission(command);
    else {
      const denied = deps.hardDenied?.(command);
      request = { class: 'code', key: 'run_shell', ...(denied ? { hardDeny: denied } : {}) };
    }
    return deps.sandbox ? deps.sandbox.request(request, ctx.attended) : request;
  }

  async function hiddenFromCommands() {
    if (!deps.hidden) return {};
    const [hidden, areas] = await Promise.all([deps.hidden.existing(), deps.hidden.areas()]);
    return { hidden, readOnly: areas.flatMap((a) => (a.schemaFile ? [a.schemaFile] : [])) };
  }

  async function realRoots(): Promise<string[]> {
    return Promise.all(deps.fence.roots().map((r) => realpath(r.path).catch(() => r.path)));
  }

  async function exec(options: ExecOptions): Promise<ExecResult> {
    if (!options.command.trim()) throw badRequest('command is empty; pass the shell command to run');
    const dir = await resolveDir(options.cwd);
    const timeoutMs = options.timeoutMs ?? deps.timeoutMs ?? LIMITS.shellTimeoutMs;
    // The denylist first (its sentence, not a sandbox refusal, for a denied shape); checked once here,
    // so runCommand is not asked to parse the command again.
    await deps.denylistReady?.();
    const denied = deps.hardDenied?.(options.command);
    if (denied) throw forbidden(denied);
    const prepared = deps.sandbox ? await deps.sandbox.prepare({ roots: await realRoots(), cwd: dir.real, approvedUnsandboxed: options.approvedUnsandboxed, ...(await hiddenFromCommands()) }) : undefined;
    let result: CommandResult;
    let notes: string[] = [];
    const live = options.emit && liveOutput({ emit: options.emit, callId: options.callId, mask });
    try {
      result = await runCommand({
        command: options.command,
        cwd: dir.real,
        env: { ...(await commandEnv()), ...prepared?.env },
        signal: options.signal,
        timeoutMs,
        sandbox: prepared?.launch,
        onOutput: live ? (chunk) => live.push(chunk) : undefined,
      });
    } finally {
      live?.end();
      notes = (await prepared?.finish().catch(() => [])) ?? [];
    }
    const sandboxed = !!prepared?.launch;
    options.emit?.('shell.exec', { command: mask(options.command), cwd: dir.virtual, exitCode: result.exitCode, durationMs: result.durationMs, sandboxed, ...(notes.length ? { warnings: notes } : {}) });
    const text = formatCommandResult(result, timeoutMs) + notes.map((n) => `\n[warning: ${n}]`).join('');
    return { ...result, cwd: dir.virtual, text, sandboxed };
  }

  /**
   * `approvedUnsandboxed`: where no sandbox can start, may the checker run without one (a person
   * asked through the API, or approved the attended prompt)? Temp folders of a Seatbelt run are
   * removed when the check ends.
   */
  async function diagnostics(rootName: string | undefined, signal?: AbortSignal, approvedUnsandboxed = true): Promise<DiagnosticsReport> {
    const name = rootName === undefined || rootName.trim() === '' ? 'workspace' : rootName.trim();
    const root = deps.fence.root(name);
    let prepared: PreparedCommand | undefined;
    const sandbox = async (r: FenceRoot) => {
      if (!deps.sandbox) return { env: {} };
      prepared = await deps.sandbox.prepare({ roots: await realRoots(), cwd: await realpath(r.path).catch(() => r.path), approvedUnsandboxed, visible: [bundledCheckerDir()] });
      return prepared;
    };
    try {
      return await runDiagnostics(root, { signal, env: await commandEnv(), sandbox });
    } finally {
      await prepared?.finish().catch(() => undefined);
    }
  }

  /** A `code` request of another shell-capability tool, marked as run_shell's is when unsandboxed. */
  async function markUnsandboxed(request: PermissionRequest, ctx: { attended: boolean }): Promise<PermissionRequest> {
    return deps.sandbox && request.class === 'code' ? deps.sandbox.request(request, ctx.attended) : request;
  }

  /** Reads the login shell's environment again (POST /api/shell/snapshot). */
  async function snapshot() {
    if (!deps.loginEnv) return undefined;
    const s = await deps.loginEnv.refresh();
    return { ok: !s.error, shell: s.shell, variables: Object.keys(s.env).length, durationMs: s.durationMs, takenAt: s.takenAt, ...(s.error ? { error: s.error } : {}), ...(s.noise ? { noise: deps.mask?.(s.noise) ?? s.noise } : {}) };
  }

  return { exec, permission, diagnostics, env, snapshot, markUnsandboxed };
}

/** The engine's own TypeScript package (the checker for roots without one): it must stay readable in the sandbox. */
function bundledCheckerDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
}
