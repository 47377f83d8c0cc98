/**
 * Exports: one read statement, run read-only, streamed from a cursor in batches straight into the
 * response (csv, json, ndjson, or sql INSERTs for a named table). The whole result is never in
 * memory: the cursor is pulled only as fast as the client reads.
 */
import { Readable } from 'node:stream';
import { badRequest } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { classifySql } from './classify.js';
import { readOnlyLocks } from './seams.js';
import { quoteBacktick, quoteDouble } from './quote.js';
import type { DbCore } from './service.js';
import { EXPORT_FORMATS, type DbEngine, type ExportFormat, type Row } from './types.js';
import { csvCell, jsonRow, sqlLiteral } from './values.js';


export interface ExportRequest {
  sql: string;
  format: ExportFormat;
  table?: string;
}

const CONTENT_TYPE: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  sql: 'application/sql; charset=utf-8',
};

export interface ExportStream {
  contentType: string;
  filename: string;
  body: Readable;
}

export function createExporter(core: DbCore) {
  return async function exportRows(id: string, req: ExportRequest): Promise<ExportStream> {
    const { conn, driver, judge } = await core.open(id);
    if (!EXPORT_FORMATS.includes(req.format)) throw badRequest(`format must be one of ${EXPORT_FORMATS.join(', ')}`);
    if (req.format === 'sql' && !req.table) throw badRequest('the sql format needs "table": the name the INSERT statements write into');
    if (typeof req.sql !== 'string' || !req.sql.trim()) throw badRequest('sql is required: one statement that returns rows');
    const c = await classifySql(req.sql, conn.engine, judge?.judge);
    if (c.statements.length !== 1) throw badRequest(`an export runs exactly one statement (got ${c.statements.length})`);
    if (c.class !== 'read' && readOnlyLocks.classifier) throw badRequest(`an export runs one read; ${c.reason}`);
    const sql = c.statements[0].sql;
    const started = Date.now();
    const ext = req.format === 'ndjson' ? 'ndjson' : req.format;
    const filename = `${(req.table ?? id).replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}`;
    if (req.format === 'csv' && driver.exportCsv) {
      // The engine's own CSV path (PostgreSQL COPY, SQLite encoding in its worker): same rows, fewer copies.
      let native;
      try {
        native = await driver.exportCsv(sql, { timeoutMs: conn.timeoutMs });
      } catch (err) {
        throw badRequest(`the export query failed: ${core.mask((err as Error).message)}`);
      }
      const opened = native;
      async function* passThrough(): AsyncGenerator<string | Uint8Array> {
        let error: string | undefined;
        try {
          yield* opened.chunks;
        } catch (err) {
          error = core.mask((err as Error).message);
          throw err;
        } finally {
          await opened.close();
          await core.history.append(id, { ts: started, by: 'human', mode: 'export', sql: req.sql, durationMs: Date.now() - started, rows: opened.rows(), error }).catch(() => undefined);
        }
      }
      return { contentType: CONTENT_TYPE.csv, filename, body: Readable.from(passThrough(), { objectMode: false }) };
    }
    let cursor;
    try {
      cursor = await driver.cursor(sql, { readOnly: true, timeoutMs: conn.timeoutMs });
    } catch (err) {
      throw badRequest(`the export query failed: ${core.mask((err as Error).message)}`);
    }
    const columns = await cursor.columns();
    const open = cursor;
    let rows = 0;
    let error: string | undefined;
    const writeHistory = () =>
      core.history.append(id, { ts: started, by: 'human', mode: 'export', sql: req.sql, durationMs: Date.now() - started, rows, error }).catch(() => undefined);

    async function* chunks(): AsyncGenerator<string> {
      try {
        yield head(req.format, columns);
        let first = true;
        for (;;) {
          const batch = await open.next(LIMITS.dbExportBatch);
          if (!batch.length) break;
          rows += batch.length;
          yield encode(req.format, batch, columns, first, conn.engine, req.table);
          first = false;
        }
        yield tail(req.format);
      } catch (err) {
        error = core.mask((err as Error).message);
        throw err;
      } finally {
        await open.close();
        await writeHistory();
      }
    }
    return { contentType: CONTENT_TYPE[req.format], filename, body: Readable.from(chunks(), { objectMode: false }) };
  };
}

function head(format: ExportFormat, columns: string[]): string {
  if (format === 'csv') return columns.map(csvCell).join(',') + '\r\n';
  if (format === 'json') return '[';
  return '';
}

function tail(format: ExportFormat): string {
  return format === 'json' ? ']\n' : '';
}

function encode(format: ExportFormat, batch: Row[], columns: string[], first: boolean, engine: DbEngine, table?: string): string {
  switch (format) {
    case 'csv':
      return batch.map((r) => columns.map((c) => csvCell(r[c])).join(',')).join('\r\n') + '\r\n';
    case 'ndjson':
      return batch.map((r) => JSON.stringify(jsonRow(r))).join('\n') + '\n';
    case 'json':
      return (first ? '\n' : ',\n') + batch.map((r) => JSON.stringify(jsonRow(r))).join(',\n');
    case 'sql': {
      const q = engine === 'mysql' ? quoteBacktick : quoteDouble;
      const target = `${q(table!)} (${columns.map(q).join(', ')})`;
      return batch.map((r) => `INSERT INTO ${target} VALUES (${columns.map((c) => sqlLiteral(r[c], engine)).join(', ')});`).join('\n') + '\n';
    }
  }
}
