/**
 * Keyset paging for the table browser: a page after a cursor reads `WHERE (order key) > (last row's
 * key) ... LIMIT n`, which an index answers in the same time on page 1 000 as on page 1, where
 * `OFFSET` has every engine step over all the rows before the page (bench/scale-table).
 *
 * The order key is the requested sort plus the primary key as a tie-breaker, so the order is total
 * and no row is skipped or repeated between pages. A cursor is only offered when that key cannot
 * hold NULL (primary-key or NOT NULL columns): engines disagree on where NULLs sort, and a NULL never
 * compares greater, so a nullable key could silently lose rows. The cursor is opaque to clients:
 * base64url JSON of the key values and the order it belongs to, checked on the way back in.
 */
import { badRequest } from '../../kernel/errors.js';
import type { SchemaTable } from './types.js';

export interface OrderColumn {
  column: string;
  desc: boolean;
}

type KeyValue = string | number | { big: string };

/** The total order of a page: the sort asked for, then every primary-key column not already in it. */
export function totalOrder(t: SchemaTable, sort: OrderColumn[]): OrderColumn[] {
  const named = new Set(sort.map((s) => s.column));
  return [...sort, ...t.primaryKey.filter((c) => !named.has(c)).map((column) => ({ column, desc: false }))];
}

/** Whether rows can be paged by key in this order: a primary key exists and no key column holds NULL. */
export function keyable(t: SchemaTable, order: OrderColumn[]): boolean {
  if (!t.primaryKey.length) return false;
  return order.every((o) => t.primaryKey.includes(o.column) || t.columns.find((c) => c.name === o.column)?.nullable === false);
}

/** What a cursor belongs to: the table and its total order. */
const signature = (t: SchemaTable, order: OrderColumn[]) => `${t.schema}.${t.name}:${order.map((o) => `${o.column} ${o.desc ? 'desc' : 'asc'}`).join(',')}`;

/** The cursor after `row`, or undefined when one of its key values is not a plain number or string. */
export function encodeCursor(t: SchemaTable, order: OrderColumn[], row: Record<string, unknown>): string | undefined {
  const values: KeyValue[] = [];
  for (const o of order) {
    const v = row[o.column];
    if (typeof v === 'number' || typeof v === 'string') values.push(v);
    else if (typeof v === 'bigint') values.push({ big: v.toString() });
    else return undefined;
  }
  return Buffer.from(JSON.stringify({ o: signature(t, order), v: values })).toString('base64url');
}

/** The key values a cursor carries; a clear 400 when it is malformed or from another order. */
export function decodeCursor(t: SchemaTable, order: OrderColumn[], cursor: string): unknown[] {
  const foreign = badRequest('cursor is not one this engine gave for this table; pass the "nextCursor" of the previous page unchanged');
  let parsed: { o?: unknown; v?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw foreign;
  }
  if (typeof parsed.o === 'string' && parsed.o !== signature(t, order) && parsed.o.startsWith(`${t.schema}.${t.name}:`)) {
    throw badRequest('cursor belongs to another sort; ask for the first page again (without "cursor") after changing the sort');
  }
  if (parsed.o !== signature(t, order) || !Array.isArray(parsed.v) || parsed.v.length !== order.length) throw foreign;
  return parsed.v.map((v: unknown) => {
    if (typeof v === 'string' || typeof v === 'number') return v;
    const big = (v as { big?: unknown } | null)?.big;
    if (typeof big === 'string' && /^-?\d+$/.test(big)) return BigInt(big);
    throw foreign;
  });
}

/**
 * The condition "comes after `values` in `order`": (a > ?) OR (a = ? AND b > ?) ..., led by a
 * redundant `a >= ?` (or `<=`) so every engine can range-scan an index on the first column.
 */
export function afterCondition(order: OrderColumn[], values: unknown[], quote: (name: string) => string, param: (v: unknown) => string): string {
  const terms: string[] = [];
  for (let i = 0; i < order.length; i++) {
    const equal = order.slice(0, i).map((o, j) => `${quote(o.column)} = ${param(values[j])}`);
    const o = order[i];
    terms.push([...equal, `${quote(o.column)} ${o.desc ? '<' : '>'} ${param(values[i])}`].join(' AND '));
  }
  const first = order[0];
  return `${quote(first.column)} ${first.desc ? '<=' : '>='} ${param(values[0])} AND (${terms.map((t) => `(${t})`).join(' OR ')})`;
}
