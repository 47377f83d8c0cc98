/**
 * CLI entry (`engine --help`). `engine serve` runs a supervisor that forks the engine process and
 * restarts it: at once after POST /api/home (restart code, new home), with backoff after a crash.
 * The supervisor's pid is the one to stop: it writes `<home>/engine.pid` for `engine status` and
 * `engine stop`, and takes the engine down with it. `engine serve --no-supervisor` runs the engine
 * in the first process (for service managers that restart it themselves; docs/architecture.md).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMAND_USAGE, parseArgs, USAGE, UsageError, type Parsed } from './cli/args.js';
import { status, stop } from './cli/commands.js';
import { engineCommand } from './cli/invocation.js';
import { isEngine, readPidFile, removePidFile, writePidFile } from './cli/pidfile.js';
import { ConfigError, EXIT_CONFIG, resolveSettings, type StartSettings } from './cli/settings.js';
import { formatAllowHosts } from './capabilities/web/allow-hosts.js';
import { describeError } from './kernel/errors.js';
import { LIMITS } from './kernel/limits.js';
import { engineVersion, packageRoot } from './kernel/version.js';

/** Exit codes between the engine process and its supervisor, and of the CLI. */
export const EXIT = { restart: 75, config: EXIT_CONFIG, usage: 2 } as const;

const say = (line: string) => process.stdout.write(line + '\n');
const fail = (line: string): never => {
  process.stderr.write(`engine: ${line}\n`);
  process.exit(EXIT.config);
};

/** Flags and variables, checked; a bad value is one line and exit 78. */
function settings(flags: Parsed['flags']): StartSettings {
  try {
    return resolveSettings(flags);
  } catch (err) {
    return fail(err instanceof ConfigError ? err.message : describeError(err));
  }
}

/** What the engine process tells its supervisor once it listens. */
interface ReadyMessage {
  type: 'ready';
  url: string;
  bind: string;
  port: number;
  pid: number;
}

/**
 * Writes `<home>/engine.pid` for `engine status` and `engine stop`, naming this process (the
 * supervisor, or the engine without one) as the one to stop; a failed write is said, not fatal.
 */
function recordPid(home: string, engine: Omit<ReadyMessage, 'type'>, startedAt: number): Promise<void> {
  const record = { pid: process.pid, enginePid: engine.pid, url: engine.url, bind: engine.bind, port: engine.port, version: engineVersion(), startedAt };
  return writePidFile(home, record).catch((err) => void say(`engine: could not write ${home}/engine.pid: ${describeError(err)}`));
}

/**
 * The engine process itself: forked by the supervisor (which passes every setting as a variable), or
 * `serve --no-supervisor`, where this process is all there is and keeps the pid file itself.
 */
async function runEngine(start: StartSettings = settings({}), alone = false): Promise<void> {
  const { port, gatewayPort, bind, home, secretsBackend, databaseUrl, worker, concurrency, allowHosts } = start;
  // The pool's URL is a secret: no shell, terminal or server this engine starts inherits it.
  delete process.env.ENGINE_DATABASE_URL;
  const startedAt = Date.now();
  let stopping = false;
  // Imported here, not at the top: the supervisor process never needs the engine's modules.
  const { startEngine } = await import('./engine.js');
  let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await engine?.close().catch(() => undefined);
    if (alone) removePidFile(home, process.pid);
    // Ctrl-C ends with a last line saying so (under a supervisor, the supervisor says it).
    if (alone && code === 0) say('engine: stopped');
    process.exit(code);
  };
  try {
    engine = await startEngine({
      home,
      port,
      gatewayPort,
      bind,
      secretsBackend,
      databaseUrl,
      worker,
      concurrency,
      allowHosts,
      onRestart: (next) => {
        // Exit only once the supervisor has the new home; otherwise it would restart the old one.
        if (process.send) process.send({ type: 'home', home: next }, () => void stop(EXIT.restart));
        else {
          // No supervisor: whoever restarts this process must pass the new home.
          if (alone) say(`engine: the home moves to ${next}; exiting with code ${EXIT.restart} for the service manager to restart with ENGINE_HOME=${next}`);
          void stop(EXIT.restart);
        }
      },
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    fail(
      e.code === 'EADDRINUSE'
        ? `port ${port} on ${bind} is already in use; stop the other process or choose another port (--port or ENGINE_PORT)`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN'
          ? `cannot listen on ${bind}: it is not an address of this machine; choose another (--bind or ENGINE_BIND)`
          : describeError(err),
    );
  }
  const running = engine!;
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  // The supervisor is gone (killed hard): do not linger as an orphan holding the port.
  process.on('disconnect', () => void stop(0));
  process.on('exit', () => running.runs.flushSync());
  const address = running.app.server.address();
  const bound = address && typeof address === 'object' ? (address.family === 'IPv6' ? `[${address.address}]` : address.address) : running.bind;
  const supervisor = process.send ? process.ppid : process.pid;
  // The first line: the address really bound (0.0.0.0 when bound to every interface) and the pid to stop.
  say(`engine: serving http://${bound}:${running.port}/api (home ${running.home.root}, pid ${supervisor})`);
  if (`http://${bound}:${running.port}` !== running.url) say(`engine: from this machine: ${running.url}/api`);
  if (running.pool) {
    const p = running.pool.status();
    say(`engine: in a pool of ${p.engines.length} engine(s) as worker ${p.worker}, ${p.servesOnly ? 'serving only (--no-worker)' : `executing up to ${p.concurrency} runs at once`}`);
  }
  if (allowHosts.length) say(`engine: the URL floor lets through the private hosts ${formatAllowHosts(allowHosts)} (ENGINE_ALLOW_HOSTS), and no other`);
  say(`engine: events at ${running.url.replace('http', 'ws')}/events; the API is described at ${running.url}/api/openapi.json`);
  say(`engine: engine process pid ${process.pid}; stop everything with ${engineCommand('stop')} (or kill ${supervisor})`);
  say(`engine: open ${running.url}/ in a browser for the workbench`);
  // A phone reaches a non-loopback bind only, and only a built phone layout answers /m/ (seed 000
  // §4.20: the engine prints the pairing URL). The token rides in the fragment, which no request carries.
  const loopback = /^(127\.|\[::1\]|localhost)/.test(bound);
  // On a loopback bind no phone can reach the engine: say how to make one able to.
  if (loopback) say(`engine: to pair a phone, bind to the LAN (--bind 0.0.0.0 or ENGINE_BIND) or set up the relay in the workbench's Settings > Phone`);
  else if (existsSync(path.join(packageRoot(), 'dist', 'web', 'm', 'index.html'))) {
    // Bound to every interface: the first LAN address of this machine is the one a phone can reach.
    const lan = Object.values(os.networkInterfaces()).flat().find((a) => a && !a.internal && a.family === 'IPv4')?.address;
    const host = bound === '0.0.0.0' || bound === '[::]' ? (lan ?? '<this machine’s address>') : bound;
    say(`engine: pair a phone with http://${host}:${running.port}/m/#token=${running.mobileToken}`);
  }
  const ready: ReadyMessage = { type: 'ready', url: running.url, bind: running.bind, port: running.port, pid: process.pid };
  process.send?.(ready);
  if (alone) {
    await recordPid(home, ready, startedAt);
    process.on('SIGHUP', () => void stop(0));
  }
}

/** The supervisor: forks the engine, restarts it, forwards stop signals, keeps the pid file. */
function supervise(start: StartSettings): void {
  let home = start.home;
  let child: ChildProcess | undefined;
  let stopping = false;
  let failures = 0;
  const startedAt = Date.now();

  const run = () => {
    const begun = Date.now();
    child = fork(fileURLToPath(import.meta.url), ['__engine'], {
      env: {
        ...process.env,
        ENGINE_HOME: home,
        ENGINE_PORT: String(start.port),
        ENGINE_GATEWAY_PORT: String(start.gatewayPort),
        ENGINE_BIND: start.bind,
        ENGINE_SECRETS: start.secretsBackend,
        ENGINE_ALLOW_HOSTS: formatAllowHosts(start.allowHosts),
        // Pool mode travels as variables too (the URL never on a command line, where ps shows it).
        ...(start.databaseUrl ? { ENGINE_DATABASE_URL: start.databaseUrl, ENGINE_WORKER: start.worker ? '1' : '0', ENGINE_CONCURRENCY: String(start.concurrency) } : {}),
      },
      stdio: 'inherit',
    });
    child.on('error', (err) => say(`engine: could not start the engine process: ${describeError(err)}`));
    child.on('message', (m: { type?: string; home?: string; url?: string; bind?: string; port?: number; pid?: number }) => {
      if (m?.type === 'home' && typeof m.home === 'string') {
        removePidFile(home, process.pid);
        home = m.home;
      } else if (m?.type === 'ready' && m.url && m.pid) {
        void recordPid(home, { pid: m.pid, url: m.url, bind: m.bind ?? start.bind, port: m.port ?? start.port }, startedAt);
      }
    });
    child.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) return finish(0);
      if (code === EXIT.restart) {
        say(`engine: restarting against ${home}`);
        failures = 0;
        return run();
      }
      if (code === EXIT.config) return finish(EXIT.config);
      if (Date.now() - begun > LIMITS.supervisorStableAfterMs) failures = 0;
      const delay = Math.min(LIMITS.supervisorBackoffMaxMs, LIMITS.supervisorBackoffStartMs * 2 ** failures++);
      say(`engine: process exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
      setTimeout(() => !stopping && run(), delay);
    });
  };

  const finish = (code: number) => {
    removePidFile(home, process.pid);
    if (stopping) say('engine: stopped');
    process.exit(code);
  };

  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    if (!child) finish(0);
    child?.kill('SIGTERM');
    setTimeout(() => child?.kill('SIGKILL'), LIMITS.supervisorStopGraceMs).unref();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGHUP', shutdown);
  run();
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '__engine') return runEngine();
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`engine: ${err.message}\n\n${err.command ? COMMAND_USAGE[err.command] : USAGE}\n`);
    process.exit(EXIT.usage);
  }
  if (parsed.help) return void say(COMMAND_USAGE[parsed.command]);
  switch (parsed.command) {
    case 'help':
      return void say(USAGE);
    case 'version':
      return void say(engineVersion());
    case 'status':
      process.exit(await status(settings(parsed.flags).home, settings(parsed.flags).port));
      break;
    case 'stop':
      process.exit(await stop(settings(parsed.flags).home));
      break;
    case 'serve': {
      const start = settings(parsed.flags);
      const other = await readPidFile(start.home);
      if (other && other.pid !== process.pid && isEngine(other.pid)) {
        fail(`an engine already runs for home ${start.home} (pid ${other.pid}, ${other.url}/api); ${engineCommand(`stop --home ${start.home}`)} stops it`);
      }
      // A service manager that supervises the engine itself needs no second Node process.
      return parsed.flags.noSupervisor ? runEngine(start, true) : supervise(start);
    }
  }
}

void main(process.argv.slice(2));
