/**
 * One network namespace for the network-on commands of this engine, with the egress bridge already
 * listening in it (issue 42): a command joins it (`nsenter -n` before its own bwrap, which then
 * makes every namespace but the network's) instead of starting a bridge of its own and waiting for
 * it to listen, which cost most of what the network added to `run_shell true` (bench/sandbox).
 *
 * The namespace is held by a small sandbox of its own (bwrap: the filesystem read-only, the engine
 * home hidden, /proc/sys read-only as for a command, a private /tmp and /run, the proxy's socket the
 * one thing bound in, every capability dropped, gone with the engine) whose only program is the
 * bridge: socat, or the engine's node. Its
 * loopback is the commands' only network, and the bridge to the egress proxy (egress-proxy.ts, the
 * URL floor on every destination) their only way out: the floor is the same as a namespace per
 * command. What the commands share is that loopback: a server one command leaves running is
 * reachable by the next, as in a terminal (docs/security.md).
 *
 * Started on the first network-on command, started again if it dies; bwrap's `--dev` is left out
 * so it makes one user namespace, which a person without privileges can then enter to join the
 * network (`nsenter -U -n`; root needs only `-n`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../kernel/limits.js';
import { BRIDGE_SOURCE, EGRESS_PORT, SANDBOX_SOCKET, type BridgeKind } from './egress-bridge.js';
import { procCover } from './linux.js';
import { onPath } from './probe.js';

export interface EgressSessionDeps {
  /** The bwrap that holds the namespace. */
  bwrap: string;
  /** The egress proxy's unix socket (started on first use). */
  socket: () => Promise<string>;
  /** Hidden from the holder, as from every command. */
  engineHome: string;
  /** `node`: the engine's node as the bridge even where socat is installed (tests of that bridge). */
  bridge?: BridgeKind;
  log?: (line: string) => void;
}

export interface EgressSession {
  /**
   * The program and arguments to put before a command's bwrap so it runs in the shared namespace
   * (the holder started first if it is not running), or undefined when no holder can start here.
   */
  join(): Promise<{ program: string; args: string[] } | undefined>;
  close(): void;
}

interface Holder {
  child: ChildProcess;
  /** The holder sandbox's first process, as this engine sees it: its namespaces are the ones joined. */
  pid: number;
}

/** /proc/<pid>/net/tcp's line of a socket listening on 127.0.0.1:EGRESS_PORT. */
const LISTENING = new RegExp(`^\\s*\\d+: 0100007F:${EGRESS_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A `, 'm');

export function createEgressSession(deps: EgressSessionDeps): EgressSession {
  let current: Holder | undefined;
  let starting: Promise<unknown> | undefined;
  let closed = false;
  /** Why no holder can start here (then every command starts its own bridge, as before). */
  let failed: string | undefined;
  const tools = Promise.all([onPath('nsenter'), deps.bridge === 'node' ? null : onPath('socat')]);

  async function start(): Promise<void> {
    const [nsenter, socat] = await tools;
    if (!nsenter) throw new Error('nsenter (util-linux) is not on PATH');
    const socket = await deps.socket();
    const bridge = socat
      ? [socat, `TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,reuseaddr,fork`, `UNIX-CONNECT:${SANDBOX_SOCKET}`]
      : [process.execPath, '-e', BRIDGE_SOURCE, String(EGRESS_PORT), SANDBOX_SOCKET];
    const args = [
      '--ro-bind', '/', '/', '--proc', '/proc', ...procCover(), '--tmpfs', '/tmp', '--tmpfs', '/run', '--ro-bind', socket, SANDBOX_SOCKET,
      '--tmpfs', deps.engineHome, '--remount-ro', deps.engineHome,
      '--unshare-user-try', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-net',
      '--die-with-parent', '--cap-drop', 'ALL', '--info-fd', '3', '--chdir', '/', '--', ...bridge,
    ];
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const child = spawn(deps.bwrap, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-500)));
    let exited = false;
    child.once('exit', () => {
      exited = true;
      if (current?.child === child) current = undefined;
    });
    // bwrap writes {"child-pid": N, ...} on its info fd once the sandbox's first process exists.
    let info = '';
    for await (const chunk of child.stdio[3] as NodeJS.ReadableStream) {
      info += chunk.toString();
      if (info.includes('}')) break;
    }
    const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1]);
    if (!pid) {
      child.kill('SIGKILL');
      throw new Error(`bwrap did not start the holder: ${stderr.trim().split('\n')[0] || 'no child pid'}`);
    }
    // Commands may join once the bridge listens, or their first connection would be refused.
    const deadline = Date.now() + LIMITS.egressSessionStartMs;
    while (!LISTENING.test(await readFile(`/proc/${pid}/net/tcp`, 'utf8').catch(() => ''))) {
      if (exited || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(exited ? `the bridge exited: ${stderr.trim().split('\n')[0] || 'no message'}` : 'the bridge did not listen in time');
      }
      await sleep(5);
    }
    child.unref();
    (child.stderr as NodeJS.ReadableStream & { unref?: () => void }).unref?.();
    if (closed) child.kill('SIGKILL');
    else current = { child, pid };
  }

  return {
    async join() {
      // Never started, or it died: start it (once, however many commands ask at the same time).
      if (!current && !closed && !failed) {
        starting ??= start()
          .catch((err) => {
            failed = (err as Error).message;
            deps.log?.(`sandbox: no shared network namespace for network-on commands (${failed}); each command starts its own bridge`);
          })
          .finally(() => (starting = undefined));
        await starting;
      }
      if (!current || closed) return undefined;
      const [nsenter] = await tools;
      // Without privileges the holder's user namespace is entered first: it owns the network namespace.
      const user = process.getuid?.() === 0 ? [] : ['-U', '--preserve-credentials'];
      return { program: nsenter!, args: ['-t', String(current.pid), ...user, '-n', '--'] };
    },
    close() {
      closed = true;
      current?.child.kill('SIGKILL');
      current = undefined;
    },
  };
}
