/**
 * Keeps the load generator off the servers' core (Linux, `taskset`). On two cores a load generator
 * scheduled beside the server decides the rate as much as the server does: the same code read 0.46,
 * 0.62 and 0.83 of the bare server in three runs of bench/status-throughput. Pinned (the servers, one
 * at a time under load, on CPU 0 with every thread; the generator on the others) it read 0.77 with
 * its rounds within 10 %. Both sides get the same core, so the comparison stays fair. Without
 * `taskset` or a second CPU nothing is pinned, and the bench says so.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';

export function pinApart(servers: number[], client: number): string {
  const cpus = os.availableParallelism();
  if (process.platform !== 'linux' || cpus < 2 || process.env.BENCH_PIN === '0') return 'not pinned';
  const set = (mask: string, pid: number) => spawnSync('taskset', ['-a', '-p', mask, String(pid)], { stdio: 'ignore' }).status === 0;
  const others = ((1n << BigInt(cpus)) - 2n).toString(16);
  const ok = servers.every((pid) => set('1', pid)) && set(others, client);
  return ok ? `pinned: servers on CPU 0, the load generator on CPU 1-${cpus - 1} (BENCH_PIN=0 to turn off)` : 'not pinned (taskset failed)';
}
