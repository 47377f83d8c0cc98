/**
 * Schema introspection per engine (tables, views, columns with types, primary and foreign keys,
 * indexes), read through the driver's read-only path, cached per connection for 60 s (seed 000 §8).
 */
import { LIMITS } from '../../kernel/limits.js';
import type { DbDriver, Row, SchemaInfo, SchemaTable } from './types.js';

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.replace(/^\{|\}$/g, '').split(',').filter(Boolean) : []);

export async function introspect(driver: DbDriver): Promise<Omit<SchemaInfo, 'readAt' | 'cached'>> {
  switch (driver.engine) {
    case 'sqlite':
      return { engine: 'sqlite', ...(await sqliteSchema(driver)) };
    case 'postgres':
      return { engine: 'postgres', ...(await postgresSchema(driver)) };
    case 'mysql':
      return { engine: 'mysql', ...(await mysqlSchema(driver)) };
  }
}

async function sqliteSchema(d: DbDriver): Promise<{ schemas: string[]; tables: SchemaTable[] }> {
  const objects = await d.select(`SELECT type, name FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`, []);
  const tables: SchemaTable[] = [];
  for (const o of objects) {
    const name = str(o.name);
    const [cols, fks, idx] = await Promise.all([
      d.select('SELECT name, type, "notnull" AS nn, dflt_value AS dflt, pk FROM pragma_table_info(?)', [name]),
      d.select('SELECT id, seq, "table" AS ref, "from" AS col, "to" AS refcol FROM pragma_foreign_key_list(?) ORDER BY id, seq', [name]),
      d.select('SELECT l.name AS name, l."unique" AS uq, l.origin AS origin, i.name AS col FROM pragma_index_list(?) l, pragma_index_info(l.name) i ORDER BY l.name, i.seqno', [name]),
    ]);
    const fkById = new Map<number, SchemaTable['foreignKeys'][number]>();
    for (const f of fks) {
      const id = Number(f.id);
      const fk = fkById.get(id) ?? { columns: [], refTable: str(f.ref), refColumns: [] };
      fk.columns.push(str(f.col));
      if (f.refcol !== null) fk.refColumns.push(str(f.refcol));
      fkById.set(id, fk);
    }
    tables.push({
      schema: 'main',
      name,
      kind: o.type === 'view' ? 'view' : 'table',
      columns: cols.map((c) => ({ name: str(c.name), type: str(c.type), nullable: !Number(c.nn) && !Number(c.pk), default: c.dflt === null ? null : str(c.dflt) })),
      primaryKey: cols.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk)).map((c) => str(c.name)),
      foreignKeys: [...fkById.values()],
      indexes: groupIndexes(idx.map((r) => ({ name: r.name, col: r.col, unique: Number(r.uq) === 1, primary: r.origin === 'pk' }))),
    });
  }
  return { schemas: ['main'], tables };
}

const PG_USER_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;

async function postgresSchema(d: DbDriver): Promise<{ schemas: string[]; tables: SchemaTable[] }> {
  const [schemas, rels, cols, cons, idx] = await Promise.all([
    d.select(`SELECT n.nspname AS name FROM pg_namespace n WHERE ${PG_USER_SCHEMAS} ORDER BY 1`, []),
    d.select(
      `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r','p','v','m','f') AND ${PG_USER_SCHEMAS} ORDER BY 1, 2`,
      [],
    ),
    d.select(
      `SELECT n.nspname AS schema, c.relname AS "table", a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              NOT a.attnotnull AS nullable, pg_get_expr(ad.adbin, ad.adrelid) AS "default"
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
       WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r','p','v','m','f') AND ${PG_USER_SCHEMAS}
       ORDER BY 1, 2, a.attnum`,
      [],
    ),
    d.select(
      `SELECT n.nspname AS schema, c.relname AS "table", con.conname AS name, con.contype AS type,
              ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ord) JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
              fn.nspname AS ref_schema, fc.relname AS ref_table,
              ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ord) JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) AS ref_columns
       FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_class fc ON fc.oid = con.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
       WHERE con.contype IN ('p','f') AND ${PG_USER_SCHEMAS} ORDER BY 1, 2, 3`,
      [],
    ),
    d.select(
      `SELECT n.nspname AS schema, t.relname AS "table", i.relname AS name, ix.indisunique AS "unique", ix.indisprimary AS "primary",
              ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true) FROM generate_series(1, ix.indnkeyatts) k ORDER BY k) AS columns
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE ${PG_USER_SCHEMAS} ORDER BY 1, 2, 3`,
      [],
    ),
  ]);
  const key = (r: Row) => `${str(r.schema)}\u0000${str(r.table ?? r.name)}`;
  const tables = new Map<string, SchemaTable>();
  for (const r of rels) {
    tables.set(key(r), { schema: str(r.schema), name: str(r.name), kind: r.kind === 'v' || r.kind === 'm' ? 'view' : 'table', columns: [], primaryKey: [], foreignKeys: [], indexes: [] });
  }
  for (const c of cols) tables.get(key(c))?.columns.push({ name: str(c.name), type: str(c.type), nullable: !!c.nullable, default: c.default === null ? null : str(c.default) });
  for (const c of cons) {
    const t = tables.get(key(c));
    if (!t) continue;
    if (c.type === 'p') t.primaryKey = list(c.columns);
    else t.foreignKeys.push({ name: str(c.name), columns: list(c.columns), refSchema: str(c.ref_schema), refTable: str(c.ref_table), refColumns: list(c.ref_columns) });
  }
  for (const i of idx) tables.get(key(i))?.indexes.push({ name: str(i.name), columns: list(i.columns), unique: !!i.unique, primary: !!i.primary });
  return { schemas: schemas.map((s) => str(s.name)), tables: [...tables.values()] };
}

async function mysqlSchema(d: DbDriver): Promise<{ schemas: string[]; tables: SchemaTable[] }> {
  // The connection's database when it names one, else every database that is not the server's own.
  const scope = `(DATABASE() IS NOT NULL AND TABLE_SCHEMA = DATABASE()) OR (DATABASE() IS NULL AND TABLE_SCHEMA NOT IN ('mysql','information_schema','performance_schema','sys'))`;
  const [rels, cols, keys, idx] = await Promise.all([
    d.select(`SELECT TABLE_SCHEMA AS s, TABLE_NAME AS name, TABLE_TYPE AS kind FROM information_schema.TABLES WHERE ${scope} ORDER BY 1, 2`, []),
    d.select(
      `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t, COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS dflt, COLUMN_KEY AS k
       FROM information_schema.COLUMNS WHERE ${scope} ORDER BY 1, 2, ORDINAL_POSITION`,
      [],
    ),
    d.select(
      `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t, CONSTRAINT_NAME AS name, COLUMN_NAME AS col, REFERENCED_TABLE_SCHEMA AS rs, REFERENCED_TABLE_NAME AS rt, REFERENCED_COLUMN_NAME AS rc
       FROM information_schema.KEY_COLUMN_USAGE WHERE (${scope}) AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) ORDER BY 1, 2, 3, ORDINAL_POSITION`,
      [],
    ),
    d.select(
      `SELECT TABLE_SCHEMA AS s, TABLE_NAME AS t, INDEX_NAME AS name, NON_UNIQUE AS nu, COLUMN_NAME AS col FROM information_schema.STATISTICS WHERE ${scope} ORDER BY 1, 2, 3, SEQ_IN_INDEX`,
      [],
    ),
  ]);
  const key = (r: Row) => `${str(r.s)}\u0000${str(r.t ?? r.name)}`;
  const tables = new Map<string, SchemaTable>();
  for (const r of rels) tables.set(key(r), { schema: str(r.s), name: str(r.name), kind: /VIEW/.test(str(r.kind)) ? 'view' : 'table', columns: [], primaryKey: [], foreignKeys: [], indexes: [] });
  for (const c of cols) tables.get(key(c))?.columns.push({ name: str(c.name), type: str(c.type), nullable: c.nullable === 'YES', default: c.dflt === null ? null : str(c.dflt) });
  const fks = new Map<string, SchemaTable['foreignKeys'][number]>();
  for (const k of keys) {
    const t = tables.get(key(k));
    if (!t) continue;
    if (k.name === 'PRIMARY') {
      t.primaryKey.push(str(k.col));
      continue;
    }
    const id = key(k) + '\u0000' + str(k.name);
    let fk = fks.get(id);
    if (!fk) {
      fk = { name: str(k.name), columns: [], refSchema: str(k.rs), refTable: str(k.rt), refColumns: [] };
      fks.set(id, fk);
      t.foreignKeys.push(fk);
    }
    fk.columns.push(str(k.col));
    fk.refColumns.push(str(k.rc));
  }
  for (const [k, t] of tables) {
    t.indexes = groupIndexes(idx.filter((r) => key(r) === k).map((r) => ({ name: r.name, col: r.col, unique: Number(r.nu) === 0, primary: r.name === 'PRIMARY' })));
  }
  return { schemas: [...new Set(rels.map((r) => str(r.s)))], tables: [...tables.values()] };
}

function groupIndexes(rows: Array<{ name: unknown; col: unknown; unique: boolean; primary: boolean }>): SchemaTable['indexes'] {
  const out = new Map<string, SchemaTable['indexes'][number]>();
  for (const r of rows) {
    const name = str(r.name);
    const idx = out.get(name) ?? { name, columns: [], unique: r.unique, primary: r.primary };
    idx.columns.push(str(r.col));
    out.set(name, idx);
  }
  return [...out.values()];
}

/** The 60-second cache; `refresh` or a change to the connection busts it. */
export function createSchemaCache(now: () => number = Date.now) {
  const entries = new Map<string, { info: Omit<SchemaInfo, 'readAt' | 'cached'>; readAt: number }>();
  return {
    async get(id: string, driver: DbDriver, refresh: boolean): Promise<SchemaInfo> {
      const hit = entries.get(id);
      if (hit && !refresh && now() - hit.readAt < LIMITS.dbSchemaCacheMs) return { ...hit.info, readAt: hit.readAt, cached: true };
      const info = await introspect(driver);
      const readAt = now();
      entries.set(id, { info, readAt });
      return { ...info, readAt, cached: false };
    },
    drop(id: string) {
      entries.delete(id);
    },
  };
}
