/**
 * Masks secret-shaped text before it reaches a prompt, an event or a log line (seed 001 §5 rule 5).
 * Two layers: known values from the secret store (exact, longest first) and shapes (API keys,
 * tokens, bearer headers, password assignments and flags, connection-string passwords).
 * Masking errs on the side of hiding: a false positive costs a person a glance, a miss leaks a key.
 */

import { secretForms } from '../kernel/redact.js';

const MASK = '***';

/** Values shorter than this are never masked as "known": masking "ab" everywhere would garble text. */
const MIN_KNOWN_LENGTH = 4;

type Replacer = (match: string, ...groups: string[]) => string;

// Prefix-preserving token shapes: the provider prefix stays visible so a person knows what was hidden.
const TOKEN_SHAPES: Array<[RegExp, Replacer]> = [
  // PEM private keys, whole block.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, () => `-----BEGIN PRIVATE KEY----- ${MASK}`],
  // Anthropic, OpenAI (sk-, sk-proj-), Stripe live/test (sk_live_, rk_test_ ...).
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, () => `sk-ant-${MASK}`],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, () => `sk-${MASK}`],
  [/\b([sr]k_(?:live|test)_)[A-Za-z0-9]{8,}/g, (_m, p) => `${p}${MASK}`],
  // GitHub classic and fine-grained tokens, GitLab, npm, Hugging Face, Google API keys.
  [/\b(gh[pousr]_)[A-Za-z0-9]{16,}/g, (_m, p) => `${p}${MASK}`],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, () => `github_pat_${MASK}`],
  [/\bglpat-[A-Za-z0-9_-]{16,}/g, () => `glpat-${MASK}`],
  [/\bnpm_[A-Za-z0-9]{30,}/g, () => `npm_${MASK}`],
  [/\bhf_[A-Za-z0-9]{30,}/g, () => `hf_${MASK}`],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, () => `AIza${MASK}`],
  // Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-).
  [/\b(xox[a-z]-)[A-Za-z0-9-]{8,}/g, (_m, p) => `${p}${MASK}`],
  // AWS access key ids.
  [/\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})\b/g, () => `AKIA${MASK}`],
  // JSON Web Tokens.
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, () => `eyJ${MASK}`],
];

// A secret value: JSON-escaped quotes (\"x\"), double or single quotes, or a bare word. Bare words
// never swallow a backslash, so masking JSON text keeps it valid JSON.
const VALUE = String.raw`\\"(?:[^"\\]|\\[^"])*?\\"|"[^"]*"|'[^']*'|[^\s'"\\,;&|)}<>]+`;
const re = (source: string) => new RegExp(source, 'gi');

// Contextual shapes: what is around the value says it is secret.
const CONTEXT_SHAPES: Array<[RegExp, Replacer]> = [
  // Authorization headers: everything after the colon up to a quote, a backslash, shell syntax or the end of the line.
  [/\b((?:proxy-)?authorization\s*:\s*)[^\r\n"'`\\$;&|<>()]+/gi, (_m, p) => `${p}${MASK}`],
  // Bearer / Basic / token credentials outside a header line.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, (_m, s, w) => `${s}${w}${MASK}`],
  // scheme://user:password@host (databases, brokers, git remotes).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/\s@'"\\]*:)([^@\s'"/\\]+)(@)/gi, (m, p, v, at) => (runsCode(v) ? m : `${p}${MASK}${at}`)],
  // Flags: --password x, --password=x, --token x, --api-key=x, --client-secret x ...
  [
    re(String.raw`(--?(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key|apikey|auth|access-?key|credentials?)(?:-[a-z0-9]+)*)(=|\s+)(${VALUE})`),
    (m, flag, sep, value) => (runsCode(value) ? m : `${flag}${sep}${quoteLike(value)}`),
  ],
  // mysql / mariadb / mysqldump -p<password> (attached form); sshpass -p <password>.
  [re(String.raw`\b((?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)(${VALUE})`), (m, p, value) => (runsCode(value) ? m : `${p}${quoteLike(value)}`)],
  // sshpass -p x; redis-cli -a x; docker/podman/helm ... login -p x.
  [
    re(String.raw`\b(sshpass\s+-p\s*|redis-cli\b[^\n|;&]*?\s-a\s+|(?:docker|podman|buildah|skopeo|helm)\b[^\n|;&]*?\slogin\b[^\n|;&]*?\s-p\s+)(${VALUE})`),
    (m, p, value) => (runsCode(value) ? m : `${p}${quoteLike(value)}`),
  ],
  // curl/wget/http -u user:password, -uuser:password, --user user:password, --proxy-user user:password (not a URL after -u).
  [/(\s(?:-u|-U|--user|--proxy-user)(?:\s+|=)?["']?[^\s:'"]+:)([^\s'"/][^\s'"]*)/g, (m, p, value) => (runsCode(value) ? m : `${p}${MASK}`)],
  // smbclient / rpcclient / net -U user%password.
  [/(\s(?:-U|--user)(?:\s+|=)["']?[^\s%'"]+%)([^\s'"]+)/g, (m, p, value) => (runsCode(value) ? m : `${p}${MASK}`)],
  // Programs whose password flag has a short name: ldapsearch -w x, zip/unzip -P x, 7z -px, openssl -k x, htpasswd -b file user x.
  [
    re(String.raw`\b((?:ldap[a-z]*|zip|unzip|openssl|7z|7za|7zz|htpasswd)\b[^\n|;&]*?\s(?:-w\s+|-P\s+|-k\s+|-p(?=[^\s-])|-b\s+\S+\s+\S+\s+))(${VALUE})`),
    (m, p, value) => (runsCode(value) ? m : `${p}${quoteLike(value)}`),
  ],
  // Cookie headers: the cookies are credentials.
  [/\b((?:set-)?cookie\s*:\s*)[^\r\n"'`\\$;&|<>()]+/gi, (_m, p) => `${p}${MASK}`],
  // A long token as a URL's user name (https://<token>@github.com/...).
  [/\b([a-z][a-z0-9+.-]*:\/\/)([A-Za-z0-9_-]{20,})(@)/gi, (_m, p, _v, at) => `${p}${MASK}${at}`],
  // Assignments: DB_PASSWORD=x, token: "x", "api_key": "x", secret = 'x', PGPASSWORD=x, and their JSON-escaped forms.
  [
    re(String.raw`\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_]*)(\\?["']?\s*[:=]\s*)(${VALUE})`),
    (m, name, sep, value) => (isHarmlessAssignment(name, value) || runsCode(value) ? m : `${name}${sep}${quoteLike(value)}`),
  ],
];

/**
 * A value that expands or substitutes when a shell reads it (`"$(curl x | sh)"`, `$TOKEN`) is code or a
 * reference, not a literal secret: a prompt must show it (issue 9: masking never hides code). Single
 * quotes keep everything literal, so a single-quoted value is still masked.
 */
function runsCode(value: string): boolean {
  return !value.startsWith("'") && /[$`]|[<>]\(/.test(value);
}

/** Counts and limits named like secrets (`max_tokens: 4096`, `tokens=12`) and already-masked values stay. */
function isHarmlessAssignment(name: string, value: string): boolean {
  const bare = value.replace(/^\\?["']|\\?["']$/g, '');
  if (bare.startsWith(MASK) || bare === '' || /^(true|false|null|undefined)$/i.test(bare)) return true;
  if (/tokens$|count$|limit$|^max|^min|_max$|_min$|length$|budget$/i.test(name)) return true;
  return /^\d{1,5}$/.test(bare);
}

function quoteLike(value: string): string {
  if (value.startsWith('\\"')) return `\\"${MASK}\\"`;
  if (value.startsWith('"')) return `"${MASK}"`;
  if (value.startsWith("'")) return `'${MASK}'`;
  return MASK;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One pattern for the known values in every spelling (encoded ones too), longest first; undefined when none is long enough to mask. */
function knownPattern(known: readonly string[]): RegExp | undefined {
  const values = [...new Set(known.filter((v) => typeof v === 'string' && v.length >= MIN_KNOWN_LENGTH).flatMap(secretForms))].sort((a, b) => b.length - a.length);
  return values.length ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;
}

/** Masks secret-shaped substrings of `text`, and every occurrence of the `known` secret values. */
export function maskSecrets(text: string, known: readonly string[] = []): string {
  return maskWith(text, knownPattern(known));
}

function maskWith(text: string, known: RegExp | undefined): string {
  if (!text) return text;
  let out = text;
  if (known) out = out.replace(known, MASK);
  for (const [re, fn] of TOKEN_SHAPES) out = out.replace(re, fn as (substring: string, ...args: unknown[]) => string);
  for (const [re, fn] of CONTEXT_SHAPES) out = out.replace(re, fn as (substring: string, ...args: unknown[]) => string);
  return out;
}

/**
 * A masker holding the secret store's current values, so sync callers (the registry, log lines)
 * can mask without awaiting the store. The engine gives it the exit mask's stored-value step
 * (`Redactor.text`, which knows a value from the moment it is stored), so the values are kept in
 * one place; without one it keeps its own list through `setKnown`.
 */
export class Masker {
  // Compiled when the values change, not on every mask: the registry masks every call's text.
  private known: RegExp | undefined;

  constructor(private readonly storedValues?: (text: string) => string) {}

  setKnown(values: readonly string[]): void {
    this.known = knownPattern(values);
  }

  readonly mask = (text: string): string => (this.storedValues ? maskWith(this.storedValues(text), undefined) : maskWith(text, this.known));
}
