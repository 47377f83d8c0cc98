/**
 * The environment every shell the engine starts gets (run_shell, the `command` workflow node, /term):
 * the engine's own environment minus secret-shaped names, plus where git must stop and which
 * mounts exist.
 */

/** Names matching *SECRET*, *TOKEN*, *PASSWORD*, *API_KEY*, *CREDENTIAL*, case-insensitively (seed 001 §4.2). */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|API_KEY|CREDENTIAL/i;

function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface ShellEnvOptions {
  /** The engine home: git never walks up into it, so staging can never include the engine. */
  home: string;
  /** Mount names, published as ENGINE_MOUNTS: comma-separated, a `%` or `,` inside a name percent-encoded. */
  mounts: string[];
  /** The environment to start from (default: the engine's own, read at call time). */
  base?: NodeJS.ProcessEnv;
  /** Extra variables set after scrubbing (TERM for a pty). */
  extra?: Record<string, string>;
}

export function shellEnv(options: ShellEnvOptions): Record<string, string> {
  const base = options.base ?? process.env;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isSecretName(name)) continue;
    env[name] = value;
  }
  env.GIT_CEILING_DIRECTORIES = options.home;
  env.ENGINE_MOUNTS = options.mounts.map((m) => m.replace(/%/g, '%25').replace(/,/g, '%2C')).join(',');
  return { ...env, ...options.extra };
}
