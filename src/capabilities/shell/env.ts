/**
 * The environment every shell the engine starts gets (run_shell, the `command` workflow node, /term):
 * the engine's own environment minus secret-shaped names, plus where git must stop and which
 * mounts exist.
 */

/** Names matching *SECRET*, *TOKEN*, *PASSWORD*, *API_KEY*, *CREDENTIAL*, case-insensitively (seed 001 §4.2). */
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|API_KEY|CREDENTIAL/i;

export interface ShellEnvOptions {
  /** The engine home: git never walks up into it, so staging can never include the engine. */
  home: string;
  /** Mount names, published as ENGINE_MOUNTS: comma-separated, a `%` or `,` inside a name percent-encoded. */
  mounts: string[];
}

export function shellEnv(options: ShellEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  // The engine's own environment, read at call time.
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    env[name] = value;
  }
  env.GIT_CEILING_DIRECTORIES = options.home;
  env.ENGINE_MOUNTS = options.mounts.map((m) => m.replace(/%/g, '%25').replace(/,/g, '%2C')).join(',');
  return env;
}
