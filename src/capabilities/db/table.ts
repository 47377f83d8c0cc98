/**
 * The table browser: paged rows (filters, sort) and one-cell edits. Table and column names are
 * checked against the cached schema and quoted by the driver's rules; every value is a parameter.
 */
import { badRequest, notFound } from '../../kernel/errors.js';
import { LIMITS } from '../../kernel/limits.js';
import { afterCondition, decodeCursor, encodeCursor, keyable, totalOrder } from './keyset.js';
import type { DbCore } from './service.js';
import { FILTER_OPS, type DbDriver, type FilterOp, type SchemaTable } from './types.js';
import { jsonRow } from './values.js';


export interface TableDataRequest {
  schema?: string;
  table: string;
  sort?: Array<{ column: string; direction?: 'asc' | 'desc' }>;
  filters?: Array<{ column: string; op: FilterOp; value?: unknown }>;
  offset?: number;
  limit?: number;
  /** The previous page's `nextCursor`: the page after it, read by key instead of by offset. */
  cursor?: string;
}

export interface UpdateCellRequest {
  schema?: string;
  table: string;
  pk: Record<string, unknown>;
  set: Record<string, unknown>;
}

export function createTableOps(core: DbCore) {
  /** Finds the table in the schema (re-reading once when the cache may be stale). */
  const findTable = async (id: string, schema: string | undefined, table: string): Promise<SchemaTable> => {
    if (typeof table !== 'string' || !table) throw badRequest('table is required');
    for (const refresh of [false, true]) {
      const info = await core.schema(id, refresh);
      const matches = info.tables.filter((t) => t.name === table && (schema === undefined || t.schema === schema));
      if (matches.length === 1) return matches[0];
      if (matches.length > 1) throw badRequest(`table "${table}" exists in several schemas (${matches.map((t) => t.schema).join(', ')}); say which with "schema"`);
    }
    throw notFound(`no table or view "${schema ? schema + '.' : ''}${table}" on connection "${id}"; GET /api/db/${id}/schema lists them`);
  };
  const column = (t: SchemaTable, name: unknown): string => {
    if (typeof name !== 'string' || !t.columns.some((c) => c.name === name)) {
      throw badRequest(`"${String(name)}" is not a column of ${t.name}; its columns are ${t.columns.map((c) => c.name).join(', ')}`);
    }
    return name;
  };
  const qualified = (d: DbDriver, t: SchemaTable) => `${d.quoteIdent(t.schema)}.${d.quoteIdent(t.name)}`;

  return {
    async page(id: string, req: TableDataRequest) {
      const { driver } = await core.open(id);
      const t = await findTable(id, req.schema, req.table);
      const limit = req.limit ?? LIMITS.tablePageDefault;
      const offset = req.offset ?? 0;
      const params: unknown[] = [];
      const p = (v: unknown) => (params.push(v), driver.param(params.length));
      const where = (req.filters ?? []).map((f) => {
        const col = driver.quoteIdent(column(t, f.column));
        switch (f.op) {
          case 'is null':
            return `${col} IS NULL`;
          case 'is not null':
            return `${col} IS NOT NULL`;
          case 'in': {
            if (!Array.isArray(f.value) || f.value.length === 0) throw badRequest(`filter "in" on ${f.column} needs "value": a non-empty array`);
            return `${col} IN (${f.value.map(p).join(', ')})`;
          }
          case 'like':
          case 'not like':
            return `${col} ${f.op.toUpperCase()} ${p(f.value)}`;
          case '!=':
            return `${col} <> ${p(f.value)}`;
          default:
            return `${col} ${f.op} ${p(f.value)}`;
        }
      });
      const order = totalOrder(t, (req.sort ?? []).map((s) => ({ column: column(t, s.column), desc: s.direction === 'desc' })));
      const byKey = keyable(t, order);
      if (req.cursor !== undefined) {
        if (!byKey) throw badRequest(`${t.name} cannot be paged by cursor in this order (no primary key, or a sort column may hold NULL); page it with "offset"`);
        where.push(afterCondition(order, decodeCursor(t, order, req.cursor), (c) => driver.quoteIdent(c), p));
      }
      const sql =
        `SELECT * FROM ${qualified(driver, t)}` +
        (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
        (order.length ? ` ORDER BY ${order.map((o) => `${driver.quoteIdent(o.column)} ${o.desc ? 'DESC' : 'ASC'}`).join(', ')}` : '') +
        ` LIMIT ${p(limit + 1)}` +
        (req.cursor === undefined ? ` OFFSET ${p(offset)}` : '');
      const rows = await driver.select(sql, params);
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const nextCursor = hasMore && byKey ? encodeCursor(t, order, page[page.length - 1]) : undefined;
      return {
        schema: t.schema,
        table: t.name,
        columns: t.columns.map((c) => c.name),
        primaryKey: t.primaryKey,
        rows: page.map(jsonRow),
        offset,
        limit,
        hasMore,
        ...(nextCursor ? { nextCursor } : {}),
      };
    },

    async updateCell(id: string, req: UpdateCellRequest) {
      const { conn, driver } = await core.open(id);
      if (!conn.writable) throw badRequest(`connection "${id}" is read-only; make it writable (PUT /api/db/connections/${id} with "writable": true) to edit cells`);
      const t = await findTable(id, req.schema, req.table);
      if (t.kind !== 'table') throw badRequest(`${t.name} is a view; edit the table it reads from`);
      if (!t.primaryKey.length) throw badRequest(`${t.name} has no primary key, so a cell cannot be addressed; edit it with a query`);
      const pkCols = Object.keys(req.pk ?? {});
      const missing = t.primaryKey.filter((c) => !pkCols.includes(c));
      const extra = pkCols.filter((c) => !t.primaryKey.includes(c));
      if (missing.length || extra.length) throw badRequest(`pk must give exactly the primary key of ${t.name}: ${t.primaryKey.join(', ')}`);
      const setCols = Object.keys(req.set ?? {});
      if (!setCols.length) throw badRequest('set is required: {"<column>": <new value>}');
      const params: unknown[] = [];
      const p = (v: unknown) => (params.push(v), driver.param(params.length));
      const assignments = setCols.map((c) => `${driver.quoteIdent(column(t, c))} = ${p(req.set[c])}`);
      const conditions = t.primaryKey.map((c) => `${driver.quoteIdent(c)} = ${p(req.pk[c])}`);
      const sql = `UPDATE ${qualified(driver, t)} SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')}`;
      const started = Date.now();
      let affected = 0;
      let error: string | undefined;
      try {
        affected = await driver.write(sql, params, { timeoutMs: conn.timeoutMs, expectAtMost: 1 });
      } catch (err) {
        error = core.mask((err as Error).message);
      }
      await core.history.append(id, { ts: started, by: 'human', mode: 'update-cell', sql, durationMs: Date.now() - started, rows: 0, affected, error });
      if (error) throw badRequest(`nothing changed: ${error}`);
      return { ok: affected === 1, affected, ...(affected === 0 ? { error: `no row of ${t.name} has that primary key; nothing changed` } : {}) };
    },
  };
}

export type TableOps = ReturnType<typeof createTableOps>;
