/** The real CLI, spawned as a user runs it: temp homes and processes cleaned up after the file's tests. */
import { rm } from 'node:fs/promises';
import { after } from 'node:test';
import { isAlive } from '../../src/cli/pidfile.js';
import { tempDir } from './engine.js';
import { until } from './patience.js';
import { spawnNode, type Spawned } from './process.js';

export function cliHarness() {
  const homes: string[] = [];
  const procs: Spawned[] = [];
  after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });
  return {
    /** Every process a test spawns goes here, so a failed test leaves none running. */
    procs,
    home: async () => {
      const h = await tempDir('engine-cli-');
      homes.push(h);
      return h;
    },
    /** Runs the CLI to its end. */
    cli: async (args: string[], env: Record<string, string | undefined> = {}) => {
      const p = spawnNode(['src/main.ts', ...args], { ENGINE_SECRETS: 'file', ...env });
      procs.push(p);
      const { code } = await p.exited;
      return { code, out: p.lines.filter((l) => l.trim()), err: p.errLines.filter((l) => l.trim()) };
    },
    waitGone: async (pid: number) => {
      await until(`pid ${pid} to exit`, () => !isAlive(pid), 20_000).catch(() => undefined);
      return !isAlive(pid);
    },
  };
}
