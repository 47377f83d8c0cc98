/**
 * The engine's start settings from flags and the environment (flags beat variables). A bad value is
 * one line on stderr and exit 78 (EX_CONFIG), whether it came from a flag or a variable.
 *
 * Homes: one rule everywhere (ENGINE_HOME, --home, POST /api/home): an absolute path. A relative
 * path is refused rather than resolved, because the engine and the client naming a home need not
 * share a current folder.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { defaultHome } from '../kernel/home.js';
import { LIMITS } from '../kernel/limits.js';
import { databaseUrlProblem } from '../pool/url.js';

export const EXIT_CONFIG = 78;

export type SecretsChoice = 'auto' | 'file' | 'keychain';

export interface StartSettings {
  port: number;
  /** The completions gateway's port (docs/gateway.md). */
  gatewayPort: number;
  bind: string;
  home: string;
  secretsBackend: SecretsChoice;
  /** Pool mode (docs/pool.md): the shared PostgreSQL; a secret, never printed. */
  databaseUrl?: string;
  /** In a pool: false serves only (--no-worker, ENGINE_WORKER=0). */
  worker: boolean;
  /** In a pool: runs executed at once (--concurrency, ENGINE_CONCURRENCY). */
  concurrency: number;
}

export class ConfigError extends Error {}

/** `source` names where a value came from in the sentence: `--port 99999` or `ENGINE_PORT=99999`. */
export function resolveSettings(
  flags: { port?: string; gatewayPort?: string; bind?: string; home?: string; databaseUrl?: string; noWorker?: boolean; concurrency?: string },
  env: NodeJS.ProcessEnv = process.env,
): StartSettings {
  const pick = (flag: string | undefined, name: string, variable: string) =>
    flag !== undefined ? { value: flag, source: `${name} ${flag}` } : env[variable] ? { value: env[variable]!, source: `${variable}=${env[variable]}` } : undefined;

  const portOf = (flag: string | undefined, name: string, variable: string, fallback: number): number => {
    const given = pick(flag, name, variable);
    const value = given ? Number(given.value) : fallback;
    if (given && (!/^\d+$/.test(given.value.trim()) || value > 65535)) throw new ConfigError(`${given.source} is not a port number; use 0-65535 (0 picks a free port)`);
    return value;
  };
  const port = portOf(flags.port, '--port', 'ENGINE_PORT', LIMITS.defaultEnginePort);
  const gatewayPort = portOf(flags.gatewayPort, '--gateway-port', 'ENGINE_GATEWAY_PORT', LIMITS.defaultGatewayPort);

  const bindIn = pick(flags.bind, '--bind', 'ENGINE_BIND');
  const bind = bindIn?.value ?? '127.0.0.1';
  if (bindIn && isIP(bind) === 0 && bind !== 'localhost') {
    throw new ConfigError(`${bindIn.source} is not an IP address; use 127.0.0.1 (this machine only, the default), 0.0.0.0 (every interface) or an address of this machine`);
  }

  const homeIn = pick(flags.home, '--home', 'ENGINE_HOME');
  const home = homeIn?.value ?? defaultHome();
  if (homeIn && !path.isAbsolute(home)) throw new ConfigError(`${homeIn.source} is not an absolute path; give the full path, e.g. ${path.join(defaultHome(), '..', '.engine-work')}`);

  const secrets = env.ENGINE_SECRETS || 'auto';
  if (secrets !== 'auto' && secrets !== 'file' && secrets !== 'keychain') throw new ConfigError(`ENGINE_SECRETS=${secrets} is not a secrets backend; use auto, keychain or file`);

  // The URL holds a password: a refusal names where it came from, never what it says.
  const databaseUrl = flags.databaseUrl ?? (env.ENGINE_DATABASE_URL || undefined);
  const urlProblem = databaseUrl === undefined ? undefined : databaseUrlProblem(databaseUrl);
  if (urlProblem) throw new ConfigError(`${flags.databaseUrl !== undefined ? '--database-url' : 'ENGINE_DATABASE_URL'} ${urlProblem}`);

  const workerIn = env.ENGINE_WORKER;
  if (workerIn !== undefined && workerIn !== '' && workerIn !== '0' && workerIn !== '1') throw new ConfigError(`ENGINE_WORKER=${workerIn} is not 0 or 1; 0 makes an engine of a pool that only serves (like --no-worker)`);
  const worker = !flags.noWorker && workerIn !== '0';
  const concurrencyIn = pick(flags.concurrency, '--concurrency', 'ENGINE_CONCURRENCY');
  const concurrency = concurrencyIn ? Number(concurrencyIn.value) : LIMITS.poolConcurrency;
  if (concurrencyIn && (!/^\d+$/.test(concurrencyIn.value.trim()) || concurrency < 1 || concurrency > LIMITS.poolConcurrencyMax)) {
    throw new ConfigError(`${concurrencyIn.source} is not a number of runs; use 1-${LIMITS.poolConcurrencyMax} (--no-worker for an engine that runs none)`);
  }
  if (!databaseUrl && (flags.noWorker || concurrencyIn)) throw new ConfigError(`${flags.noWorker ? '--no-worker' : concurrencyIn!.source.split(/[ =]/)[0]} applies to an engine of a pool; give the pool's database too (--database-url or ENGINE_DATABASE_URL)`);

  return { port, gatewayPort, bind, home: path.resolve(home), secretsBackend: secrets, databaseUrl, worker, concurrency };
}
