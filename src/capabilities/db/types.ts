/**
 * Database connections (seed 000 §4.15, seed 001 §4.9): the shapes other capabilities and the
 * drivers share. A driver speaks one engine; everything above it (classification, read-only
 * policy, history, routes, tools) is engine-neutral.
 */

export type DbEngine = 'sqlite' | 'postgres' | 'mysql';
export const DB_ENGINES: readonly DbEngine[] = ['sqlite', 'postgres', 'mysql'];

/** Formats of POST /api/db/:id/export (here, not in export.ts: the route schemas need them before the capability loads). */
export const EXPORT_FORMATS = ['csv', 'json', 'ndjson', 'sql'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Filter operators of a table page (here for the same reason). */
export const FILTER_OPS = ['=', '!=', '<', '<=', '>', '>=', 'like', 'not like', 'is null', 'is not null', 'in'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** A saved connection as stored in `db/connections.json` (no secret in it). */
export interface StoredConnection {
  name: string;
  engine: DbEngine;
  /** SQLite: the database file (absolute, or relative to the workspace). */
  path?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  ssl?: boolean;
  writable: boolean;
  rowLimit: number;
  timeoutMs: number;
  /** The password is held by the secret store under `db:<id>:password`. */
  hasPassword: boolean;
  /** A whole connection URL is held by the secret store under `db:<id>:url` (it carries credentials). */
  hasUrl: boolean;
}

/** What the API and the tools show: the stored fields plus the id, never a password or URL. */
export interface ConnectionView extends StoredConnection {
  id: string;
  /** The role can reach outside the database: read-only rests on the engine alone (GET /api/db). */
  warning?: string;
}

/** A definition as a client sends it (PUT or POST /api/db/test). */
export interface ConnectionInput {
  name?: string;
  engine: DbEngine;
  url?: string;
  path?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  clearPassword?: boolean;
  clearUrl?: boolean;
  ssl?: boolean;
  writable?: boolean;
  rowLimit?: number;
  timeoutMs?: number;
}

/** Everything a driver needs to connect, secrets resolved. Lives in memory only. */
export interface ResolvedConnection {
  id: string;
  engine: DbEngine;
  /** SQLite: absolute file path. */
  file?: string;
  url?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  ssl?: boolean;
  writable: boolean;
  rowLimit: number;
  timeoutMs: number;
}

export type Row = Record<string, unknown>;

/** One statement's outcome. */
export interface StatementResult {
  sql: string;
  columns: string[];
  rows: Row[];
  /** Rows the statement returned before the cap (counted, not kept). */
  rowCount: number;
  /** Rows changed (writes), when the engine says. */
  affected?: number;
  truncated: boolean;
  durationMs: number;
}

/** How a batch of statements is run on one session. */
export interface RunOptions {
  /** Read-only at the database: a read-only handle or transaction that is rolled back after. */
  readOnly: boolean;
  rowLimit: number;
  timeoutMs: number;
  /** Per statement: the classifier called it a read (a driver may page it through a cursor). */
  reads?: boolean[];
}

/** A pull-based cursor for exports: never the whole result in memory. */
export interface RowCursor {
  columns(): Promise<string[]>;
  /** The next batch, or an empty array at the end. */
  next(count: number): Promise<Row[]>;
  close(): Promise<void>;
}

/**
 * One engine behind one interface. Drivers keep their own pools; `close` ends them all.
 * `run` executes statements that have already been split and classified, one per round trip,
 * in one session, in order, stopping at the first error (the results so far are kept on the error).
 */
export interface DbDriver {
  readonly engine: DbEngine;
  /** A real round trip. */
  ping(): Promise<void>;
  /**
   * A sentence when the connection's role can act outside the database on its own (a superuser;
   * PostgreSQL pg_write_server_files, pg_execute_server_program, pg_read_server_files; MariaDB
   * FILE, SUPER): read-only there rests on the engine's checks alone. Undefined otherwise.
   */
  privilegeWarning?(): Promise<string | undefined>;
  run(statements: string[], options: RunOptions): Promise<StatementResult[]>;
  /** Introspection and table pages: a read with parameters, on the read-only path. */
  select(sql: string, params: unknown[], options?: { timeoutMs?: number }): Promise<Row[]>;
  /** A parameterised write on the writable path (update-cell); answers the rows changed. */
  write(sql: string, params: unknown[], options: { timeoutMs: number; expectAtMost?: number }): Promise<number>;
  cursor(sql: string, options: { readOnly: boolean; timeoutMs: number }): Promise<RowCursor>;
  /**
   * A faster CSV export where the engine has one (PostgreSQL COPY, SQLite encoding in its worker):
   * the whole file, header first, in chunks, on the read-only path. `close` ends it early.
   */
  exportCsv?(sql: string, options: { timeoutMs: number }): Promise<{ chunks: AsyncIterable<string | Uint8Array>; close(): Promise<void>; rows(): number }>;
  quoteIdent(name: string): string;
  /** The placeholder of the n-th parameter (1-based). */
  param(n: number): string;
  close(): Promise<void>;
}

/** A run that failed part-way: what ran before the failure, and the sentence. */
export class StatementError extends Error {
  constructor(
    message: string,
    readonly results: StatementResult[],
    readonly failedSql: string,
  ) {
    super(message);
  }
}

export interface SchemaColumn {
  name: string;
  type: string;
  nullable: boolean;
  default?: string | null;
}
export interface SchemaForeignKey {
  columns: string[];
  refSchema?: string;
  refTable: string;
  refColumns: string[];
  name?: string;
}
export interface SchemaIndex {
  name: string;
  columns: string[];
  unique: boolean;
  primary?: boolean;
}
export interface SchemaTable {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: SchemaColumn[];
  primaryKey: string[];
  foreignKeys: SchemaForeignKey[];
  indexes: SchemaIndex[];
}
export interface SchemaInfo {
  engine: DbEngine;
  schemas: string[];
  tables: SchemaTable[];
  /** When this was read from the database (ms since epoch); cached for 60 s. */
  readAt: number;
  cached: boolean;
}

/** One line of a connection's history (`db/history/<id>.jsonl`). */
export interface HistoryEntry {
  ts: number;
  /** `human` (the HTTP API) or `model` (the db_query tool), with the agent when known. */
  by: 'human' | 'model';
  agent?: string;
  mode: 'run' | 'explain' | 'export' | 'update-cell';
  /** The SQL, secrets masked, clipped. */
  sql: string;
  durationMs: number;
  rows: number;
  affected?: number;
  error?: string;
}
