/**
 * CLI entry. `engine serve` runs a supervisor that forks the engine process and restarts it:
 * at once after POST /api/home (restart code, new home), with backoff after a crash.
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { describeError } from './kernel/errors.js';
import { defaultHome } from './kernel/home.js';
import { LIMITS } from './kernel/limits.js';

/** Exit codes between the engine process and its supervisor. */
export const EXIT = { restart: 75, config: 78 } as const;

const say = (line: string) => process.stdout.write(line + '\n');

function settingsFromEnv() {
  const port = process.env.ENGINE_PORT ? Number(process.env.ENGINE_PORT) : LIMITS.defaultEnginePort;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`engine: ENGINE_PORT=${process.env.ENGINE_PORT} is not a port number; use 0-65535\n`);
    process.exit(EXIT.config);
  }
  const secrets = process.env.ENGINE_SECRETS || 'auto';
  if (secrets !== 'auto' && secrets !== 'file' && secrets !== 'keychain') {
    process.stderr.write(`engine: ENGINE_SECRETS=${secrets} is not a secrets backend; use auto, keychain or file\n`);
    process.exit(EXIT.config);
  }
  const gatewayPort = process.env.ENGINE_GATEWAY_PORT ? Number(process.env.ENGINE_GATEWAY_PORT) : LIMITS.defaultGatewayPort;
  if (!Number.isInteger(gatewayPort) || gatewayPort < 0 || gatewayPort > 65535) {
    process.stderr.write(`engine: ENGINE_GATEWAY_PORT=${process.env.ENGINE_GATEWAY_PORT} is not a port number; use 0-65535\n`);
    process.exit(EXIT.config);
  }
  return { port, gatewayPort, bind: process.env.ENGINE_BIND || '127.0.0.1', home: process.env.ENGINE_HOME || defaultHome(), secretsBackend: secrets as 'auto' | 'file' | 'keychain' };
}

/** The engine process itself (forked by the supervisor). */
async function runEngine(): Promise<void> {
  const { port, gatewayPort, bind, home, secretsBackend } = settingsFromEnv();
  let stopping = false;
  // Imported here, not at the top: the supervisor process never needs the engine's modules.
  const { startEngine } = await import('./engine.js');
  let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await engine?.close().catch(() => undefined);
    process.exit(code);
  };
  try {
    engine = await startEngine({
      home,
      port,
      gatewayPort,
      bind,
      secretsBackend,
      onRestart: (next) => {
        // Exit only once the supervisor has the new home; otherwise it would restart the old one.
        if (process.send) process.send({ type: 'home', home: next }, () => void stop(EXIT.restart));
        else void stop(EXIT.restart);
      },
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const line =
      e.code === 'EADDRINUSE'
        ? `port ${port} on ${bind} is already in use; stop the other process or set ENGINE_PORT to a free port`
        : e.code === 'EADDRNOTAVAIL'
          ? `cannot bind to ${bind}; set ENGINE_BIND to an address of this machine`
          : describeError(err);
    process.stderr.write(`engine: ${line}\n`);
    process.exit(EXIT.config);
  }
  const running = engine;
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGINT', () => void stop(0));
  // The supervisor is gone (killed hard): do not linger as an orphan holding the port.
  process.on('disconnect', () => void stop(0));
  process.on('exit', () => running.runs.flushSync());
  say(`engine: serving ${running.url}/api (home ${running.home.root}, pid ${process.pid})`);
  say(`engine: events at ${running.url.replace('http', 'ws')}/events`);
  say(`engine: phone pairing URL ${pairingUrl(running.bind, running.port, running.mobileToken)}`);
}

function pairingUrl(bind: string, port: number, token: string): string {
  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  const host = bind === '0.0.0.0' && lan ? lan : bind === '0.0.0.0' ? '127.0.0.1' : bind;
  const note = bind === '127.0.0.1' || bind === 'localhost' ? ' (loopback only: set ENGINE_BIND=0.0.0.0 to reach it from a phone)' : '';
  return `http://${host}:${port}/m/?token=${token}${note}`;
}

/** The supervisor: forks the engine, restarts it, forwards stop signals. */
function supervise(): void {
  let home = settingsFromEnv().home;
  let child: ChildProcess | undefined;
  let stopping = false;
  let failures = 0;

  const start = () => {
    const startedAt = Date.now();
    child = fork(fileURLToPath(import.meta.url), ['__engine'], { env: { ...process.env, ENGINE_HOME: home }, stdio: 'inherit' });
    child.on('error', (err) => say(`engine: could not start the engine process: ${describeError(err)}`));
    child.on('message', (m: { type?: string; home?: string }) => {
      if (m?.type === 'home' && typeof m.home === 'string') home = m.home;
    });
    child.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) return process.exit(0);
      if (code === EXIT.restart) {
        say(`engine: restarting against ${home}`);
        failures = 0;
        return start();
      }
      if (code === EXIT.config) return process.exit(EXIT.config);
      if (Date.now() - startedAt > LIMITS.supervisorStableAfterMs) failures = 0;
      const delay = Math.min(LIMITS.supervisorBackoffMaxMs, LIMITS.supervisorBackoffStartMs * 2 ** failures++);
      say(`engine: process exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
      setTimeout(() => !stopping && start(), delay);
    });
  };

  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    if (!child) process.exit(0);
    child.kill('SIGTERM');
    setTimeout(() => child?.kill('SIGKILL'), LIMITS.supervisorStopGraceMs).unref();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  start();
}

const USAGE = `usage: engine serve

Environment:
  ENGINE_PORT  port of the API (default 7777; 0 picks a free one)
  ENGINE_BIND  bind address (default 127.0.0.1)
  ENGINE_HOME  the engine home (default ~/.engine)
  ENGINE_SECRETS  secret store: auto (OS keychain when it answers, else file), keychain or file
  ENGINE_GATEWAY_PORT  port of the completions gateway (default 7778; 0 picks a free one)`;

const command = process.argv[2];
if (command === '__engine') void runEngine();
else if (command === 'serve' || command === undefined) supervise();
else {
  process.stderr.write(USAGE + '\n');
  process.exit(command === '--help' || command === 'help' ? 0 : 2);
}
