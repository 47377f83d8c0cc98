/**
 * A failed connection as one sentence a person can act on: authentication failed, the server is
 * unreachable, or the database does not exist. Never echoes a password or a URL.
 */
import type { ResolvedConnection } from './types.js';

export function connectionSentence(conn: ResolvedConnection, err: unknown): string {
  const e = err as { code?: string; errno?: number; message?: string };
  const code = String(e.code ?? '');
  const message = String(e.message ?? err);
  const where = conn.engine === 'sqlite' ? conn.file : conn.url ? 'the server in the URL' : `${conn.host ?? '127.0.0.1'}:${conn.port ?? (conn.engine === 'postgres' ? 5432 : 3306)}`;
  const user = conn.user ? ` "${conn.user}"` : '';
  if (conn.engine === 'sqlite') {
    const problem = sqliteFileProblem(err);
    if (problem === 'missing') return `no such database: the SQLite file ${where} does not exist or cannot be opened; check the path (a writable connection creates the file on its first write)`;
    if (problem === 'not a database') return `${where} is not a SQLite database file; check the path`;
    return `SQLite could not open ${where}: ${message}`;
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN', 'ENETUNREACH', 'PROTOCOL_CONNECTION_LOST'].includes(code) || /timeout expired|connect ETIMEDOUT|Connection terminated/i.test(message))
    return `unreachable: cannot connect to ${where} (${code || 'timed out'}); check the host and port and that the server is running`;
  if (code === '28P01' || code === '28000' || code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR' || /password authentication failed|Access denied/i.test(message))
    return `authentication failed for user${user}; check the user name and password`;
  if (code === '3D000' || code === 'ER_BAD_DB_ERROR' || /database .* does not exist|Unknown database/i.test(message))
    return `no such database${conn.database ? ` "${conn.database}"` : ''} on ${where}; check the database name`;
  return `could not connect to ${where}: ${message}`;
}

/** Why SQLite could not open its file, when that is the error: it is not there (or not readable), or it is not a database. */
export function sqliteFileProblem(err: unknown): 'missing' | 'not a database' | undefined {
  const e = err as { code?: string; message?: string };
  const message = String(e?.message ?? err);
  if (/unable to open|cannot open|no such file|SQLITE_CANTOPEN/i.test(message) || e?.code === 'SQLITE_CANTOPEN') return 'missing';
  if (/not a database|file is encrypted/i.test(message)) return 'not a database';
  return undefined;
}

/** The warning for a role that can reach outside the database (both server engines say it alike). */
export const privilegeSentence = (who: string) =>
  `${who}: it can read or write server files or run programs, so read-only here rests on the engine's checks alone; connect with a read-only role (docs/databases.md)`;
