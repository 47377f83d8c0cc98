/**
 * A Seatbelt profile for `sandbox-exec` (macOS) with the same policy as the Linux one, as far as
 * Seatbelt can express it. NOT TESTED on a Mac (the engine is built and tested on Linux); it follows
 * the shape of Codex's and Claude Code's published profiles. Paths travel as `-D` parameters, never
 * spliced into the profile text, so a folder name cannot change the policy.
 *
 * Differences from Linux, said in docs/security.md: Seatbelt has no mount namespaces, so the private
 * /tmp is a fresh folder per command given as TMPDIR (writes to the real /tmp are refused), and
 * processes are not in a separate pid namespace (they see, but may not signal, the others).
 */
import type { SandboxPlan } from './types.js';

export interface SeatbeltLaunch {
  profile: string;
  /** `-D KEY=VALUE` parameters the profile reads with (param "KEY"). */
  params: Record<string, string>;
}

export function seatbeltProfile(plan: SandboxPlan, tmpDir: string): SeatbeltLaunch {
  const params: Record<string, string> = { ENGINE_HOME: plan.engineHome, TMP: tmpDir };
  const roots = [...new Set(plan.roots)];
  roots.forEach((r, i) => (params[`ROOT_${i}`] = r));
  plan.readOnly.forEach((p, i) => (params[`RO_${i}`] = p));
  const rootList = roots.map((_, i) => `(subpath (param "ROOT_${i}"))`).join(' ');
  const roList = plan.readOnly.map((_, i) => `(subpath (param "RO_${i}"))`).join(' ');
  // Roots inside the engine home stay readable; the rest of the home is invisible.
  const readable = `(require-any (require-not (subpath (param "ENGINE_HOME"))) ${rootList})`;
  const writable = plan.mode === 'workspace-write' ? `(subpath (param "TMP")) ${rootList}` : `(subpath (param "TMP"))`;
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow user-preference-read)',
    '(allow ipc-posix-sem)',
    '(allow pseudo-tty)',
    '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger") (global-name "com.apple.trustd.agent") (global-name "com.apple.SecurityServer") (global-name "com.apple.coreservices.launchservicesd"))',
    `(allow file-read* ${readable})`,
    `(allow file-write* (require-all (require-any ${writable}) ${roList ? `(require-not (require-any ${roList}))` : ''}))`,
    '(allow file-write-data file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
  ];
  // Paths hidden from models (vaults' agentForbidden): neither read nor written; a later deny outranks the allows above.
  (plan.hidden ?? []).forEach((h, i) => {
    params[`HID_${i}`] = h.path;
    lines.push(`(deny file-read* file-write* (${h.dir ? 'subpath' : 'literal'} (param "HID_${i}")))`);
  });
  if (plan.network) lines.push('(allow network*)', '(allow system-socket)', '(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.SystemConfiguration.configd"))');
  return { profile: lines.join('\n'), params };
}

/** `sandbox-exec -p <profile> -D K=V ... <program>`: the arguments before `bash -lc <command>`. */
export function seatbeltArgs(launch: SeatbeltLaunch): string[] {
  const args = ['-p', launch.profile];
  for (const [k, v] of Object.entries(launch.params)) args.push('-D', `${k}=${v}`);
  return args;
}
