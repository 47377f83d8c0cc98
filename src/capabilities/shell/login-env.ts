/**
 * The login shell's environment, read once (issue 26). Commands used to run as `bash -lc`, so
 * every one sourced the person's profile and rc files: a stale pyenv lock made each wait 60 s and a
 * `pyenv: cannot rehash` line opened every result. Now the login shell runs once, at start and when
 * asked (POST /api/shell/snapshot), prints its environment, and every command runs `bash -c` with
 * that snapshot (PATH from nvm, pyenv, Homebrew ... included), sourcing nothing, as Claude Code does.
 *
 * The profile sources files a sandboxed command can write (`~/.cargo/env`, `~/.pyenv/bin/pyenv`,
 * `~/bin/*` once the person's home is mounted), so the login shell itself runs in the sandbox, with
 * nothing writable and no network (issue 38 §2, docs/security.md "The login environment"); where no
 * sandbox can start and commands are guarded, it does not run at all. It starts from the engine's
 * environment minus its secrets: what the profile prints becomes every command's environment.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { LIMITS } from '../../kernel/limits.js';
import type { LoginConfinement } from '../../sandbox/types.js';
import { scrubEnv } from './env.js';

export interface LoginEnvSnapshot {
  /** The variables as the login shell left them (what the shell itself sets per command dropped). */
  env: Record<string, string>;
  /** The shell that was read, e.g. `/bin/zsh`. */
  shell: string;
  takenAt: number;
  durationMs: number;
  /** Why the engine's own environment stands in (the shell failed or took too long), when it does. */
  error?: string;
  /** The first line the profile printed on stderr, if any (it no longer reaches every result). */
  noise?: string;
}

export interface LoginEnvOptions {
  log: (line: string) => void;
  /** The HOME the login shell reads its files from (tests: a clean folder); commands keep the engine's HOME. */
  home?: string;
  /** The shell to read; default $SHELL, else bash. */
  shell?: string;
  timeoutMs?: number;
  /** Where the login shell may run (the sandbox's `confineLogin`); without it, as is (unit tests). */
  confine?: (profileHome: string) => Promise<LoginConfinement>;
}

// Set by bash for each command or meaningless across processes; BASH_ENV and ENV would make every
// non-interactive shell source a file again.
const PER_SHELL = new Set(['_', 'PWD', 'OLDPWD', 'SHLVL', 'BASH_ENV', 'ENV', 'PS1', 'PS2', 'PROMPT_COMMAND', 'COLUMNS', 'LINES']);

export function createLoginEnv(options: LoginEnvOptions) {
  let current: Promise<LoginEnvSnapshot> | undefined;

  async function take(): Promise<LoginEnvSnapshot> {
    const shell = options.shell ?? (process.env.SHELL && /(^|\/)(bash|zsh|sh|dash|ksh|fish)$/.test(process.env.SHELL) ? process.env.SHELL : 'bash');
    const started = Date.now();
    const profileHome = options.home ?? process.env.HOME ?? os.homedir();
    const confinement: LoginConfinement = options.confine ? await options.confine(profileHome) : {};
    let result: { out: string; err: string; error?: string };
    try {
      result = confinement.refusal ? { out: '', err: '', error: `the login shell was not read: ${confinement.refusal}` } : await read(shell, profileHome, confinement);
    } finally {
      await confinement.finish?.();
    }
    const vars: Record<string, string> = {};
    for (const pair of result.out.split('\0')) {
      const eq = pair.indexOf('=');
      if (eq > 0 && !PER_SHELL.has(pair.slice(0, eq))) vars[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    const ok = !result.error && Object.keys(vars).length > 0;
    const noise = result.err.split('\n').find((l) => l.trim())?.slice(0, 200);
    const snapshot: LoginEnvSnapshot = {
      env: ok ? vars : { ...(process.env as Record<string, string>) },
      shell,
      takenAt: Date.now(),
      durationMs: Date.now() - started,
      ...(ok ? {} : { error: result.error ?? 'the login shell printed no environment' }),
      ...(noise ? { noise } : {}),
    };
    // Commands keep the engine's HOME (a test's clean HOME is only where the profile was read from).
    if (process.env.HOME !== undefined) snapshot.env.HOME = process.env.HOME;
    else delete snapshot.env.HOME;
    for (const name of PER_SHELL) delete snapshot.env[name];
    if (snapshot.error) options.log(`shell: ${snapshot.error}; commands run with the engine's own environment until POST /api/shell/snapshot succeeds`);
    if (noise) options.log(`shell: the login shell printed "${noise}" while its environment was read`);
    return snapshot;
  }

  /** Runs `<shell> -l -c 'env -0'` (inside the confinement's sandbox when it names one). */
  function read(shell: string, profileHome: string, confinement: LoginConfinement): Promise<{ out: string; err: string; error?: string }> {
    const env = { ...scrubEnv(process.env), HOME: profileHome, ...confinement.env };
    const [program, args] = confinement.launch ? [confinement.launch.program, [...confinement.launch.prefix, shell, '-l', '-c', 'env -0']] : [shell, ['-l', '-c', 'env -0']];
    return new Promise((resolve) => {
      const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d.slice(0, 4_000)));
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
        resolve({ out: '', err, error: `the login shell took longer than ${Math.round((options.timeoutMs ?? LIMITS.loginEnvTimeoutMs) / 1000)} s` });
      }, options.timeoutMs ?? LIMITS.loginEnvTimeoutMs);
      timer.unref();
      child.once('error', (e) => (clearTimeout(timer), resolve({ out: '', err, error: `${program} could not start (${e.message})` })));
      child.once('close', (code) => (clearTimeout(timer), resolve(code === 0 ? { out, err } : { out: '', err, error: `the login shell exited with code ${code}` })));
    });
  }

  return {
    /** The snapshot, taking it on first use. */
    get(): Promise<LoginEnvSnapshot> {
      return (current ??= take());
    },
    /** Reads the login shell again (after a change to a profile or a version manager). */
    refresh(): Promise<LoginEnvSnapshot> {
      current = take();
      return current;
    },
  };
}

export type LoginEnv = ReturnType<typeof createLoginEnv>;
