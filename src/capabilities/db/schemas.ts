/**
 * JSON Schemas of the database routes and tools, defined once: the routes validate with them (and
 * the OpenAPI document is generated from them); the tools reuse the shared pieces.
 */
import { bool, int, num, obj, str } from '../../http/schemas.js';
import { LIMITS } from '../../kernel/limits.js';
import { DB_ENGINES, EXPORT_FORMATS, FILTER_OPS } from './types.js';

export const connectionId = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.dbConnectionIdChars,
  pattern: '^[A-Za-z0-9._-]+$',
  description: 'Connection id: letters, digits, dot, dash, underscore.',
} as const;

export const idParams = obj({ id: connectionId }, ['id']);

const engine = { type: 'string', enum: [...DB_ENGINES], description: 'sqlite, postgres or mysql (MariaDB uses mysql).' } as const;
const rowLimit = { type: 'integer', minimum: 1, maximum: LIMITS.dbRowLimitMax } as const;

/** A connection definition as sent. An `id` in the body is dropped: the URL path is the identity. */
export const connectionInput = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'ignored: the URL path is the identity' },
    name: { type: 'string', maxLength: 200 },
    engine,
    url: { type: 'string', minLength: 1, maxLength: 4096, description: 'postgres://user:password@host:5432/db or mysql://...; stored as a secret, never returned.' },
    path: { type: 'string', minLength: 1, maxLength: 4096, description: 'SQLite file, absolute or relative to the workspace.' },
    host: { type: 'string', minLength: 1, maxLength: 255 },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    database: { type: 'string', maxLength: 255 },
    user: { type: 'string', maxLength: 255 },
    password: { type: 'string', minLength: 1, maxLength: 4096, description: 'Stored as a secret, never returned.' },
    clearPassword: { type: 'boolean' },
    clearUrl: { type: 'boolean' },
    ssl: { type: 'boolean' },
    writable: { type: 'boolean', description: 'Governs writes by people; a model write also needs a yes to a prompt.' },
    rowLimit,
    timeoutMs: { type: 'integer', minimum: 100, maximum: LIMITS.dbTimeoutMaxMs },
  },
  required: ['engine'],
  additionalProperties: false,
} as const;

export const connectionView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    engine: { type: 'string' },
    path: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'integer' },
    database: { type: 'string' },
    user: { type: 'string' },
    ssl: { type: 'boolean' },
    writable: { type: 'boolean' },
    rowLimit: { type: 'integer' },
    timeoutMs: { type: 'integer' },
    hasPassword: { type: 'boolean' },
    hasUrl: { type: 'boolean' },
    /** Set when the role can reach outside the database (a superuser, server-file roles, FILE/SUPER): read-only rests on the engine alone. */
    warning: { type: 'string' },
  },
  required: ['id', 'name', 'engine', 'writable', 'rowLimit', 'timeoutMs', 'hasPassword', 'hasUrl'],
  additionalProperties: false,
} as const;

export const testResult = obj({ ok: bool(), ms: num(), error: str(), warning: str() }, ['ok']);

const anyRow = { type: 'object', additionalProperties: true } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

export const schemaResponse = {
  type: 'object',
  properties: {
    engine: { type: 'string' },
    schemas: strings,
    readAt: { type: 'number' },
    cached: { type: 'boolean' },
    tables: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          schema: { type: 'string' },
          name: { type: 'string' },
          kind: { type: 'string', enum: ['table', 'view'] },
          columns: {
            type: 'array',
            items: obj({ name: str(), type: str(), nullable: bool(), default: { type: ['string', 'null'] } }),
          },
          primaryKey: strings,
          foreignKeys: {
            type: 'array',
            items: obj({ name: str(), columns: strings, refSchema: str(), refTable: str(), refColumns: strings }),
          },
          indexes: {
            type: 'array',
            items: obj({ name: str(), columns: strings, unique: bool(), primary: bool() }),
          },
        },
        additionalProperties: false,
      },
    },
  },
  required: ['engine', 'schemas', 'tables', 'readAt', 'cached'],
  additionalProperties: false,
} as const;

export const queryBody = {
  type: 'object',
  properties: {
    sql: { type: 'string', minLength: 1, maxLength: LIMITS.requestBodyBytes, description: 'One or more statements separated by ;' },
    rowLimit,
    mode: { type: 'string', enum: ['run', 'explain'] },
  },
  required: ['sql'],
  additionalProperties: false,
} as const;

export const queryResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    connection: { type: 'string' },
    engine: { type: 'string' },
    class: { type: 'string', enum: ['read', 'write', 'forbidden'] },
    rowLimit: { type: 'integer' },
    note: { type: 'string' },
    error: { type: 'string' },
    failedStatement: { type: 'string' },
    durationMs: { type: 'number' },
    statements: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          sql: { type: 'string' },
          class: { type: 'string' },
          columns: strings,
          rows: { type: 'array', items: anyRow },
          rowCount: { type: 'integer' },
          affected: { type: 'integer' },
          truncated: { type: 'boolean' },
          durationMs: { type: 'number' },
        },
        additionalProperties: false,
      },
    },
  },
  required: ['ok', 'connection', 'engine', 'class', 'statements', 'rowLimit', 'durationMs'],
  additionalProperties: false,
} as const;

export const historyResponse = {
  type: 'object',
  properties: {
    history: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          ts: { type: 'number' },
          by: { type: 'string' },
          agent: { type: 'string' },
          mode: { type: 'string' },
          sql: { type: 'string' },
          durationMs: { type: 'number' },
          rows: { type: 'integer' },
          affected: { type: 'integer' },
          error: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
  },
  required: ['history'],
  additionalProperties: false,
} as const;

const schemaAndTable = {
  schema: { type: 'string', minLength: 1, description: 'Schema (PostgreSQL), database (MySQL) or "main" (SQLite); optional when the name is unique.' },
  table: { type: 'string', minLength: 1 },
} as const;

export const tableDataBody = {
  type: 'object',
  properties: {
    ...schemaAndTable,
    sort: {
      type: 'array',
      items: { type: 'object', properties: { column: { type: 'string' }, direction: { type: 'string', enum: ['asc', 'desc'] } }, required: ['column'], additionalProperties: false },
    },
    filters: {
      type: 'array',
      items: {
        type: 'object',
        properties: { column: { type: 'string' }, op: { type: 'string', enum: [...FILTER_OPS] }, value: {} },
        required: ['column', 'op'],
        additionalProperties: false,
      },
    },
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: LIMITS.dbTablePageMax, default: LIMITS.tablePageDefault },
    cursor: { type: 'string', minLength: 1, maxLength: 4096, description: 'The previous page\'s nextCursor: the next page read by key, as fast on page 1 000 as on page 1 (offset is then only echoed).' },
  },
  required: ['table'],
  additionalProperties: false,
} as const;

export const tableDataResponse = {
  type: 'object',
  properties: {
    schema: { type: 'string' },
    table: { type: 'string' },
    columns: strings,
    primaryKey: strings,
    rows: { type: 'array', items: anyRow },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    hasMore: { type: 'boolean' },
    nextCursor: { type: 'string', description: 'Present when hasMore and the order is keyed (a primary key, no nullable sort column): pass it as cursor for the next page.' },
  },
  required: ['table', 'columns', 'rows', 'offset', 'limit', 'hasMore'],
  additionalProperties: false,
} as const;

export const updateCellBody = {
  type: 'object',
  properties: {
    ...schemaAndTable,
    pk: { type: 'object', minProperties: 1, additionalProperties: true, description: 'Every primary-key column and its value.' },
    set: { type: 'object', minProperties: 1, additionalProperties: true, description: 'Columns and their new values.' },
  },
  required: ['table', 'pk', 'set'],
  additionalProperties: false,
} as const;

export const updateCellResponse = obj({ ok: bool(), affected: int(), error: str() }, ['ok', 'affected']);

export const exportBody = {
  type: 'object',
  properties: {
    sql: { type: 'string', minLength: 1 },
    format: { type: 'string', enum: [...EXPORT_FORMATS] },
    table: { type: 'string', minLength: 1, description: 'Target table of the INSERT statements (format sql).' },
  },
  required: ['sql', 'format'],
  additionalProperties: false,
} as const;

export const okResponse = obj({ ok: bool() }, ['ok']);

/** The export answers a file (text/csv, application/json, application/x-ndjson, application/sql), streamed. */
export const exportFile = { type: 'string', description: 'The exported rows as a file, streamed; content-type by format.' } as const;
