/** Starts a bench fixture in its own process (through tsx) and waits for its `port <n>` line. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function startFixture(name: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const child = fork(path.join(BENCH_DIR, 'fixtures', name), [], { execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROF ? (process.env.BENCH_HEAP ? ['--heap-prof', '--heap-prof-dir=' + process.env.BENCH_PROF] : ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF]) : [])], stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
  return {
    child,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
