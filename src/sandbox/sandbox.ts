/**
 * The sandbox service: one per engine. It answers three questions for the shell capability:
 *   - status(): can a sandbox start here, and in which mode (GET /api/status);
 *   - request(): the permission request of an unsandboxed command, marked "not sandboxed" (and a
 *     fresh prompt or a refusal, per `sandbox.whenUnavailable`);
 *   - prepare(): how to start one command (bwrap or sandbox-exec in front of `bash -lc`), or a
 *     refusal when it must not run unsandboxed.
 * @anthropic-ai/sandbox-runtime does the same for Claude Code but needs Node 22.12 and the engine
 * supports Node 20.19: this drives bwrap and sandbox-exec directly (docs/security.md).
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { forbidden } from '../kernel/errors.js';
import type { PermissionRequest } from '../tools/types.js';
import { programsSetIn } from './git-config.js';
import { bwrapArgs, isInside, KEEPER } from './linux.js';
import { seatbeltArgs, seatbeltProfile } from './macos.js';
import { trackNetworkSandbox } from './peer.js';
import { probeSandbox, type ProbeResult } from './probe.js';
import { scanRepos } from './repos.js';
import type { SandboxLaunch, SandboxPlan, SandboxSettings, SandboxStatus } from './types.js';

export interface SandboxDeps {
  settings: () => SandboxSettings;
  /** The engine home: invisible inside the sandbox, except roots inside it. */
  engineHome: string;
  /** The user's home (read-only inside); default os.homedir(). */
  userHome?: string;
  /** Tests only: the bwrap to probe and use (a missing file makes the sandbox unavailable). Else ENGINE_SANDBOX_BWRAP, else PATH. */
  bwrap?: string;
  platform?: NodeJS.Platform;
}

/** Shell start-up files: never writable, even when the user's home is inside a writable root. */
// Files a shell, git or the desktop reads and runs later, outside any sandbox.
const STARTUP_FILES = [
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.inputrc',
  '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.config/fish',
  '.gitconfig', '.config/git', '.ssh', '.npmrc', '.pypirc', '.netrc',
  '.local/bin', '.config/autostart', '.config/systemd', '.config/environment.d', '.pam_environment', '.xprofile', '.xsessionrc',
];

export interface PreparedCommand {
  /** Undefined: run unsandboxed (mode off, or allowed by a person or by `whenUnavailable: run`). */
  launch?: SandboxLaunch;
  /** Environment overrides (TMPDIR pointing into the private temp folder). */
  env: Record<string, string>;
  /** Runs after the command: new repositories with programs set, as sentences; cleans temp folders. */
  finish(): Promise<string[]>;
}

export type Sandbox = ReturnType<typeof createSandbox>;

export function createSandbox(deps: SandboxDeps) {
  const platform = deps.platform ?? process.platform;
  const userHome = deps.userHome ?? os.homedir();
  const probe = (): Promise<ProbeResult> => probeSandbox({ platform, bwrap: deps.bwrap ?? (process.env.ENGINE_SANDBOX_BWRAP || undefined) });

  async function status(): Promise<SandboxStatus> {
    const s = deps.settings();
    const p = await probe();
    const active = p.available && s.mode !== 'off';
    const reason = active ? null : s.mode === 'off' ? 'sandbox.mode is "off": commands run with the engine\'s full rights' : p.reason;
    return { available: p.available, backend: p.backend, mode: s.mode, network: s.network, whenUnavailable: s.whenUnavailable, active, reason };
  }

  /**
   * Marks a shell permission request when the command would run unsandboxed: the prompt says so;
   * with `whenUnavailable: ask` an attended call gets a fresh prompt even under an allow rule and an
   * unattended one is refused; with `refuse` every call is refused.
   */
  async function request(base: PermissionRequest, attended: boolean): Promise<PermissionRequest> {
    if (base.hardDeny) return base;
    const st = await status();
    if (st.active) return base;
    const note = `not sandboxed: ${st.reason}`;
    const display = `${base.display ?? base.key}\n[${note}]`;
    if (st.mode === 'off' || st.whenUnavailable === 'run') return { ...base, display };
    if (st.whenUnavailable === 'refuse' || !attended) return { ...base, display, hardDeny: refusal(st, attended) };
    const why = `${note}; allowing runs it with your full rights`;
    return { ...base, display, forcePrompt: base.forcePrompt ? `${base.forcePrompt}; ${why}` : why };
  }

  /**
   * How to start one command in `cwd` with the fence's roots writable. `approvedUnsandboxed`: a
   * person was asked (the attended prompt above) and allowed it to run without the sandbox.
   * `visible`: paths of the engine's own a command needs to read (the bundled type checker), shown
   * read-only even where they sit in a place the sandbox hides (an install under /tmp).
   */
  async function prepare(options: { roots: string[]; cwd: string; approvedUnsandboxed?: boolean; visible?: string[]; hidden?: SandboxPlan['hidden']; readOnly?: string[] }): Promise<PreparedCommand> {
    const st = await status();
    const nothing: PreparedCommand = { env: {}, finish: async () => [] };
    if (st.mode === 'off') return nothing;
    const p = await probe();
    if (!p.available || !p.program) {
      if (st.whenUnavailable === 'run' || (st.whenUnavailable === 'ask' && options.approvedUnsandboxed)) return nothing;
      throw forbidden(refusal(st, false));
    }
    const s = deps.settings();
    const writable = s.mode === 'workspace-write';
    const scan = writable ? await scanRepos(options.roots) : { gitDirs: [], readOnly: [], truncated: false };
    const readOnly = [...scan.readOnly, ...(options.visible ?? []), ...(options.readOnly ?? [])];
    // A mount holding the user's home would make its start-up files writable: keep them read-only.
    if (writable && options.roots.some((r) => isInside(userHome, r))) readOnly.push(...STARTUP_FILES.map((f) => path.join(userHome, f)));
    // Real paths on both sides, so "is this root inside the home" compares like with like.
    const [engineHome, realUserHome] = await Promise.all([realpath(deps.engineHome).catch(() => deps.engineHome), realpath(userHome).catch(() => userHome)]);
    const plan: SandboxPlan = { mode: s.mode as SandboxPlan['mode'], network: s.network, roots: options.roots, engineHome, userHome: realUserHome, readOnly, hidden: options.hidden, cwd: options.cwd };

    const known = new Set(scan.gitDirs);
    const finishScan = async (): Promise<string[]> => {
      if (!writable) return [];
      const after = await scanRepos(options.roots);
      const notes: string[] = [];
      for (const dir of after.gitDirs.filter((d) => !known.has(d))) {
        const programs = await programsSetIn(dir);
        if (programs.length) notes.push(`the command created the repository ${dir} and set programs git will run there (${programs.join(', ')}); they were written inside the sandbox and run outside it when someone uses git there`);
      }
      return notes;
    };

    if (p.backend === 'bwrap') {
      // With the network on, connections this sandbox opens to the engine's own port are dropped.
      const track = plan.network ? trackNetworkSandbox : undefined;
      return { launch: { program: p.program, prefix: bwrapArgs(plan), keeper: KEEPER, track }, env: { TMPDIR: '/tmp' }, finish: finishScan };
    }
    // Seatbelt has no private /tmp: a fresh folder per command, given as TMPDIR, removed afterwards.
    // Seatbelt matches real paths (/private/var/folders/..., not /var/folders/...).
    const tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'engine-sandbox-')));
    return {
      launch: { program: p.program, prefix: seatbeltArgs(seatbeltProfile(plan, tmp)) },
      env: { TMPDIR: tmp },
      finish: async () => {
        await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
        return finishScan();
      },
    };
  }

  return { status, request, prepare, probe };
}

function refusal(st: SandboxStatus, attended: boolean): string {
  const why = `run_shell is refused: no sandbox can start here (${st.reason})`;
  if (st.whenUnavailable === 'refuse') return `${why} and the setting sandbox.whenUnavailable is "refuse". Fix the sandbox, or a person can change that setting at /api/settings.`;
  return attended
    ? `${why} and nobody approved running it unsandboxed. Fix the sandbox, or set sandbox.whenUnavailable at /api/settings.`
    : `${why} and nobody is watching this run to approve running it unsandboxed. Fix the sandbox, or a person can set sandbox.whenUnavailable to "run" at /api/settings.`;
}
