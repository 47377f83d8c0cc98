/**
 * The pool's database URL is a secret: it carries the password. It is checked for its shape without
 * ever being echoed, and pinned in the exit mask (every log line, event and response) with its
 * password in every spelling the mask knows, before anything could print it.
 */
import type { Redactor } from '../kernel/redact.js';

/** Why `url` is not a PostgreSQL URL, in words that never repeat it; undefined when it is one. */
export function databaseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL; write postgres://<user>:<password>@<host>:<port>/<database>';
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return `is a ${parsed.protocol.replace(/:$/, '')} URL; the pool needs PostgreSQL: postgres://<user>:<password>@<host>:<port>/<database>`;
  if (!parsed.hostname && !parsed.searchParams.get('host')) return 'names no host; write postgres://<user>:<password>@<host>:<port>/<database>';
  return undefined;
}

export function pinDatabaseUrl(redactor: Redactor, url: string): void {
  redactor.pin(url);
  try {
    const password = new URL(url).password;
    if (password) {
      redactor.pin(password);
      redactor.pin(decodeURIComponent(password));
    }
  } catch {
    // Not a URL: the whole text is pinned above.
  }
}
