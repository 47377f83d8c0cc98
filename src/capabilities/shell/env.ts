/**
 * The environment every shell the engine starts gets (run_shell, the `command` workflow node, /term):
 * the login shell's snapshot (or the engine's own environment) minus secret-shaped variables, plus where git must stop and which
 * mounts exist.
 *
 * A variable is dropped by the shape of its NAME or of its VALUE (docs/shell-and-web.md has the rule):
 * - names holding SECRET, TOKEN, PASSWORD, PASSWD, PASSPHRASE, APIKEY / API_KEY, CREDENTIAL or
 *   PRIVATEKEY / PRIVATE_KEY anywhere (`OPENAIAPIKEY`, `db_password_file`);
 * - names with a word (split at `_`, `-`, `.` and lower-to-upper case changes) that holds PASS, PW,
 *   SECRET, TOKEN, KEY, CRED or AUTH anywhere in it (`DBPASS`, `DB_PW`, `MYSQLPWD`, `SESSION_KEY`,
 *   `OAUTH`), unless the word is a known harmless one (HARMLESS_WORDS: `AUTHOR`, `KEYBOARD`,
 *   `COMPASS`, `TOKENIZERS` ...), or that is PAT, COOKIE, JWT, BEARER, DSN or SIGNATURE - except the
 *   names in NOT_SECRET_NAMES (`PWD`, `OLDPWD`: folders) and socket paths (`*_SOCK`, `*_SOCKET`:
 *   `SSH_AUTH_SOCK` names an agent, it holds no secret);
 * - values that hold a secret shape the masker knows (a URL with a password `postgres://u:p@h`,
 *   `sk-...`, `ghp_...`, `AKIA...`, a JWT, a PEM private key, `Bearer ...`), or a stored secret value.
 */
import { maskSecrets } from '../../permissions/mask.js';

const SECRET_SUBSTRING = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|API-KEY|CREDENTIAL|PRIVATE_?KEY/i;
/** Parts of a word that say "secret" wherever they sit in it (DBPASS, MYSQLPWD, OAUTH, APIKEYS). */
const SECRET_PARTS = /PASS|PW|SECRET|TOKEN|KEY|CRED|AUTH/;
/** Whole words that say "secret" but would be too common as parts (PATH holds PAT). */
const SECRET_WORDS = new Set(['PAT', 'COOKIE', 'JWT', 'BEARER', 'DSN', 'SIGNATURE']);
/** Words holding a secret part that name nothing secret. */
const HARMLESS_WORDS = new Set([
  'AUTHOR', 'AUTHORS', 'AUTHORITY', 'KEYBOARD', 'KEYMAP', 'KEYWORDS', 'KEYTIMEOUT', 'COMPASS', 'BYPASS', 'PASSTHROUGH', 'PASSTHRU', 'PASSIVE',
  'PASSENGER', 'TOKENIZERS', 'MONKEY', 'WHISKEY', 'HOCKEY',
]);
/** Whole names that are not secret although a word of theirs looks it. */
const NOT_SECRET_NAMES = new Set(['PATH', 'PWD', 'OLDPWD', 'XAUTHORITY', 'GNOME_KEYRING_CONTROL', 'TOKENIZERS_PARALLELISM']);

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[_.-]+/)
    .filter(Boolean)
    .map((w) => w.toUpperCase());
}

/** Whether a variable's name says it holds a secret. */
export function isSecretName(name: string): boolean {
  if (NOT_SECRET_NAMES.has(name.toUpperCase())) return false;
  const w = words(name);
  if (w.length > 1 && /^SOCK(ET)?$/.test(w[w.length - 1])) return false;
  return SECRET_SUBSTRING.test(name) || w.some((x) => SECRET_WORDS.has(x) || (SECRET_PARTS.test(x) && !HARMLESS_WORDS.has(x)));
}

/** Whether a value has the shape of a secret (or is one the secret store holds, through `mask`). */
export function isSecretValue(value: string, mask?: (text: string) => string): boolean {
  if (!value) return false;
  if (maskSecrets(value) !== value) return true;
  return !!mask && mask(value) !== value;
}

export interface ShellEnvOptions {
  /** The engine home: git never walks up into it, so staging can never include the engine. */
  home: string;
  /** Mount names, published as ENGINE_MOUNTS: comma-separated, a `%` or `,` inside a name percent-encoded. */
  mounts: string[];
  /** The engine's secret masker (stored values and shapes): a variable holding a stored secret is dropped. */
  mask?: (text: string) => string;
  /** The variables to start from: the login shell's snapshot (login-env.ts); default the engine's own. */
  base?: Record<string, string | undefined>;
}

export function shellEnv(options: ShellEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  // The login shell's snapshot, or the engine's own environment read at call time.
  for (const [name, value] of Object.entries(options.base ?? process.env)) {
    if (value === undefined || isSecretName(name) || isSecretValue(value, options.mask)) continue;
    env[name] = value;
  }
  env.GIT_CEILING_DIRECTORIES = options.home;
  env.ENGINE_MOUNTS = options.mounts.map((m) => m.replace(/%/g, '%25').replace(/,/g, '%2C')).join(',');
  return env;
}
