/**
 * Masks secret-shaped text before it reaches a prompt, an event or a log line (seed 001 §5 rule 5).
 * Two layers: known values from the secret store (exact, longest first) and shapes (API keys,
 * tokens, bearer headers, password assignments and flags, connection-string passwords).
 * Masking errs on the side of hiding: a false positive costs a person a glance, a miss leaks a key.
 */

import { LiteralSet } from '../kernel/literal-set.js';
import { secretForms } from '../kernel/redact.js';

const MASK = '***';

/** Values shorter than this are never masked as "known": masking "ab" everywhere would garble text. */
const MIN_KNOWN_LENGTH = 4;

type Replacer = (match: string, ...groups: string[]) => string;

// Prefix-preserving token shapes: the provider prefix stays visible so a person knows what was hidden.
const TOKEN_SHAPES: Array<[RegExp, Replacer]> = [
  // PEM private keys: the marker, then only what a key block holds (base64 lines, `Name: value`
  // header lines), line by line (real or JSON-escaped newlines), and its end marker. Never "anything
  // up to the end marker": code between two markers (`echo BEGIN; rm -rf x; echo END`) stays shown.
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:(?:\r?\n|\\[nr])+(?:[A-Za-z-]+: [^\r\n\\'"`$;&|<>()]*|[A-Za-z0-9+/=]+))*(?:(?:\r?\n|\\[nr])+-----END [A-Z0-9 ]*PRIVATE KEY-----)?/g,
    () => `-----BEGIN PRIVATE KEY----- ${MASK}`,
  ],
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

/*
 * A masked value is the secret's own characters and nothing else (issue 38 §3): a prompt may hide a
 * secret, never code. A bare value ends at the first space, quote, backslash or shell metacharacter
 * (`;`, `&`, `|`, `<`, `>`, `(`, `)`, `$`, backquote), where a shell ends the word or starts running
 * something; a single-quoted value at its closing quote; a double-quoted one at its closing quote or
 * its first expansion (`"pw$(id)"` shows as `"***$(id)"`). A value that starts with an expansion
 * (`$TOKEN`, `"$(cat f)"`) is a reference or code, not a literal secret, and is shown as is.
 */
/** A secret value: JSON-escaped quotes (\"x\"), double or single quotes, or a bare word (which never swallows a backslash, so JSON text stays valid JSON). */
const VALUE = String.raw`\\"(?:[^"\\]|\\[^"])*?\\"|"[^"]*"|'[^']*'|[^\s'"\\,;&|(){}<>$` + '`]+';
const re = (source: string) => new RegExp(source, 'gi');

// Contextual shapes: what is around the value says it is secret.
const CONTEXT_SHAPES: Array<[RegExp, Replacer]> = [
  // Bearer / Basic / token credentials outside a header line.
  [/\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, (_m, s, w) => `${s}${w}${MASK}`],
  // scheme://user:password@host (databases, brokers, git remotes).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/\s@'"\\]*:)([^@\s'"/\\;&|<>()$`]+)(@)/gi, (_m, p, _v, at) => `${p}${MASK}${at}`],
  // Flags: --password x, --password=x, --token x, --api-key=x, --client-secret x ...
  [
    re(String.raw`(--?(?:[a-z0-9]+-)*(?:password|passwd|pass|token|secret|api-?key|apikey|auth|access-?key|credentials?)(?:-[a-z0-9]+)*)(=|\s+)(${VALUE})`),
    (_m, flag, sep, value) => `${flag}${sep}${maskedValue(value)}`,
  ],
  // mysql / mariadb / mysqldump -p<password> (attached form).
  [re(String.raw`\b((?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)(${VALUE})`), (_m, p, value) => `${p}${maskedValue(value)}`],
  // sshpass -p x; redis-cli -a x; docker/podman/helm ... login -p x.
  [
    re(String.raw`\b(sshpass\s+-p\s*|redis-cli\b[^\n|;&]*?\s-a\s+|(?:docker|podman|buildah|skopeo|helm)\b[^\n|;&]*?\slogin\b[^\n|;&]*?\s-p\s+)(${VALUE})`),
    (_m, p, value) => `${p}${maskedValue(value)}`,
  ],
  // curl/wget/http -u user:password, -uuser:password, --user user:password, --proxy-user user:password
  // (not a URL after -u): in single quotes up to the quote, in double quotes up to the quote or the
  // first expansion, bare up to the first space or metacharacter.
  [
    /(\s(?:-u|-U|--user|--proxy-user)(?:\s+|=)?)(?:(')([^\s:']+:)[^/'\r\n\\][^'\r\n\\]*|(")([^\s:"]+:)[^/"\r\n\\$`][^"\r\n\\$`]*|([^\s:'"]+:)[^\s'"/\\;&|<>()$`][^\s'"\\;&|<>()$`]*)/g,
    (_m, p, q1, u1, q2, u2, u3) => `${p}${q1 ?? q2 ?? ''}${u1 ?? u2 ?? u3}${MASK}`,
  ],
  // smbclient / rpcclient / net -U user%password.
  [/(\s(?:-U|--user)(?:\s+|=)["']?[^\s%'"]+%)([^\s'"\\;&|<>()$`]+)/g, (_m, p) => `${p}${MASK}`],
  // Programs whose password flag has a short name: ldapsearch -w x, zip/unzip -P x, 7z -px, openssl -k x, htpasswd -b file user x.
  [
    re(String.raw`\b((?:ldap[a-z]*|zip|unzip|openssl|7z|7za|7zz|htpasswd)\b[^\n|;&]*?\s(?:-w\s+|-P\s+|-k\s+|-p(?=[^\s-])|-b\s+\S+\s+\S+\s+))(${VALUE})`),
    (_m, p, value) => `${p}${maskedValue(value)}`,
  ],
  // A long token as a URL's user name (https://<token>@github.com/...).
  [/\b([a-z][a-z0-9+.-]*:\/\/)([A-Za-z0-9_-]{20,})(@)/gi, (_m, p, _v, at) => `${p}${MASK}${at}`],
  // Assignments: DB_PASSWORD=x, token: "x", "api_key": "x", secret = 'x', PGPASSWORD=x, and their JSON-escaped forms.
  [
    re(String.raw`\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_]*)(\\?["']?\s*[:=]\s*)(${VALUE})`),
    (m, name, sep, value) => (isHarmlessAssignment(name, value) ? m : `${name}${sep}${maskedValue(value)}`),
  ],
];

/** The mask of a value the patterns above matched: its literal characters only (see the note above VALUE). */
function maskedValue(value: string): string {
  if (value.startsWith("'")) return `'${MASK}'`;
  const quote = value.startsWith('\\"') ? '\\"' : value.startsWith('"') ? '"' : '';
  if (!quote) return MASK;
  const inner = value.slice(quote.length, value.length - quote.length);
  const code = inner.search(/[$`]/);
  if (code === 0) return value;
  return `${quote}${MASK}${code < 0 ? '' : inner.slice(code)}${quote}`;
}

/**
 * Authorization and Cookie headers. The scheme stays shown (`Bearer ***`). Quoted, the value runs
 * to the closing quote (in double quotes, to the first expansion): it is literal there, a Digest's
 * parameters and several cookies included. Bare, it is one word up to the first space or shell
 * metacharacter, after a scheme when one leads: `-H Authorization:pw https://x;touch y` keeps its
 * URL and its second command.
 */
const HEADER = /(["']?)\b((?:proxy-)?authorization|(?:set-)?cookie)[ \t]*:[ \t]*/gi;
/** A scheme word with a credential after it (not a flag, a path or a URL: those are the next arguments). */
const SCHEME = /^[A-Za-z][A-Za-z0-9-]{0,24}[ \t]+(?![-/.]|[a-z][a-z0-9+.-]*:\/\/)(?=\S)/i;
/** Where a header's value ends, by the quote before the header's name (searched from `lastIndex`, not in a copy of the rest). */
const VALUE_END: Record<string, RegExp> = { "'": /['\r\n\\]/g, '"': /["\r\n\\$`]/g, '': /[\s'"\\;&|<>()$`]/g };

function maskHeaders(text: string): string {
  if (!/authorization|cookie/i.test(text)) return text;
  let out = '';
  let done = 0;
  for (const m of text.matchAll(HEADER)) {
    if (m.index! < done) continue;
    let from = m.index! + m[0].length;
    if (/^(?:proxy-)?authorization$/i.test(m[2])) from += SCHEME.exec(text.slice(from, from + 64))?.[0].length ?? 0;
    const stop = VALUE_END[m[1]];
    stop.lastIndex = from;
    const end = stop.exec(text)?.index ?? text.length;
    if (end === from) continue;
    out += text.slice(done, from) + MASK;
    done = end;
  }
  return done ? out + text.slice(done) : text;
}

/** Counts and limits named like secrets (`max_tokens: 4096`, `tokens=12`) and already-masked values stay. */
function isHarmlessAssignment(name: string, value: string): boolean {
  const bare = value.replace(/^\\?["']|\\?["']$/g, '');
  if (bare.startsWith(MASK) || bare === '' || /^(true|false|null|undefined)$/i.test(bare)) return true;
  if (/tokens$|count$|limit$|^max|^min|_max$|_min$|length$|budget$/i.test(name)) return true;
  return /^\d{1,5}$/.test(bare);
}

/** One search for the known values in every spelling (encoded ones too); undefined when none is long enough to mask. */
function knownPattern(known: readonly string[]): LiteralSet | undefined {
  const values = known.filter((v) => typeof v === 'string' && v.length >= MIN_KNOWN_LENGTH).flatMap(secretForms);
  return values.length ? new LiteralSet(values) : undefined;
}

/** Masks secret-shaped substrings of `text`, and every occurrence of the `known` secret values. */
export function maskSecrets(text: string, known: readonly string[] = []): string {
  return maskWith(text, knownPattern(known));
}

function maskWith(text: string, known: LiteralSet | undefined): string {
  if (!text) return text;
  let out = text;
  if (known) out = known.replace(out, MASK);
  for (const [re, fn] of TOKEN_SHAPES) out = out.replace(re, fn as (substring: string, ...args: unknown[]) => string);
  out = maskHeaders(out);
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
  private known: LiteralSet | undefined;

  constructor(private readonly storedValues?: (text: string) => string) {}

  setKnown(values: readonly string[]): void {
    this.known = knownPattern(values);
  }

  readonly mask = (text: string): string => (this.storedValues ? maskWith(this.storedValues(text), undefined) : maskWith(text, this.known));
}
