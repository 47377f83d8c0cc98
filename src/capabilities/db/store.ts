/**
 * Saved connections: `db/connections.json` in the home (atomic writes, one queue, a parsed copy in
 * memory checked against the file's stat: store-file.ts), secrets in the
 * secret store under `db:<id>:password` and `db:<id>:url`. The file never holds a password or a
 * URL; a view never carries one.
 */
import path from 'node:path';
import { badRequest, notFound } from '../../kernel/errors.js';
import type { Home } from '../../kernel/home.js';
import { LIMITS } from '../../kernel/limits.js';
import { serialQueue } from '../../kernel/serial.js';
import { cachedJsonFile } from './store-file.js';
import type { SecretStore } from '../secrets/types.js';
import { DB_ENGINES, type ConnectionInput, type ConnectionView, type DbEngine, type ResolvedConnection, type StoredConnection } from './types.js';

const FILE = 'db/connections.json';
const ID = /^[A-Za-z0-9._-]+$/;
/** Path words of the API that an id would shadow. */
const RESERVED = new Set(['connections', 'test', '.', '..']);

const secretName = (id: string, what: 'password' | 'url') => `db:${id}:${what}`;

export function validConnectionId(id: unknown): string {
  if (typeof id !== 'string' || !id) throw badRequest('a connection id is required: letters, digits, dot, dash and underscore');
  if (id.length > LIMITS.dbConnectionIdChars) throw badRequest(`connection id is longer than ${LIMITS.dbConnectionIdChars} characters; use a shorter one`);
  if (!ID.test(id)) throw badRequest(`connection id "${id.slice(0, 40)}" may hold only letters, digits, dot, dash and underscore`);
  if (RESERVED.has(id)) throw badRequest(`"${id}" is a word of the API and cannot be a connection id; choose another`);
  return id;
}

export interface ConnectionStore {
  list(): Promise<ConnectionView[]>;
  get(id: string): Promise<ConnectionView>;
  /** Creates or replaces; the id is the URL's. Secrets: a new value replaces, `clear*` removes, absence keeps. */
  put(id: string, input: ConnectionInput): Promise<ConnectionView>;
  delete(id: string): Promise<void>;
  /** With secrets, for a driver only. */
  resolve(id: string): Promise<ResolvedConnection>;
  /** An unsaved definition, for POST /api/db/test. */
  resolveUnsaved(input: ConnectionInput): ResolvedConnection;
}

interface FileShape {
  connections: Record<string, StoredConnection>;
}

export function createConnectionStore(opts: { home: Home; secrets: SecretStore; workspace: () => string }): ConnectionStore {
  const { home, secrets } = opts;
  const queue = serialQueue();
  const saved = cachedJsonFile<FileShape>(home, FILE, () => ({ connections: {} }));
  const read = () => saved.read();
  /** A copy to change and write: the read copy is shared with every lookup. */
  const editable = async (): Promise<FileShape> => ({ connections: { ...(await read()).connections } });
  const view = (id: string, c: StoredConnection): ConnectionView => ({ id, ...c });

  const normalize = (input: ConnectionInput, previous?: StoredConnection): StoredConnection => {
    if (!input || typeof input !== 'object') throw badRequest('send a connection definition: {"engine": "sqlite", "path": "data.db"} or {"engine": "postgres", "host": ..., "database": ...}');
    const engine = input.engine as DbEngine;
    if (!DB_ENGINES.includes(engine)) throw badRequest(`engine must be one of ${DB_ENGINES.join(', ')} (MariaDB uses mysql)`);
    const fromUrl = input.url ? parseUrl(input.url, engine) : undefined;
    const stored: StoredConnection = {
      name: (input.name ?? previous?.name ?? '').trim(),
      engine,
      writable: input.writable ?? false,
      rowLimit: input.rowLimit ?? LIMITS.dbRowLimitDefault,
      timeoutMs: input.timeoutMs ?? LIMITS.dbTimeoutDefaultMs,
      hasPassword: false,
      hasUrl: false,
    };
    if (engine === 'sqlite') {
      const file = input.path ?? fromUrl?.path;
      if (!file) throw badRequest('a SQLite connection needs "path": the database file (absolute, or relative to the workspace)');
      stored.path = file;
    } else {
      for (const k of ['host', 'database', 'user'] as const) if (input[k] !== undefined) stored[k] = input[k];
      if (input.port !== undefined) stored.port = input.port;
      if (input.ssl !== undefined) stored.ssl = input.ssl;
      if (!input.url && !input.host && !previous?.hasUrl) throw badRequest(`a ${engine} connection needs "url" or "host" (with "database", "user" and "password")`);
    }
    if (stored.rowLimit < 1 || stored.rowLimit > LIMITS.dbRowLimitMax) throw badRequest(`rowLimit must be 1..${LIMITS.dbRowLimitMax}`);
    if (stored.timeoutMs < 100 || stored.timeoutMs > LIMITS.dbTimeoutMaxMs) throw badRequest(`timeoutMs must be 100..${LIMITS.dbTimeoutMaxMs}`);
    if (!stored.name) stored.name = stored.path ? path.basename(stored.path) : (stored.database ?? stored.host ?? engine);
    return stored;
  };

  const resolveFile = (file: string) => (path.isAbsolute(file) ? file : path.resolve(opts.workspace(), file));

  const toResolved = (id: string, c: StoredConnection, password?: string, url?: string): ResolvedConnection => ({
    id,
    engine: c.engine,
    file: c.path ? resolveFile(c.path) : undefined,
    url: c.engine === 'sqlite' ? undefined : url,
    host: c.host,
    port: c.port,
    database: c.database ?? (url ? parseUrl(url, c.engine).database : undefined),
    user: c.user ?? (url ? parseUrl(url, c.engine).user : undefined),
    password,
    ssl: c.ssl,
    writable: c.writable,
    rowLimit: c.rowLimit,
    timeoutMs: c.timeoutMs,
  });

  return {
    async list() {
      const file = await read();
      return Object.entries(file.connections)
        .map(([id, c]) => view(id, c))
        .sort((a, b) => a.id.localeCompare(b.id));
    },
    async get(id) {
      validConnectionId(id);
      const c = (await read()).connections[id];
      if (!c) throw notFound(`no database connection "${id}"; GET /api/db lists them`);
      return view(id, c);
    },
    put(id, input) {
      validConnectionId(id);
      return queue(async () => {
        const file = await editable();
        const previous = file.connections[id];
        const stored = normalize(input, previous);
        const url = input.url && stored.engine !== 'sqlite' ? input.url : undefined;
        if (input.password !== undefined && typeof input.password !== 'string') throw badRequest('password must be a string');
        // Secrets first: a definition never points at a secret that failed to save.
        if (url) await secrets.set(secretName(id, 'url'), url);
        else if (input.clearUrl || (previous?.hasUrl && input.host)) await secrets.delete(secretName(id, 'url')).catch(() => false);
        if (input.password) await secrets.set(secretName(id, 'password'), input.password);
        else if (input.clearPassword) await secrets.delete(secretName(id, 'password')).catch(() => false);
        const names = new Set(await secrets.names());
        stored.hasUrl = names.has(secretName(id, 'url'));
        stored.hasPassword = names.has(secretName(id, 'password'));
        file.connections[id] = stored;
        await saved.write(file);
        return view(id, stored);
      });
    },
    delete(id) {
      validConnectionId(id);
      return queue(async () => {
        const file = await editable();
        if (!file.connections[id]) throw notFound(`no database connection "${id}"; GET /api/db lists them`);
        delete file.connections[id];
        await saved.write(file);
        await secrets.delete(secretName(id, 'password')).catch(() => false);
        await secrets.delete(secretName(id, 'url')).catch(() => false);
      });
    },
    async resolve(id) {
      validConnectionId(id);
      const c = (await read()).connections[id];
      if (!c) throw notFound(`no database connection "${id}"; GET /api/db lists them`);
      const [password, url] = await Promise.all([
        c.hasPassword ? secrets.get(secretName(id, 'password')) : undefined,
        c.hasUrl ? secrets.get(secretName(id, 'url')) : undefined,
      ]);
      return toResolved(id, c, password, url);
    },
    resolveUnsaved(input) {
      const stored = normalize(input);
      return toResolved('(unsaved)', stored, input.password, input.url && stored.engine !== 'sqlite' ? input.url : undefined);
    },
  };
}

/** The parts of a connection URL the engine needs to know without holding it in a file. */
function parseUrl(url: string, engine: DbEngine): { path?: string; database?: string; user?: string } {
  if (engine === 'sqlite') {
    const m = /^(?:sqlite|file):(?:\/\/)?(.+)$/i.exec(url);
    return { path: m ? decodeURIComponent(m[1]) : url };
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badRequest(`url is not a valid URL; write it as ${engine === 'postgres' ? 'postgres://user:password@host:5432/database' : 'mysql://user:password@host:3306/database'}`);
  }
  const ok = engine === 'postgres' ? ['postgres:', 'postgresql:'] : ['mysql:', 'mariadb:'];
  if (!ok.includes(u.protocol)) throw badRequest(`url must start with ${ok.map((p) => p + '//').join(' or ')} for engine ${engine}`);
  return { database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined, user: decodeURIComponent(u.username) || undefined };
}
