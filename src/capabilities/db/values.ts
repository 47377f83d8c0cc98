/** Database values as JSON, CSV cells and SQL literals, the same way for every engine. */
import type { DbEngine, Row } from './types.js';

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const hex = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');

/** A value JSON can carry: bytes as \x-prefixed hex (PostgreSQL's own text form), big integers as strings. */
export function jsonValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (isBytes(v)) return '\\x' + hex(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? String(v) : v.toISOString();
  return v;
}

export function jsonRow(row: Row): Row {
  const out: Row = {};
  for (const k of Object.keys(row)) out[k] = jsonValue(row[k]);
  return out;
}

/** Text of one cell (CSV, a model's table): null is empty, objects are JSON. */
export function textValue(v: unknown): string {
  const j = jsonValue(v);
  if (j === null) return '';
  return typeof j === 'object' ? JSON.stringify(j) : String(j);
}

/** PostgreSQL COPY's CSV dialect, on every engine: NULL is empty, an empty string is "" (so the two stay apart). */
export function csvCell(v: unknown): string {
  if (v === '') return '""';
  const t = textValue(v);
  return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

/** A SQL literal for the `sql` export format, in the target engine's rules. */
export function sqlLiteral(v: unknown, engine: DbEngine): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return engine === 'postgres' ? (v ? 'TRUE' : 'FALSE') : v ? '1' : '0';
  if (isBytes(v)) return engine === 'postgres' ? `'\\x${hex(v)}'::bytea` : `X'${hex(v)}'`;
  const text = textValue(v);
  const quoted = text.replace(/'/g, "''");
  // MySQL reads backslashes as escapes by default.
  return engine === 'mysql' ? `'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}
