/**
 * Spawns the real CLI (`node --import tsx src/main.ts serve`) or a fixture script and reads its
 * output line by line, so tests can wait for the printed address and other lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { patience } from './patience.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Spawned {
  child: ChildProcess;
  lines: string[];
  errLines: string[];
  /** Resolves with the first stdout line (past or future) matching `re` after index `from`; `timeoutMs` (quiet-machine ms, scaled) only bounds a hang. */
  waitForLine(re: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<{ line: string; match: RegExpExecArray; index: number }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

export function spawnNode(args: string[], env: Record<string, string | undefined>): Spawned {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const errLines: string[] = [];
  const waiters = new Set<() => void>();
  const feed = (target: string[]) => {
    let rest = '';
    return (chunk: Buffer) => {
      rest += chunk.toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      target.push(...parts);
      for (const w of [...waiters]) w();
    };
  };
  child.stdout!.on('data', feed(lines));
  child.stderr!.on('data', feed(errLines));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      // Let the last output chunks arrive before anyone reads them.
      setImmediate(() => {
        for (const w of [...waiters]) w();
        resolve({ code, signal });
      });
    });
  });
  return {
    child,
    lines,
    errLines,
    exited,
    kill: (signal = 'SIGTERM') => void (child.exitCode === null && child.signalCode === null && child.kill(signal)),
    waitForLine(re, { from = 0, timeoutMs: quietMs = 30_000 } = {}) {
      const timeoutMs = patience(quietMs);
      return new Promise((resolve, reject) => {
        const check = () => {
          for (let i = from; i < lines.length; i++) {
            const match = re.exec(lines[i]);
            if (match) {
              cleanup();
              resolve({ line: lines[i], match, index: i });
              return true;
            }
          }
          if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`process exited before printing ${re}; stdout: ${lines.join(' | ')}; stderr: ${errLines.join(' | ')}`));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no line matching ${re} within ${timeoutMs} ms; stdout: ${lines.join(' | ')}; stderr: ${errLines.join(' | ')}`));
        }, timeoutMs);
        const waiter = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        if (!check()) waiters.add(waiter);
      });
    },
  };
}

/** `engine serve` under its supervisor, on a free port, against `home`. */
export function spawnServe(home: string, env: Record<string, string> = {}): Spawned {
  return spawnNode(['src/main.ts', 'serve'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: home, ENGINE_SECRETS: 'file', ...env });
}

/** Matches the first line `engine: serving <url of the bound address>/api (home <path>, pid <supervisor pid>)`. */
export const SERVING = /^engine: serving (http:\/\/\S+)\/api \(home (.+), pid (\d+)\)$/;

/** Matches the line naming the engine process (the supervisor's child, restarted after a crash). */
export const ENGINE_PID = /^engine: engine process pid (\d+);/;
