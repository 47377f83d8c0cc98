/**
 * With `sandbox.network: true` a sandboxed command shares the host's network, so it could reach the
 * engine's own API on loopback, which trusts local processes: change settings, add rules, open
 * /term (an unsandboxed shell). This tells the engine, for a new connection, whether the
 * process that opened it is inside one of its network-on sandboxes, so the connection is dropped.
 *
 * How (Linux): the client's socket inode comes from /proc/net/tcp{,6} (the entry whose local port is
 * the connection's remote port and whose remote port is ours), and the owner is looked for among the
 * descendants of each live sandbox's bwrap (via /proc/<pid>/task/<tid>/children) by their open fds.
 * Nothing is read while no network-on sandbox is alive, which is the default.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const live = new Set<number>();

/** Registers a running network-on sandbox by its bwrap pid; the returned function forgets it. */
export function trackNetworkSandbox(pid: number): () => void {
  live.add(pid);
  return () => live.delete(pid);
}

export interface PeerSocket {
  remoteAddress?: string;
  remotePort?: number;
  localPort?: number;
}

export function fromSandbox(socket: PeerSocket): boolean {
  if (live.size === 0 || process.platform !== 'linux') return false;
  const { remoteAddress, remotePort, localPort } = socket;
  // Any address, not only loopback: with ENGINE_BIND=0.0.0.0 the machine's own addresses reach it too.
  if (!remoteAddress || !remotePort || !localPort) return false;
  const inode = clientInode(remotePort, localPort);
  if (!inode) return false;
  const wanted = `socket:[${inode}]`;
  for (const root of live) {
    for (const pid of descendants(root)) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          if (readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted) return true;
        } catch {
          // The fd closed meanwhile.
        }
      }
    }
  }
  return false;
}

/** The inode of the socket bound to local port `clientPort` and connected to port `serverPort`. */
function clientInode(clientPort: number, serverPort: number): string | undefined {
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = parseInt(f[1].split(':')[1], 16);
      const remote = parseInt(f[2].split(':')[1], 16);
      if (local === clientPort && remote === serverPort && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

/** `pid` and every process below it. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length && out.length < 10_000) {
    const p = queue.shift()!;
    out.push(p);
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/)) if (c) queue.push(Number(c));
      } catch {
        // The task ended.
      }
    }
  }
  return out;
}
