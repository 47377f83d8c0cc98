/**
 * The sandbox under every model-driven process (issue 9 §1), as shapes. The settings live under the
 * `sandbox` key of the app settings; the status is what GET /api/status reports.
 */

/**
 * `workspace-write` (default): the workspace and mounts writable, everything else read-only or hidden.
 * `read-only`: nothing writable but a private /tmp. `off`: no sandbox at all (a person's choice).
 */
export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

/**
 * What happens when no sandbox can start (missing tool, user namespaces disabled):
 * `ask` (default): an attended call gets a fresh prompt that says "not sandboxed", an unattended one is refused;
 * `refuse`: every call is refused; `run`: commands run unsandboxed (prompts still say so).
 */
export type WhenUnavailable = 'ask' | 'refuse' | 'run';

export interface SandboxSettings {
  mode: SandboxMode;
  /** Network access from inside the sandbox (loopback of the host included). */
  network: boolean;
  whenUnavailable: WhenUnavailable;
}

export const SANDBOX_MODES: readonly SandboxMode[] = ['workspace-write', 'read-only', 'off'];
export const WHEN_UNAVAILABLE: readonly WhenUnavailable[] = ['ask', 'refuse', 'run'];

// Network off by default, as Codex's workspace-write: a command that can read the workspace and the
// user's home must not be able to send them anywhere unless a person turned the network on.
export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = { mode: 'workspace-write', network: false, whenUnavailable: 'ask' };

export type SandboxBackend = 'bwrap' | 'seatbelt';

/** The `sandbox` object of GET /api/status. */
export interface SandboxStatus {
  /** A sandbox can start on this machine (the probe ran the backend for real). */
  available: boolean;
  /** The backend that runs (or would run) commands; null when this platform has none. */
  backend: SandboxBackend | null;
  mode: SandboxMode;
  network: boolean;
  whenUnavailable: WhenUnavailable;
  /** Commands run inside the sandbox now: available and mode is not `off`. */
  active: boolean;
  /** Why commands are not sandboxed (probe failure or mode off); null when they are. */
  reason: string | null;
}

/** How to start one command: the program and the arguments that come before `bash -lc <command>`. */
export interface SandboxLaunch {
  program: string;
  prefix: string[];
  /**
   * Linux: the shell runs under a keeper (`<keeper...> <command>`) that writes the shell's exit code
   * on fd 3 and then stays while processes the command left in the background live (see linux.ts).
   */
  keeper?: string[];
}

/**
 * How the engine reads the login shell's environment (src/capabilities/shell/login-env.ts).
 * `launch`: inside this sandbox (nothing writable, no network, the home read-only). Neither field:
 * as is, outside (the sandbox is off, or commands run unsandboxed without asking, so they already
 * have every right the profile would give them). `refusal`: not at all (no sandbox can start and
 * commands are guarded: the profile may source files a command wrote).
 */
export interface LoginConfinement {
  launch?: SandboxLaunch;
  /** Environment overrides for the confined shell (TMPDIR). */
  env?: Record<string, string>;
  refusal?: string;
  /** Removes what the confinement made (Seatbelt's temp folder). */
  finish?: () => Promise<void>;
}

/** What a command may touch, decided per call from the fence's roots and the settings. */
export interface SandboxPlan {
  mode: Exclude<SandboxMode, 'off'>;
  network: boolean;
  /** Real absolute paths of the workspace and every mount. */
  roots: string[];
  /** The engine home: hidden, except roots inside it. */
  engineHome: string;
  /** The user's home: read-only, visible. */
  userHome: string;
  /** Files and folders kept read-only inside writable roots (.git config and hooks, start-up files). */
  readOnly: string[];
  /** Folders bound onto themselves first, so they cannot be renamed or removed (git dirs). */
  pinned?: string[];
  /** Missing files and folders git would read, kept from being made (an empty read-only one in their place). */
  emptyFiles?: string[];
  emptyDirs?: string[];
  /** Folders and files not there at all inside the sandbox (a vault's agentForbidden paths); optional so older callers need not pass it. */
  hidden?: Array<{ path: string; dir: boolean }>;
  /** The directory the command starts in. */
  cwd: string;
  /** Network on: the engine's egress proxy socket, bound into the sandbox as its only way out. */
  egressSocket?: string;
}
