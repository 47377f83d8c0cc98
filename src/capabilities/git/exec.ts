/**
 * The one way the engine runs git: `spawn('git', args)` with an argument array (never a shell), a
 * clean environment and bounded output. Every git route and the checkpoints go through `git()`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { driverOverrides, NEUTRAL_CONFIG, withSubcommandFlags } from './neutral.js';

export interface GitOptions {
  /** The working directory (a repository top, or a root for the shadow repositories). */
  cwd: string;
  /** Folders git must never walk up into (GIT_CEILING_DIRECTORIES): always the engine home. */
  ceilings: string[];
  /** Extra environment (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE for the shadow repositories). */
  env?: Record<string, string>;
  /** Standard input (NUL-separated pathspecs). */
  input?: string | Buffer;
  /** Stop reading after this many bytes of stdout and kill git (`truncated` tells). */
  maxBytes?: number;
  /** Exit codes that are answers, not failures (`diff --quiet` answers 1 for "differs"). */
  okCodes?: number[];
  /** Ignore the user's global and system configuration (the shadow repositories: their configuration is the engine's own). */
  isolated?: boolean;
  /** Start git inside the sandbox when one is active (`confine`), with these folders writable besides `cwd`. */
  confine?: GitConfine;
  writable?: string[];
  /** Let git start git (only `gc`, which runs repack and prune): every other command gets the inert one. */
  childGit?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Starts git inside the sandbox (the sandbox service's `confineGit`): the program to spawn and the
 * arguments before `git`, or undefined when no sandbox is active (then the command line alone holds).
 */
export type GitConfine = (writable: string[], cwd: string) => Promise<{ program: string; prefix: string[] } | undefined>;

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
  truncated: boolean;
}

/** Environment names git or a shell would read that must never leak in from the engine's own environment. */
const DROPPED = /^(GIT_|LESS|PAGER$|EDITOR$|VISUAL$)/;

/**
 * The environment git runs with. The user's GIT_* overrides (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_*)
 * would point our commands at another repository, so they are dropped; HOME stays so a commit gets
 * the user's identity and excludes. No pager, no prompts, no optional index writes (a status never
 * rewrites the user's index), C locale messages. Paths are passed as `:(literal)` pathspecs (`lit`).
 */
export function gitEnv(opts: Pick<GitOptions, 'ceilings' | 'env' | 'isolated'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !DROPPED.test(name)) env[name] = value;
  }
  Object.assign(env, {
    GIT_CEILING_DIRECTORIES: opts.ceilings.join(path.delimiter),
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    GIT_EDITOR: ':',
    SSH_ASKPASS: '',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
    LANGUAGE: 'C',
  });
  if (opts.isolated) {
    env.GIT_CONFIG_NOSYSTEM = '1';
    env.GIT_CONFIG_GLOBAL = '/dev/null';
  }
  return { ...env, ...(opts.env ?? {}) };
}

/**
 * Settings every command gets on its command line: stable, unquoted paths, no colour, and every
 * setting that names a program neutralised (neutral.ts). A repository's `.git` lies inside the
 * fence, so a sandboxed command can write its hooks and configuration; nothing the engine runs on a
 * person's behalf may execute them.
 */
const BASE_CONFIG = ['-c', 'core.quotePath=false', '-c', 'color.ui=false', ...NEUTRAL_CONFIG.flatMap(([k, v]) => ['-c', `${k}=${v}`])];
/** Our own (shadow) commands also store bytes as they are and never pack on their own. */
const ISOLATED_CONFIG = ['-c', 'core.autocrlf=false', '-c', 'core.safecrlf=false', '-c', 'gc.auto=0'];

/**
 * Runs git; resolves with its exit code and output, rejects only when git cannot be started. On a
 * tree a model can write (not `isolated`): inside the sandbox when one is active, else with every
 * driver program the repository's configuration names switched off (read just before, as data).
 */
export async function git(args: string[], opts: GitOptions): Promise<GitResult> {
  const writable = [opts.cwd, ...(opts.writable ?? []), ...(opts.env?.GIT_INDEX_FILE ? [path.dirname(opts.env.GIT_INDEX_FILE)] : [])];
  const jail = opts.isolated ? undefined : await opts.confine?.(writable, opts.cwd);
  const drivers = opts.isolated || jail ? {} : driverOverrides(await untrustedNames(opts, writable));
  // Inside the sandbox a git started by git is confined too; outside it, it would read a nested
  // repository's own configuration (add -A asks every gitlink for its status, and no setting of
  // ours reaches that check), so the only git it can start is one that runs nothing.
  const inert: Record<string, string> = jail || opts.childGit ? {} : { GIT_EXEC_PATH: inertExecPath() };
  const full = [...BASE_CONFIG, ...(opts.isolated ? ISOLATED_CONFIG : []), ...withSubcommandFlags(args)];
  return spawnGit(jail ? [jail.program, ...jail.prefix, 'git'] : ['git'], full, { ...opts, env: { ...opts.env, ...drivers, ...inert } });
}

let inertDir: string | undefined;
/**
 * A folder holding a `git` that prints nothing and succeeds, as GIT_EXEC_PATH: git finds the git it
 * starts (a submodule's `status --porcelain=2`, `gc --auto`) there first, and reads "nothing
 * changed". Builtins need nothing from the exec path. Made once per process, removed at exit.
 */
function inertExecPath(): string {
  // Made again when a /tmp cleaner removed it: a missing folder would let git find the real git.
  if (!inertDir || !existsSync(path.join(inertDir, 'git'))) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-git-inert-'));
    writeFileSync(path.join(dir, 'git'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    inertDir = dir;
  }
  return inertDir;
}

/**
 * The names of the settings git would read in `cwd` that a model could have written: every one not
 * from the system or the user's global configuration, or from a file inside the writable folders
 * (`git config --list` reads files and runs nothing). The user's own drivers (git-lfs) keep
 * working; a name also set by the repository is switched off whole. A listing that fails (a broken
 * file) names nothing: the command itself then fails on the same file. One too long to read whole
 * is refused, never half-trusted.
 */
async function untrustedNames(opts: GitOptions, writable: string[]): Promise<string[]> {
  const r = await spawnGit(['git'], [...BASE_CONFIG, 'config', '--list', '--show-scope', '--show-origin', '--name-only', '-z'], { ...opts, input: undefined, maxBytes: CONFIG_LISTING_BYTES });
  if (r.truncated) throw new EngineError(500, `the git configuration read in ${opts.cwd} is over ${CONFIG_LISTING_BYTES / 1024 / 1024} MB of setting names; shorten it before the engine runs git there`);
  if (r.code !== 0) return [];
  const fields = nulFields(r.stdout);
  const names = new Set<string>();
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, name] = [fields[i], fields[i + 1], fields[i + 2]];
    const file = origin.startsWith('file:') ? path.resolve(opts.cwd, origin.slice(5)) : '';
    const own = (scope === 'system' || scope === 'global') && file !== '' && !writable.some((w) => file === w || file.startsWith(w + path.sep));
    if (!own) names.add(name);
  }
  return [...names];
}
const CONFIG_LISTING_BYTES = 4 * 1024 * 1024;

function spawnGit(program: string[], full: string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program[0], [...program.slice(1), ...full], {
      cwd: opts.cwd,
      env: gitEnv(opts),
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      signal: opts.signal,
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? LIMITS.gitTimeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (opts.maxBytes !== undefined && bytes + chunk.length > opts.maxBytes) {
        chunks.push(chunk.subarray(0, opts.maxBytes - bytes));
        bytes = opts.maxBytes;
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') reject(new EngineError(500, 'git is not installed or not on PATH; install git (the engine runs the real git for every git route)'));
      else reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: Buffer.concat(chunks), stderr, truncated });
    });
    if (opts.input !== undefined) {
      child.stdin!.on('error', () => undefined); // git may exit before reading all of it
      child.stdin!.end(opts.input);
    }
  });
}

/** Like `git()` but a non-zero exit (not in `okCodes`) throws a 500 with git's first error line. */
export async function gitOk(args: string[], opts: GitOptions): Promise<GitResult> {
  const result = await git(args, opts);
  if (result.code !== 0 && !result.truncated && !(opts.okCodes ?? []).includes(result.code)) {
    throw new EngineError(500, `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`);
  }
  return result;
}

/** The first meaningful line of git's stderr (hints dropped). */
export function firstLine(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim() && !l.startsWith('hint:'));
  return (line ?? '').replace(/^(fatal|error): /, '').trim();
}

/** Splits NUL-terminated output into fields (the trailing empty field dropped). */
export function nulFields(buf: Buffer): string[] {
  const text = buf.toString('utf8');
  const fields = text.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}

/** A path as a pathspec that matches exactly that path (a file named `*` or `:x` is that file). */
export const lit = (p: string) => `:(literal)${p}`;
