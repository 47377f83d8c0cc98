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
 *   `COMPASS`, `TOKENIZERS` ...), or that is one of SECRET_WORDS (`PAT`, `COOKIE`, `SESSION`, `PIN`,
 *   `OTP`, `PEM`, `WEBHOOK`, `SIGNING`, `PRIVATE` ...) or CERT where the name says no file or path - except socket paths (`*_SOCK`,
 *   `*_SOCKET`: `SSH_AUTH_SOCK` names an agent, it holds no secret);
 * - values holding a secret shape (secretValueShape below: what the masker knows, any PEM block, a
 *   URL carrying a credential, a long random token), or a stored secret value.
 * Names in HARMLESS_NAMES (set by the system, the terminal or the desktop, each with a known
 * meaning) are kept without judging name or value: `PWD` holds PW, `XDG_SESSION_ID` SESSION,
 * `SSL_CERT_FILE` CERT, and ids such as `INVOCATION_ID` look like tokens.
 */
import { maskSecrets } from '../../permissions/mask.js';

const SECRET_SUBSTRING = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|API-KEY|CREDENTIAL|PRIVATE_?KEY/i;
/** Parts of a word that say "secret" wherever they sit in it (DBPASS, MYSQLPWD, OAUTH, APIKEYS). */
const SECRET_PARTS = /PASS|PW|SECRET|TOKEN|KEY|CRED|AUTH/;
/**
 * Whole words that say "secret" but would be too common as parts (PATH holds PAT, SPINNER PIN):
 * session and cookie values, one-time-password seeds and PINs, signing material, certificates and
 * keys in PEM, webhook URLs (holding one is being allowed to post), inline kubeconfigs.
 */
const SECRET_WORDS = new Set([
  'PAT', 'COOKIE', 'COOKIES', 'JWT', 'BEARER', 'DSN', 'SIGNATURE', 'SIG', 'SIGNING', 'HMAC', 'SALT', 'PRIVATE', 'PEM', 'PIN', 'OTP',
  'TOTP', 'HOTP', 'MFA', 'MNEMONIC', 'SESSION', 'WEBHOOK', 'WEBHOOKS', 'KUBECONFIG',
]);
/**
 * A certificate's words say "secret" only when the name holds the certificate itself (`CERT_PEM`):
 * a certificate file, folder or CA bundle (`SSL_CERT_FILE`, `NODE_EXTRA_CA_CERTS`, `HTTPLIB2_CA_CERTS`)
 * is a path TLS needs, and its value is judged like any other.
 */
const CERT_WORDS = new Set(['CERT', 'CERTS', 'CERTIFICATE', 'CERTIFICATES', 'CACERT', 'CACERTS']);
const REFERENCE_WORDS = new Set(['FILE', 'FILES', 'DIR', 'PATH', 'BUNDLE', 'CA']);
/** Words holding a secret part that name nothing secret. */
const HARMLESS_WORDS = new Set([
  'AUTHOR', 'AUTHORS', 'AUTHORITY', 'KEYBOARD', 'KEYMAP', 'KEYWORDS', 'KEYTIMEOUT', 'COMPASS', 'BYPASS', 'PASSTHROUGH', 'PASSTHRU', 'PASSIVE',
  'PASSENGER', 'PASSENV', 'TOKENIZERS', 'MONKEY', 'WHISKEY', 'HOCKEY',
]);
/**
 * Names kept whatever their words or values look like: set by the system, the login, the terminal or
 * the desktop with a known meaning, none of which holds a secret (and a shell without them breaks).
 * Folders and search paths; who and where the user is; locale and terminal; the desktop session's
 * bus, ids and sockets (their ids look random); CA bundles whose name says no FILE, PATH or CA
 * (TLS behind a company proxy needs them); `KUBECONFIG`, a list of files (KUBECONFIG_DATA is not).
 */
const HARMLESS_NAMES = new Set([
  'PATH', 'HOME', 'PWD', 'OLDPWD', 'TMPDIR', 'TMP', 'TEMP', 'MANPATH', 'INFOPATH', 'USER', 'LOGNAME', 'USERNAME', 'SHELL', 'MAIL', 'HOSTNAME', 'HOSTTYPE',
  'OSTYPE', 'MACHTYPE', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLORTERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'TERM_SESSION_ID',
  'ITERM_SESSION_ID', 'WT_SESSION', 'LS_COLORS', 'EDITOR', 'VISUAL', 'PAGER', 'LESS', 'LESSOPEN', 'LESSCLOSE', 'DISPLAY', 'WAYLAND_DISPLAY',
  'XAUTHORITY', 'DBUS_SESSION_BUS_ADDRESS', 'SESSION_MANAGER', 'DESKTOP_SESSION', 'GNOME_KEYRING_CONTROL', 'SSH_AUTH_SOCK',
  'SSH_AGENT_PID', 'INVOCATION_ID', 'JOURNAL_STREAM', 'SYSTEMD_EXEC_PID', 'TOKENIZERS_PARALLELISM', 'PIP_CERT', 'DENO_CERT', 'KUBECONFIG',
]);
const HARMLESS_PREFIXES = /^(LC_|XDG_)/;

function harmlessName(name: string): boolean {
  const upper = name.toUpperCase();
  return HARMLESS_NAMES.has(upper) || HARMLESS_PREFIXES.test(upper);
}

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[_.-]+/)
    .filter(Boolean)
    .map((w) => w.toUpperCase());
}

/** Whether a variable's name says it holds a secret. */
export function isSecretName(name: string): boolean {
  if (harmlessName(name)) return false;
  const w = words(name);
  if (w.length > 1 && /^SOCK(ET)?$/.test(w[w.length - 1])) return false;
  const certificate = !w.some((x) => REFERENCE_WORDS.has(x));
  return SECRET_SUBSTRING.test(name) || w.some((x) => SECRET_WORDS.has(x) || (certificate && CERT_WORDS.has(x)) || (SECRET_PARTS.test(x) && !HARMLESS_WORDS.has(x)));
}

/** Random-looking: upper and lower case letters and digits all three, as keys and tokens are and words, ids and paths are not. */
const randomLooking = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s);

/**
 * The shape of a secret in a variable's value, beyond what the masker knows (a JWT, `sk-...`, a URL's
 * password): any PEM block (a key's or its certificate's); a URL that is a webhook (holding it is
 * being allowed to post), has a query parameter named like a secret (`?token=`, `&sig=`,
 * `X-Amz-Signature=`) or a path segment that is a random token; and a value that is one long random
 * token (a base64 kubeconfig, a bare API key: 32 letters or more of base64, with fewer slashes than a path).
 */
function secretValueShape(value: string): boolean {
  if (value.includes('-----BEGIN ')) return true;
  for (const url of value.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi) ?? []) {
    if (/hook/i.test(url)) return true;
    const [, pathPart = '', query = ''] = /^[^/]*\/\/[^/?#]*([^?#]*)(?:[?#](.*))?$/.exec(url) ?? [];
    if (query.split(/[&;#]/).some((pair) => /^[^=]+=./.test(pair) && isSecretName(decodeURIComponentSafe(pair.slice(0, pair.indexOf('=')))))) return true;
    if (pathPart.split('/').some((seg) => seg.length >= 20 && /^[A-Za-z0-9_-]+$/.test(seg) && randomLooking(seg))) return true;
  }
  const bare = value.replace(/={1,2}$/, '');
  return bare.length >= 32 && /^[A-Za-z0-9+/_-]+$/.test(bare) && randomLooking(bare) && (bare.match(/\//g)?.length ?? 0) * 12 < bare.length;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether a value has the shape of a secret (or is one the secret store holds, through `mask`). */
export function isSecretValue(value: string, mask?: (text: string) => string): boolean {
  if (!value) return false;
  if (maskSecrets(value) !== value || secretValueShape(value)) return true;
  return !!mask && mask(value) !== value;
}

/** `vars` without the variables whose name or value looks secret (harmless names kept as they are). */
export function scrubEnv(vars: Record<string, string | undefined>, mask?: (text: string) => string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) continue;
    if (!harmlessName(name) && (isSecretName(name) || isSecretValue(value, mask))) continue;
    env[name] = value;
  }
  return env;
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
  // The login shell's snapshot, or the engine's own environment read at call time.
  const env = scrubEnv(options.base ?? process.env, options.mask);
  env.GIT_CEILING_DIRECTORIES = options.home;
  env.ENGINE_MOUNTS = options.mounts.map((m) => m.replace(/%/g, '%25').replace(/,/g, '%2C')).join(',');
  return env;
}
