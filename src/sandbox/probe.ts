/**
 * Whether a sandbox can start here, found by starting one for real (once per engine process and
 * backend path, then cached): a bwrap on PATH proves nothing when the kernel refuses user
 * namespaces (sysctls, AppArmor's restrict_unprivileged_userns, a container without the rights),
 * and that only shows when bwrap runs. The reason kept is bwrap's own first line of complaint.
 */
import { execFile } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { LIMITS } from '../kernel/limits.js';
import type { SandboxBackend } from './types.js';

export interface ProbeResult {
  backend: SandboxBackend | null;
  /** The program that starts the sandbox (absolute), when one was found. */
  program: string | null;
  available: boolean;
  reason: string | null;
}

export interface ProbeOptions {
  platform?: NodeJS.Platform;
  /** The bwrap to use (tests point it at a missing file); default: `bwrap` on PATH. */
  bwrap?: string;
  /** The sandbox-exec to use; default /usr/bin/sandbox-exec. */
  sandboxExec?: string;
}

const cache = new Map<string, Promise<ProbeResult>>();

export function probeSandbox(options: ProbeOptions = {}): Promise<ProbeResult> {
  const platform = options.platform ?? process.platform;
  const key = `${platform}\u0000${options.bwrap ?? ''}\u0000${options.sandboxExec ?? ''}`;
  let result = cache.get(key);
  if (!result) {
    result = platform === 'linux' ? probeBwrap(options.bwrap) : platform === 'darwin' ? probeSeatbelt(options.sandboxExec ?? '/usr/bin/sandbox-exec') : Promise.resolve(none(platform));
    cache.set(key, result);
  }
  return result;
}

function none(platform: string): ProbeResult {
  return { backend: null, program: null, available: false, reason: `no sandbox backend exists for ${platform} (bubblewrap on Linux and Seatbelt on macOS are supported)` };
}

async function probeBwrap(wanted: string | undefined): Promise<ProbeResult> {
  const program = wanted ? path.resolve(wanted) : await onPath('bwrap');
  if (!program || !(await executable(program))) {
    return {
      backend: 'bwrap',
      program: null,
      available: false,
      reason: `bubblewrap (bwrap) was not found${wanted ? ` at ${wanted}` : ' on PATH'}; install it (Debian and Ubuntu: apt-get install bubblewrap)`,
    };
  }
  // The same namespaces every command gets: a probe with fewer would pass where commands fail.
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys', '--tmpfs', '/tmp'];
  args.push('--unshare-user-try', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--die-with-parent', '--cap-drop', 'ALL', '--', 'true');
  const failure = await run(program, args);
  if (failure === undefined) return { backend: 'bwrap', program, available: true, reason: null };
  return { backend: 'bwrap', program, available: false, reason: `bubblewrap cannot start a sandbox here: ${failure} (are unprivileged user namespaces disabled? see docs/security.md)` };
}

async function probeSeatbelt(program: string): Promise<ProbeResult> {
  if (!(await executable(program))) return { backend: 'seatbelt', program: null, available: false, reason: `sandbox-exec was not found at ${program}` };
  const failure = await run(program, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
  if (failure === undefined) return { backend: 'seatbelt', program, available: true, reason: null };
  return { backend: 'seatbelt', program, available: false, reason: `sandbox-exec cannot start a sandbox here: ${failure}` };
}

/** Undefined when the program ran and exited 0; else the first line it complained with. */
function run(program: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(program, args, { timeout: LIMITS.sandboxProbeTimeoutMs, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      const line = String(stderr).trim().split('\n')[0] || (err as NodeJS.ErrnoException).code?.toString() || err.message;
      resolve(line.slice(0, 300));
    });
  });
}

/** The first executable `name` on PATH, absolute. */
export async function onPath(name: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (await executable(p)) return p;
  }
  return null;
}

async function executable(p: string): Promise<boolean> {
  try {
    await fs.access(p, constants.X_OK);
    return (await fs.stat(p)).isFile();
  } catch {
    return false;
  }
}
