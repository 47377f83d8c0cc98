/**
 * The one spawn path for shell commands: run_shell and the `command` workflow node both come here,
 * so both get the hard denylist, the login shell in its own process group, the scrubbed environment,
 * the timeout and the output bounds.
 */
import { spawn } from 'node:child_process';
import { forbidden } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import type { SandboxLaunch } from '../../sandbox/types.js';
import type { HardDenied } from './types.js';

export interface RunCommandOptions {
  command: string;
  /** Real absolute directory, already resolved inside the fence. */
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Default LIMITS.shellTimeoutMs (300 s). */
  timeoutMs?: number;
  /** The OS sandbox to start the shell in (src/sandbox): `<program> <prefix...> bash -c <command>`. */
  sandbox?: SandboxLaunch;
  /** The hard denylist, checked here too so no caller can skip it. */
  hardDenied?: HardDenied;
  /** Called with the output as it is read (live output); what the read bound cuts off is not passed. */
  onOutput?: (chunk: string) => void;
  /** Output bounds (defaults from LIMITS); tests and callers with tighter budgets may lower them. */
  headChars?: number;
  tailChars?: number;
  readChars?: number;
}

export interface CommandResult {
  /** The exit code; 128 + signal number when the shell died by a signal. */
  exitCode: number;
  /** The signal that ended the shell, when one did. */
  signal?: NodeJS.Signals;
  timedOut: boolean;
  aborted: boolean;
  /** Reading stopped at the read bound; the rest of the output was never read. */
  readStopped: boolean;
  /**
   * The shell exited but a background process it started still held the output pipes: the call
   * returned without waiting for it, and it was left running (its later output is not captured).
   */
  backgroundHeld: boolean;
  /** The shell exited and left processes running in its sandbox (which stays for them); their later output is not captured. */
  backgroundInSandbox?: boolean;
  /** Characters read (at most the read bound). */
  charsRead: number;
  /** Head and tail of the combined output with the gap named. */
  output: string;
  durationMs: number;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };

export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const denied = options.hardDenied?.(options.command);
  if (denied) throw forbidden(denied);
  const timeoutMs = options.timeoutMs ?? LIMITS.shellTimeoutMs;
  const readChars = options.readChars ?? LIMITS.shellReadChars;
  const started = Date.now();
  if (options.signal?.aborted) {
    return { exitCode: 130, signal: undefined, timedOut: false, aborted: true, readStopped: false, backgroundHeld: false, charsRead: 0, output: '', durationMs: 0 };
  }

  // `bash -c`, sourcing nothing: the caller's environment is the login shell's snapshot (login-env.ts),
  // so the user's PATH and tool managers (nvm, pyenv ...) are there without running their rc files.
  // detached: its own process group, so stopping kills the command and everything it started.
  // Inside a sandbox the same bash starts under bwrap or sandbox-exec; the process group then holds
  // the sandbox's monitor and everything in it, so a timeout or a stop still kills it all.
  const shellArgs = ['-c', options.command];
  const box = options.sandbox;
  const keeper = box?.keeper;
  const [file, args] = !box ? ['bash', shellArgs] : keeper ? [box.program, [...box.prefix, ...keeper, options.command]] : [box.program, [...box.prefix, 'bash', ...shellArgs]];
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    // fd 3: the sandbox keeper reports the shell's exit code there (src/sandbox/linux.ts).
    stdio: keeper ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  });

  // Until the sandbox exits (background processes may keep it past the call).

  let text = '';
  let readStopped = false;
  let timedOut = false;
  let aborted = false;
  let collecting = true;
  const onData = (chunk: string) => {
    if (readStopped || !collecting) return;
    const room = readChars - text.length;
    if (chunk.length >= room) {
      text += chunk.slice(0, room);
      options.onOutput?.(chunk.slice(0, room));
      // Stop reading: further writes fail (EPIPE/SIGPIPE) instead of filling memory.
      readStopped = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
      return;
    }
    text += chunk;
    options.onOutput?.(chunk);
  };
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);

  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  const killGroup = () => {
    signalGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), LIMITS.shellKillGraceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  // The call ends when the shell has exited and its output pipes closed. A background process the
  // command started (`server &`) keeps the pipes open for as long as it lives: after the shell exits
  // the pipes get LIMITS.shellDrainMs to close, then the call returns without it (as opencode does).
  let backgroundHeld = false;
  let backgroundInSandbox = false;
  let settled = false;
  const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }>((resolveOutcome) => {
    const resolve = (o: { code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }) => {
      settled = true;
      resolveOutcome(o);
    };
    const onShellExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled || drainTimer) return;
      drainTimer = setTimeout(() => {
        // Output already in the pipes is read in this loop turn's poll phase, before the immediate.
        setImmediate(() => {
          if (settled) return;
          backgroundHeld = true;
          resolve({ code, signal });
        });
      }, LIMITS.shellDrainMs);
    };
    child.once('exit', onShellExit);
    if (keeper) {
      // In the sandbox the shell's exit is the keeper's report, not bwrap's exit (bwrap stays while
      // background processes do); with the report in and both output pipes closed, the call is done.
      let report = '';
      let code: number | undefined;
      let closed = 0;
      const done = () => code !== undefined && closed === 2 && resolve({ code, signal: null });
      // Processes left in the sandbox: bwrap holds the pipes while they live, so they would never
      // close. Take what arrives within the drain time, then return and leave them running.
      const leave = (exitCode: number) => {
        drainTimer = setTimeout(() => {
          setImmediate(() => {
            if (settled) return;
            backgroundInSandbox = true;
            resolve({ code: exitCode, signal: null });
          });
        }, LIMITS.shellDrainMs);
      };
      const status = child.stdio[3] as NodeJS.ReadableStream & { setEncoding(e: string): void };
      status.setEncoding('utf8');
      status.on('data', (d: string) => {
        report += d;
        const m = /^(\d+) (\d+)\n/.exec(report);
        if (!m || code !== undefined) return;
        code = Number(m[1]);
        if (Number(m[2]) > 0) leave(code);
        done();
      });
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.once('close', () => {
          closed++;
          done();
        });
      }
    }
    child.once('close', (code, signal) => resolve({ code, signal }));
    child.once('error', (err) => resolve({ code: 127, signal: null, spawnError: err }));
  });
  clearTimeout(timer);
  clearTimeout(killTimer);
  clearTimeout(drainTimer);
  options.signal?.removeEventListener('abort', onAbort);
  if (timedOut || aborted) signalGroup(child.pid, 'SIGKILL'); // nothing of a stopped group survives
  // A sandbox still holding background processes stays; the engine does not wait for it.
  if (backgroundInSandbox && child.exitCode === null && child.signalCode === null && !timedOut && !aborted) {
    (child.stdio[3] as unknown as { destroy?: () => void } | null)?.destroy?.();
    child.unref();
  }
  if (backgroundHeld) {
    collecting = false;
    if (timedOut || aborted || readStopped) {
      // A process that left the group (setsid) still holds the pipes: close our ends.
      child.stdout?.destroy();
      child.stderr?.destroy();
    } else {
      // Left running: keep draining what it prints (so it never blocks on a full pipe or dies of
      // EPIPE), without holding the engine open.
      for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
  }

  if (outcome.spawnError) text += `could not start ${options.sandbox ? 'the sandbox' : 'bash'}: ${outcome.spawnError.message}`;
  const signal = outcome.signal ?? undefined;
  const exitCode = outcome.code ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : 1);
  return {
    exitCode,
    signal,
    timedOut,
    aborted,
    readStopped,
    backgroundHeld: backgroundHeld && !timedOut && !aborted,
    backgroundInSandbox: backgroundInSandbox && !timedOut && !aborted,
    charsRead: text.length,
    output: clipOutput(text, options.headChars ?? LIMITS.shellHeadChars, options.tailChars ?? LIMITS.shellTailChars),
    durationMs: Date.now() - started,
  };
}

/** Keeps the first `head` and last `tail` characters, naming the gap between them. */
export function clipOutput(text: string, head: number = LIMITS.shellHeadChars, tail: number = LIMITS.shellTailChars): string {
  if (text.length <= head + tail) return text;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[... ${omitted} characters omitted: kept the first ${head} and the last ${tail} of ${text.length} ...]\n${text.slice(text.length - tail)}`;
}

/** The tool-facing text: `exit <code>` first, what happened, then the output. */
export function formatCommandResult(result: CommandResult, timeoutMs: number = LIMITS.shellTimeoutMs): string {
  let first = `exit ${result.exitCode}`;
  if (result.timedOut) first += ` (timed out after ${Math.round(timeoutMs / 1000)} s; the process group was killed)`;
  else if (result.aborted) first += ' (stopped; the process group was killed)';
  else if (result.signal) first += ` (killed by ${result.signal})`;
  const lines = [first];
  if (result.backgroundHeld) {
    lines.push(
      '[the shell exited but a background process it started still holds the output; it was left running and what it prints from now on is not captured. Start servers with their output in a file: cmd > server.log 2>&1 &]',
    );
  }
  if (result.backgroundInSandbox) {
    lines.push(
      '[the shell exited and left background processes running in its sandbox; they keep running there, and what they print from now on is not captured. Start servers with their output in a file: cmd > server.log 2>&1 &]',
    );
  }
  if (result.readStopped) {
    lines.push(`[output reading stopped at ${result.charsRead} characters; nothing beyond was read. Redirect to a file and read parts of it, or filter with head/grep]`);
  }
  if (result.output) lines.push(result.output.replace(/\n$/, ''));
  else if (!result.readStopped) lines.push('(no output)');
  return lines.join('\n');
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
