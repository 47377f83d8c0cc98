/**
 * The database service: saved connections and their drivers (one per connection, made on first
 * use, closed on update, delete and engine stop), round-trip tests, the schema cache, and the
 * query, table and export operations (query.ts, table.ts, export.ts) built on them.
 */
import type { Emit } from '../../kernel/bus.js';
import type { Home } from '../../kernel/home.js';
import type { SecretStore } from '../secrets/types.js';
import { connectionSentence } from './connect-errors.js';
import { createDriver } from './drivers/index.js';
import { createQueryHistory, type QueryHistory } from './history.js';
import { createSchemaCache } from './schema.js';
import { createConnectionStore, type ConnectionStore } from './store.js';
import type { ConnectionInput, DbDriver, ResolvedConnection, SchemaInfo } from './types.js';

export interface DbServiceDeps {
  home: Home;
  secrets: SecretStore;
  /** The workspace folder: a relative SQLite path resolves against it. */
  workspace: () => string;
  /** Masks secret values and secret-shaped text (history lines, events, prompts). */
  mask: (text: string) => string;
  emit: Emit;
}

export interface DbCore {
  store: ConnectionStore;
  history: QueryHistory;
  mask: (text: string) => string;
  emit: Emit;
  /** The connection (secrets resolved) and its driver. */
  open(id: string): Promise<{ conn: ResolvedConnection; driver: DbDriver }>;
  schema(id: string, refresh?: boolean): Promise<SchemaInfo>;
  /** Forget a connection's cached schema (after a write that may have changed it). */
  schemaChanged(id: string): void;
}

export type DbService = ReturnType<typeof createDbService>;

export function createDbService(deps: DbServiceDeps) {
  const store = createConnectionStore({ home: deps.home, secrets: deps.secrets, workspace: deps.workspace });
  const history = createQueryHistory(deps.home, deps.mask);
  const schemas = createSchemaCache();
  const drivers = new Map<string, Promise<{ conn: ResolvedConnection; driver: DbDriver }>>();
  /** The saved definition each open driver was made from, to notice a hand edit of connections.json. */
  const madeFrom = new Map<string, string>();
  /** Per connection, the privilege warning found on its last open or test (GET /api/db shows it). */
  const warnings = new Map<string, string>();

  /** Asks the server what the role may do outside the database; a failure says nothing (the query's own error will). */
  const checkPrivileges = async (driver: DbDriver): Promise<string | undefined> => driver.privilegeWarning?.().catch(() => undefined);
  const remember = (id: string, warning: string | undefined) => (warning ? warnings.set(id, warning) : warnings.delete(id));

  const drop = async (id: string) => {
    schemas.drop(id);
    warnings.delete(id);
    const entry = drivers.get(id);
    drivers.delete(id);
    madeFrom.delete(id);
    if (entry) await (await entry.catch(() => undefined))?.driver.close();
  };

  const open = async (id: string) => {
    // The store answers from memory after a stat of the file, so this is cheap on every call; a
    // definition changed by hand (writable turned off, another host) gets a new driver at once.
    const current = JSON.stringify(await store.get(id));
    let entry = drivers.get(id);
    if (entry && madeFrom.get(id) !== current) {
      void drop(id);
      entry = undefined;
    }
    if (!entry) {
      const made = store.resolve(id).then((conn) => ({ conn, driver: createDriver(conn) }));
      // In the background: the first use need not wait for it; GET /api/db shows it once known.
      void made.then(async ({ driver }) => drivers.get(id) === made && remember(id, await checkPrivileges(driver))).catch(() => undefined);
      drivers.set(id, made);
      madeFrom.set(id, current);
      made.catch(() => {
        if (drivers.get(id) === made) drop(id).catch(() => undefined);
      });
      entry = made;
    }
    return entry;
  };

  /** A real round trip; a failure is a sentence, never a thrown error (seed 000 §7 special case 1). */
  const roundTrip = async (conn: ResolvedConnection, driver: DbDriver): Promise<{ ok: true; ms: number; warning?: string } | { ok: false; error: string }> => {
    const started = Date.now();
    try {
      await driver.ping();
      const ms = Date.now() - started;
      const warning = await checkPrivileges(driver);
      return warning ? { ok: true, ms, warning } : { ok: true, ms };
    } catch (err) {
      return { ok: false, error: deps.mask(connectionSentence(conn, err)) };
    }
  };

  const core: DbCore = {
    store,
    history,
    mask: deps.mask,
    emit: deps.emit,
    open,
    async schema(id, refresh = false) {
      const { driver } = await open(id);
      return schemas.get(id, driver, refresh);
    },
    schemaChanged: (id) => schemas.drop(id),
  };

  return {
    core,
    /** The saved connections, each with its privilege warning when one is known. */
    list: async () => (await store.list()).map((c) => (warnings.has(c.id) ? { ...c, warning: warnings.get(c.id) } : c)),
    get: (id: string) => store.get(id),
    async put(id: string, input: ConnectionInput) {
      const saved = await store.put(id, input);
      await drop(id);
      deps.emit('db.connections.changed', { connection: id, change: 'saved' });
      return saved;
    },
    async remove(id: string) {
      await store.delete(id);
      await drop(id);
      await history.remove(id);
      deps.emit('db.connections.changed', { connection: id, change: 'deleted' });
    },
    async test(id: string) {
      const { conn, driver } = await open(id);
      const result = await roundTrip(conn, driver);
      if (result.ok) remember(id, result.warning);
      return result;
    },
    async testUnsaved(input: ConnectionInput) {
      const conn = store.resolveUnsaved(input);
      const driver = createDriver(conn);
      try {
        return await roundTrip(conn, driver);
      } finally {
        await driver.close();
      }
    },
    schema: core.schema,
    history: (id: string) => store.get(id).then(() => history.list(id)),
    async close() {
      const ids = [...drivers.keys()];
      await Promise.all(ids.map(drop));
    },
  };
}
