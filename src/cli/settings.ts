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

export const EXIT_CONFIG = 78;

export type SecretsChoice = 'auto' | 'file' | 'keychain';

export interface StartSettings {
  port: number;
  /** The completions gateway's port (docs/gateway.md). */
  gatewayPort: number;
  bind: string;
  home: string;
  secretsBackend: SecretsChoice;
}

export class ConfigError extends Error {}

/** `source` names where a value came from in the sentence: `--port 99999` or `ENGINE_PORT=99999`. */
export function resolveSettings(flags: { port?: string; gatewayPort?: string; bind?: string; home?: string }, env: NodeJS.ProcessEnv = process.env): StartSettings {
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

  return { port, gatewayPort, bind, home: path.resolve(home), secretsBackend: secrets };
}
