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
import { urlFloor, type UrlFloor } from '../capabilities/web/floor.js';
import { forbidden } from '../kernel/errors.js';
import type { PermissionRequest } from '../tools/types.js';
import { egressEnv, type BridgeKind } from './egress-bridge.js';
import { createEgressProxy } from './egress-proxy.js';
import { programsSetIn } from './git-config.js';
import { bwrapArgs, isInside, KEEPER, networkKeeper } from './linux.js';
import { seatbeltArgs, seatbeltProfile } from './macos.js';
import { probeSandbox, type ProbeResult } from './probe.js';
import { scanRepos } from './repos.js';
import type { LoginConfinement, SandboxLaunch, SandboxPlan, SandboxSettings, SandboxStatus } from './types.js';

export interface SandboxDeps {
  settings: () => SandboxSettings;
  /** The engine home: invisible inside the sandbox, except roots inside it. */
  engineHome: string;
  /** The user's home (read-only inside); default os.homedir(). */
  userHome?: string;
  /** Tests only: the bwrap to probe and use (a missing file makes the sandbox unavailable). Else ENGINE_SANDBOX_BWRAP, else PATH. */
  bwrap?: string;
  platform?: NodeJS.Platform;
  /** Operational log lines (a repository layout the scan skipped). */
  log?: (line: string) => void;
  /** Tests only: the floor of the egress proxy (a loopback stand-in for a registry). Else the URL floor. */
  egressFloor?: UrlFloor;
  /** Tests only: `node` forces the node bridge where socat is present. */
  egressBridge?: BridgeKind;
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
  // A network-on sandbox's only way out (started on first use; see egress-proxy.ts).
  const egress = createEgressProxy(deps.egressFloor ?? urlFloor);
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
    const scan = writable ? await scanRepos(options.roots, { log: deps.log }) : undefined;
    const readOnly = [...(scan?.readOnly ?? []), ...(options.visible ?? []), ...(options.readOnly ?? [])];
    // A mount holding the user's home would make its start-up files writable: keep them read-only.
    if (writable && options.roots.some((r) => isInside(userHome, r))) readOnly.push(...STARTUP_FILES.map((f) => path.join(userHome, f)));
    // Real paths on both sides, so "is this root inside the home" compares like with like.
    const [engineHome, realUserHome] = await Promise.all([realpath(deps.engineHome).catch(() => deps.engineHome), realpath(userHome).catch(() => userHome)]);
    const plan: SandboxPlan = { mode: s.mode as SandboxPlan['mode'], network: s.network, roots: options.roots, engineHome, userHome: realUserHome, readOnly, pinned: scan?.pinned, emptyFiles: scan?.emptyFiles, emptyDirs: scan?.emptyDirs, hidden: options.hidden, cwd: options.cwd };

    // What each repository's git reads named before the command: a command can still point a
    // pinned git dir elsewhere (a new `commondir`), so afterwards every repository is read again.
    const before = new Map<string, Set<string>>();
    for (const dir of scan?.gitDirs ?? []) before.set(dir, new Set(await programsSetIn(dir)));
    const finishScan = async (): Promise<string[]> => {
      if (!writable) return [];
      const after = await scanRepos(options.roots);
      const notes: string[] = [];
      for (const dir of after.gitDirs) {
        const had = before.get(dir);
        // A new worktree's commondir is how `git worktree add` makes one; only a changed repository's is news.
        const added = (await programsSetIn(dir)).filter((p) => !had?.has(p) && (had || !p.startsWith('commondir:')));
        if (!added.length) continue;
        const what = had ? `changed the repository ${dir} so git there runs programs` : `created the repository ${dir} and set programs git will run there`;
        notes.push(`the command ${what} (${added.join(', ')}); they were written inside the sandbox and run outside it when someone uses git there`);
      }
      return notes;
    };

    if (p.backend === 'bwrap') {
      if (!plan.network) return { launch: { program: p.program, prefix: bwrapArgs(plan), keeper: KEEPER }, env: { TMPDIR: '/tmp' }, finish: finishScan };
      // The network on: its own namespace still, with the engine's proxy as the only way out, reached
      // through a bridge (socat, or the engine's own node, kept visible wherever it is installed).
      plan.egressSocket = await egress.socket();
      plan.readOnly.push(process.execPath);
      const launch = { program: p.program, prefix: bwrapArgs(plan), keeper: networkKeeper(process.execPath, deps.egressBridge) };
      return { launch, env: { TMPDIR: '/tmp', ...egressEnv() }, finish: finishScan };
    }
    // Seatbelt has no private /tmp: a fresh folder per command, given as TMPDIR, removed afterwards.
    // Seatbelt matches real paths (/private/var/folders/..., not /var/folders/...).
    const tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'engine-sandbox-')));
    return {
      // Seatbelt's rules are by path: a missing config.worktree or hooks is simply denied.
      launch: { program: p.program, prefix: seatbeltArgs(seatbeltProfile({ ...plan, readOnly: [...readOnly, ...(scan?.emptyFiles ?? []), ...(scan?.emptyDirs ?? [])] }, tmp)) },
      env: { TMPDIR: tmp },
      finish: async () => {
        await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
        return finishScan();
      },
    };
  }

  /**
   * How the engine starts its own git on a tree a model can write (docs/security.md, "Engine-side
   * git"): inside a sandbox like the model's commands (network off, the engine home hidden, nothing
   * outside `writable` writable), so a filter, hook or fsmonitor a command planted runs no more
   * freely than that command did. Undefined when no bwrap sandbox is active; the command line's
   * neutralised settings then hold alone.
   */
  async function confineGit(writable: string[], cwd: string): Promise<{ program: string; prefix: string[] } | undefined> {
    if (!(await status()).active) return undefined;
    const p = await probe();
    if (p.backend !== 'bwrap' || !p.program) return undefined;
    const [engineHome, realUserHome] = await Promise.all([realpath(deps.engineHome).catch(() => deps.engineHome), realpath(userHome).catch(() => userHome)]);
    const plan: SandboxPlan = { mode: 'workspace-write', network: false, roots: writable, engineHome, userHome: realUserHome, readOnly: [], cwd };
    return { program: p.program, prefix: bwrapArgs(plan) };
  }

  /**
   * How the login shell whose environment commands start from is read (docs/security.md, "The login
   * environment"): its profile sources and runs files a sandboxed command can write when the
   * person's home is mounted (`~/.cargo/env`, pyenv, `~/bin/*`), and no list of start-up files can
   * know which. So it runs in a sandbox like a command's, with nothing writable, no network, the
   * engine home and hidden paths not there; all it must do is print `env -0`.
   */
  async function confineLogin(profileHome: string, hidden?: SandboxPlan['hidden']): Promise<LoginConfinement> {
    const st = await status();
    // Commands already run with the person's full rights: the profile gives them nothing more.
    if (st.mode === 'off' || (!st.available && st.whenUnavailable === 'run')) return {};
    const p = await probe();
    if (!st.active || !p.program) {
      return { refusal: `no sandbox can start here (${st.reason}) and the profile may run files a command wrote (docs/security.md, "The login environment")` };
    }
    const [engineHome, realUserHome, home] = await Promise.all([deps.engineHome, userHome, profileHome].map((d) => realpath(d).catch(() => d)));
    const plan: SandboxPlan = { mode: 'read-only', network: false, roots: [], engineHome, userHome: realUserHome, readOnly: [home], hidden, cwd: home };
    if (p.backend === 'bwrap') return { launch: { program: p.program, prefix: bwrapArgs(plan) }, env: { TMPDIR: '/tmp' } };
    const tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'engine-login-')));
    return {
      launch: { program: p.program, prefix: seatbeltArgs(seatbeltProfile(plan, tmp)) },
      env: { TMPDIR: tmp },
      finish: () => rm(tmp, { recursive: true, force: true }).catch(() => undefined),
    };
  }

  return { status, request, prepare, probe, confineGit, confineLogin, close: () => egress.close() };
}

function refusal(st: SandboxStatus, attended: boolean): string {
  const why = `run_shell is refused: no sandbox can start here (${st.reason})`;
  if (st.whenUnavailable === 'refuse') return `${why} and the setting sandbox.whenUnavailable is "refuse". Fix the sandbox, or a person can change that setting at /api/settings.`;
  return attended
    ? `${why} and nobody approved running it unsandboxed. Fix the sandbox, or set sandbox.whenUnavailable at /api/settings.`
    : `${why} and nobody is watching this run to approve running it unsandboxed. Fix the sandbox, or a person can set sandbox.whenUnavailable to "run" at /api/settings.`;
}
