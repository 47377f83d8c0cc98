/**
 * bubblewrap arguments for one command (Linux). bwrap builds a fresh mount namespace in the order
 * the arguments are given, so the order below is the policy:
 *
 *   1. the whole filesystem read-only, a minimal /dev, a /proc of a new pid namespace;
 *   2. private /tmp and /var/tmp (empty tmpfs; the host's are invisible), /run hidden and the
 *      container daemons' sockets covered (a unix socket is reachable on a read-only mount, and
 *      docker.sock is root on the host); with the network on, the engine's egress proxy socket is
 *      the one socket bound in (egress-bridge.ts);
 *   3. the user's home again, read-only (it may sit under /tmp, as a test's fake HOME does);
 *   4. the writable roots (workspace and mounts) outside the engine home, parents first;
 *   5. the engine home replaced by an empty read-only tmpfs (secrets.key, permissions.json, run
 *      logs invisible), then the roots inside it (the default workspace) bound again;
 *   6. the read-only islands inside writable roots: every git dir pinned, its config, hooks and
 *      the rest git reads read-only (repos.ts), and shell start-up files when the user's home is
 *      itself inside a writable root.
 *
 * Namespaces: a new network namespace always (network on or off: no socket reaches the host's
 * loopback, the engine's listeners among them); a user namespace where possible; a new pid namespace is required, not optional: with the host's /proc a command could
 * read the engine's environment or reach the unsandboxed filesystem through /proc/<pid>/root. It
 * also means every process a command started ends with it. All capabilities are dropped (bwrap
 * run as root keeps them otherwise, and a process with CAP_SYS_ADMIN could remount /). No
 * --new-session: the command has no terminal (stdin is /dev/null and the engine starts it with
 * setsid), and a new session would take it out of the process group the engine kills on timeout.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BRIDGE_SOURCE, bridgeStart, SANDBOX_SOCKET, type BridgeKind } from './egress-bridge.js';
import type { SandboxPlan } from './types.js';

/**
 * The sandbox's pid namespace ends when bwrap's first child exits, killing whatever the command left
 * running in the background (`npm run dev > dev.log 2>&1 &`). So the first child is this keeper: it
 * runs the command's shell (fd 3 closed for it; it sources no rc files: its environment is the login
 * shell's snapshot, src/capabilities/shell/login-env.ts), writes `<exit code> <processes left>` on fd 3
 * for the engine, closes its own output, then waits while any other process lives in the namespace
 * (pid 1 is bwrap's reaper, pid 2 the keeper; the glob forks nothing). bwrap itself holds the output
 * pipes while the sandbox lives, so the engine cannot wait for them to close: the count tells it
 * whether anything is left.
 */
const keeperScript = (prelude: string[], own: string) =>
  [
    ...prelude,
    own,
    'bash -c "$1" 3>&-',
    'code=$?',
    'own; set -- /proc/[0-9]*',
    'echo "$code $(($# - n))" >&3',
    'exec 3>&- >/dev/null 2>&1',
    'while :; do own; set -- /proc/[0-9]*; [ "$#" -le "$n" ] && exit "$code"; sleep 0.25; done',
  ].join('\n');

export const KEEPER = ['/bin/sh', '-c', keeperScript([], 'own() { n=2; }'), 'engine-sandbox'];

/**
 * With the network on, the keeper first starts the egress bridge and waits until it listens
 * (egress-bridge.ts); the bridge is the sandbox's own, not a process the command left behind.
 */
export function networkKeeper(node: string, bridge: BridgeKind = 'auto'): string[] {
  const start = bridgeStart();
  return ['/bin/sh', '-c', keeperScript(start.prelude, start.own), 'engine-sandbox', node, BRIDGE_SOURCE, bridge];
}

const PROC_COVER = ['/proc/sys', '/proc/sysrq-trigger'];

/**
 * bwrap run as root leaves a new /proc's sys and sysrq-trigger writable, and a process with uid 0
 * (even with no capabilities) may write global sysctls there (core_pattern runs a program as root):
 * every sandbox that mounts /proc covers them read-only, as bwrap does for an unprivileged user.
 */
export const procCover = (exists: (p: string) => boolean = existsSync): string[] => PROC_COVER.filter(exists).flatMap((p) => ['--ro-bind', p, p]);

const DAEMON_SOCKETS = ['/run/docker.sock', '/var/run/docker.sock', '/run/podman/podman.sock', '/run/containerd/containerd.sock'];

/** `p` is `dir` or inside it. */
export function isInside(p: string, dir: string): boolean {
  if (p === dir) return true;
  return p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

export function bwrapArgs(plan: SandboxPlan, exists: (p: string) => boolean = existsSync): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...procCover(exists)];
  for (const tmp of ['/tmp', '/var/tmp']) if (exists(tmp)) args.push('--tmpfs', tmp);
  if (exists('/run')) args.push('--tmpfs', '/run');
  for (const sock of DAEMON_SOCKETS) if (!sock.startsWith('/run/') && exists(sock)) args.push('--ro-bind', '/dev/null', sock);
  // The network's only way out: the engine's egress proxy, at a fixed path on the empty /run (a
  // command that joins the shared namespace reaches it through that namespace's bridge instead).
  if (plan.network && plan.egressSocket && !plan.joinNetwork) args.push('--ro-bind', plan.egressSocket, SANDBOX_SOCKET);
  if (plan.userHome && plan.userHome !== '/' && exists(plan.userHome)) args.push('--ro-bind', plan.userHome, plan.userHome);

  const bind = plan.mode === 'workspace-write' ? '--bind' : '--ro-bind';
  const roots = [...new Set(plan.roots)].filter((r) => exists(r)).sort((a, b) => a.length - b.length);
  const insideHome = (r: string) => isInside(r, plan.engineHome);
  for (const root of roots.filter((r) => !insideHome(r))) args.push(bind, root, root);
  args.push('--tmpfs', plan.engineHome);
  for (const root of roots.filter(insideHome)) args.push(bind, root, root);
  args.push('--remount-ro', plan.engineHome);
  // Git dirs pinned (a mount point cannot be renamed away and copied back), then what git reads.
  for (const p of [...new Set(plan.pinned ?? [])].sort()) if (exists(p)) args.push(bind, p, p);
  for (const p of [...new Set(plan.readOnly)].sort()) if (exists(p)) args.push('--ro-bind', p, p);
  for (const p of plan.emptyFiles ?? []) args.push('--ro-bind', '/dev/null', p);
  for (const p of plan.emptyDirs ?? []) args.push('--tmpfs', p, '--remount-ro', p);
  // Paths hidden from models (vaults' agentForbidden): an empty read-only folder, or /dev/null, in their place.
  for (const h of plan.hidden ?? []) {
    if (!exists(h.path)) continue;
    if (h.dir) args.push('--tmpfs', h.path, '--remount-ro', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  }

  // A user namespace too where one can be made (bwrap makes one anyway when not root): uid 0 inside
  // is then not the host's root for anything the mounts above leave visible.
  args.push('--unshare-user-try', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  // Always a network namespace of its own, or with the network on the shared one the engine's
  // egress session holds (egress-session.ts, joined before bwrap starts): either way the proxy is
  // the only way out.
  if (!(plan.network && plan.joinNetwork)) args.push('--unshare-net');
  args.push('--die-with-parent', '--cap-drop', 'ALL', '--chdir', plan.cwd, '--');
  return args;
}
