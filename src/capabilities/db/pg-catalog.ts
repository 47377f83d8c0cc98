/**
 * The server's own catalog, as judge-pg.ts needs it: functions (pg_proc), operators (pg_operator),
 * types (pg_type) and relations (pg_class), looked up by name or by oid in one round trip, kept per
 * connection and server version. What an object reaches is read here too, for objects that are not
 * built in: a function's definition and the functions it depends on (defaults, SQL bodies), an
 * aggregate's support functions, a type's I/O, domain checks, fields and casts into it, a view's and
 * a row-level policy's functions, operators, types and relations (pg_depend, which the server
 * itself keeps exact). Built-in objects (oid below FirstNormalObjectId) come with the server version.
 *
 * The cache lives LIMITS.dbCatalogCacheMs and is dropped whenever the engine runs a write anywhere
 * (service.ts), so a function created or replaced through the engine is judged afresh.
 */
import { LIMITS } from '../../kernel/limits.js';
import type { DbDriver } from './types.js';

/** Objects with a lower oid were made by initdb: the server's own. */
export const FIRST_USER_OID = 16384;

export interface PgFunction {
  oid: number;
  schema: string;
  name: string;
  nargs: number;
  ndefaults: number;
  variadic: boolean;
  /** i immutable, s stable, v volatile. */
  volatility: 'i' | 's' | 'v';
  definer: boolean;
  /** f function, a aggregate, w window, p procedure. */
  kind: string;
  language: string;
  trusted: boolean;
  extension: string | null;
  /** CREATE FUNCTION text (sql and plpgsql functions that are not built in). */
  definition: string | null;
  /** Functions it depends on (parameter defaults, BEGIN ATOMIC bodies) and an aggregate's support functions. */
  calls: number[];
}

export interface PgOperator {
  oid: number;
  schema: string;
  name: string;
  /** b binary, l prefix. */
  kind: string;
  extension: string | null;
  /** oprcode, oprrest, oprjoin (0 when absent). */
  functions: number[];
}

export interface PgType {
  oid: number;
  schema: string;
  name: string;
  extension: string | null;
  /** Input, output, receive, send, typmod and subscript functions. */
  io: number[];
  /** Types it is made of: a domain's base, an array's element, a composite's fields, a range's subtype. */
  parts: number[];
  /** Functions a domain's checks call, a range's canonical/subdiff, and casts into it that are not built in. */
  functions: number[];
}

export interface PgRelation {
  oid: number;
  schema: string;
  name: string;
  /** r table, p partitioned, v view, m materialized view, f foreign table. */
  kind: string;
  /** What its view query and row-level policies use (not built-in relations only). */
  uses: { functions: number[]; operators: number[]; types: number[]; relations: number[] };
}

type Kind = 'functions' | 'operators' | 'types' | 'relations';
export interface Ask {
  names: Partial<Record<Kind, string[]>>;
  oids: Partial<Record<Kind, number[]>>;
}

const ints = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number).filter((n) => n > 0) : []);

const EXTENSION_OF = (catalog: string, column: string) =>
  `(SELECT e.extname FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
     WHERE d.classid = '${catalog}'::regclass AND d.objid = ${column} AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' LIMIT 1)`;

const FUNCTIONS = `
  SELECT p.oid::int8 AS oid, n.nspname AS schema, p.proname AS name, p.pronargs AS nargs, p.pronargdefaults AS ndefaults,
    p.provariadic <> 0 AS variadic, p.provolatile AS volatility, p.prosecdef AS definer, p.prokind AS kind,
    l.lanname AS language, l.lanpltrusted AS trusted, ${EXTENSION_OF('pg_proc', 'p.oid')} AS extension,
    CASE WHEN p.oid >= ${FIRST_USER_OID} AND p.prokind = 'f' AND l.lanname IN ('sql', 'plpgsql') THEN pg_get_functiondef(p.oid) END AS definition,
    CASE WHEN p.oid >= ${FIRST_USER_OID} THEN ARRAY(
      SELECT d.refobjid::int8 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.refclassid = 'pg_proc'::regclass
      UNION SELECT unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn]::oid[])::int8
        FROM pg_aggregate a WHERE a.aggfnoid = p.oid) END AS calls
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
  WHERE p.proname = ANY($1::text[]) OR p.oid = ANY($2::oid[])`;

const OPERATORS = `
  SELECT o.oid::int8 AS oid, n.nspname AS schema, o.oprname AS name, o.oprkind AS kind, ${EXTENSION_OF('pg_operator', 'o.oid')} AS extension,
    ARRAY[o.oprcode::oid, o.oprrest::oid, o.oprjoin::oid]::int8[] AS functions
  FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
  WHERE o.oprname = ANY($3::text[]) OR o.oid = ANY($4::oid[])`;

/** typsubscript exists from PostgreSQL 14. */
const TYPES = (version: number) => `
  SELECT t.oid::int8 AS oid, n.nspname AS schema, t.typname AS name, ${EXTENSION_OF('pg_type', 't.oid')} AS extension,
    ARRAY[t.typinput::oid, t.typoutput::oid, t.typreceive::oid, t.typsend::oid, t.typmodin::oid, t.typmodout::oid${version >= 140000 ? ', t.typsubscript::oid' : ''}]::int8[] AS io,
    CASE WHEN t.oid >= ${FIRST_USER_OID} THEN ARRAY(
      SELECT t.typbasetype::int8 UNION SELECT t.typelem::int8
      UNION SELECT a.atttypid::int8 FROM pg_attribute a WHERE t.typtype = 'c' AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
      UNION SELECT r.rngsubtype::int8 FROM pg_range r WHERE r.rngtypid = t.oid
      UNION SELECT r.rngtypid::int8 FROM pg_range r WHERE r.rngmultitypid = t.oid) END AS parts,
    ARRAY(
      SELECT c.castfunc::int8 FROM pg_cast c WHERE c.casttarget = t.oid AND c.castfunc <> 0 AND (c.oid >= ${FIRST_USER_OID} OR c.castfunc >= ${FIRST_USER_OID})
      UNION SELECT d.refobjid::int8 FROM pg_constraint k JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass AND d.objid = k.oid AND d.refclassid = 'pg_proc'::regclass
        WHERE t.oid >= ${FIRST_USER_OID} AND k.contypid = t.oid
      UNION SELECT unnest(ARRAY[r.rngcanonical, r.rngsubdiff]::oid[])::int8 FROM pg_range r WHERE t.oid >= ${FIRST_USER_OID} AND r.rngtypid = t.oid) AS functions
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE t.typname = ANY($5::text[]) OR t.oid = ANY($6::oid[])`;

/**
 * A view's rule and a table's policies depend (pg_depend) on every function, operator, type and
 * relation they use; a table's inheritance children and partitions are read with it (a foreign one
 * among them reaches outside).
 */
const RELATIONS = `
  SELECT c.oid::int8 AS oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind,
    CASE WHEN c.oid >= ${FIRST_USER_OID} THEN ARRAY(
      SELECT DISTINCT d.refclassid::regclass::text || ':' || d.refobjid::int8 FROM pg_depend d
        WHERE d.refobjid <> c.oid AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass, 'pg_class'::regclass)
          AND ((d.classid = 'pg_rewrite'::regclass AND d.objid IN (SELECT r.oid FROM pg_rewrite r WHERE r.ev_class = c.oid))
            OR (d.classid = 'pg_policy'::regclass AND d.objid IN (SELECT p.oid FROM pg_policy p WHERE p.polrelid = c.oid)))
      UNION SELECT 'pg_class:' || i.inhrelid::int8 FROM pg_inherits i WHERE i.inhparent = c.oid)
    END AS uses
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND (c.relname = ANY($7::text[]) OR c.oid = ANY($8::oid[]))`;

const KINDS: Kind[] = ['functions', 'operators', 'types', 'relations'];

export interface PgCatalog {
  /** current_schemas(true) of the engine's read-only sessions: pg_catalog first unless placed. */
  searchPath(): Promise<string[]>;
  /** Functions of implicit casts that are not built in: the server applies them where types differ, unnamed. */
  implicitCasts(): Promise<number[]>;
  /** Reads what is not known yet, in one round trip. */
  load(ask: Ask): Promise<void>;
  byName<K extends Kind>(kind: K, name: string): Array<Row<K>>;
  byOid<K extends Kind>(kind: K, oid: number): Row<K> | undefined;
  /** Memoized verdicts of objects (judge-pg.ts), dropped with the cache. */
  memo: Map<string, unknown>;
  /** Drops everything read (a write may have created or replaced an object). */
  forget(): void;
}

type Row<K extends Kind> = K extends 'functions' ? PgFunction : K extends 'operators' ? PgOperator : K extends 'types' ? PgType : PgRelation;

function parseRow(kind: Kind, r: Record<string, unknown>): unknown {
  const base = { oid: Number(r.oid), schema: String(r.schema), name: String(r.name), extension: (r.extension as string | null) ?? null };
  switch (kind) {
    case 'functions':
      return {
        ...base,
        nargs: Number(r.nargs),
        ndefaults: Number(r.ndefaults),
        variadic: !!r.variadic,
        volatility: r.volatility as PgFunction['volatility'],
        definer: !!r.definer,
        kind: String(r.kind),
        language: String(r.language),
        trusted: !!r.trusted,
        definition: (r.definition as string | null) ?? null,
        calls: ints(r.calls),
      } satisfies PgFunction;
    case 'operators':
      return { ...base, kind: String(r.kind), functions: ints(r.functions) } satisfies PgOperator;
    case 'types':
      return { ...base, io: ints(r.io), parts: ints(r.parts), functions: ints(r.functions) } satisfies PgType;
    case 'relations': {
      const uses: PgRelation['uses'] = { functions: [], operators: [], types: [], relations: [] };
      const into: Record<string, number[]> = { pg_proc: uses.functions, pg_operator: uses.operators, pg_type: uses.types, pg_class: uses.relations };
      for (const entry of (r.uses as string[] | null) ?? []) {
        const [catalog, oid] = entry.split(':');
        into[catalog]?.push(Number(oid));
      }
      return { ...base, kind: String(r.kind), uses } satisfies PgRelation;
    }
  }
}

/** The catalog of one connection, read through its read-only path. */
export function createPgCatalog(driver: DbDriver): PgCatalog {
  let state = fresh();
  function fresh() {
    return {
      readAt: Date.now(),
      head: undefined as Promise<{ path: string[]; version: number; casts: number[] }> | undefined,
      names: new Map<string, Promise<void> | true>(),
      rows: Object.fromEntries(KINDS.map((k) => [k, new Map<number, unknown>()])) as Record<Kind, Map<number, unknown>>,
      byName: Object.fromEntries(KINDS.map((k) => [k, new Map<string, unknown[]>()])) as Record<Kind, Map<string, unknown[]>>,
      memo: new Map<string, unknown>(),
    };
  }
  const current = () => {
    if (Date.now() - state.readAt > LIMITS.dbCatalogCacheMs) state = fresh();
    return state;
  };
  const head = () =>
    (current().head ??= driver
      .select(
        `SELECT current_schemas(true) AS path, current_setting('server_version_num')::int AS version,
           ARRAY(SELECT c.castfunc::int8 FROM pg_cast c WHERE c.castcontext = 'i' AND c.castfunc <> 0 AND (c.oid >= ${FIRST_USER_OID} OR c.castfunc >= ${FIRST_USER_OID})) AS casts`,
        [],
        { timeoutMs: LIMITS.dbCatalogTimeoutMs },
      )
      .then(([r]) => ({ path: Array.isArray(r.path) ? r.path.map(String) : String(r.path).replace(/^\{|\}$/g, '').split(','), version: Number(r.version), casts: ints(r.casts) })));

  return {
    searchPath: async () => (await head()).path,
    implicitCasts: async () => (await head()).casts,
    get memo() {
      return current().memo;
    },
    async load(ask) {
      const s = current();
      const names = Object.fromEntries(KINDS.map((k) => [k, [...new Set(ask.names[k] ?? [])].filter((n) => !s.names.has(`${k}:${n}`))])) as Record<Kind, string[]>;
      const oids = Object.fromEntries(KINDS.map((k) => [k, [...new Set(ask.oids[k] ?? [])].filter((o) => !s.rows[k].has(o))])) as Record<Kind, number[]>;
      const waits = KINDS.flatMap((k) => (ask.names[k] ?? []).map((n) => s.names.get(`${k}:${n}`)).filter((p): p is Promise<void> => p instanceof Promise));
      if (KINDS.some((k) => names[k].length || oids[k].length)) {
        const read = (async () => {
          const { version } = await head();
          // Every part is asked, empty lists too (an index lookup of nothing): the parameters stay numbered.
          const parts = [FUNCTIONS, OPERATORS, TYPES(version), RELATIONS].map((q) => `(SELECT coalesce(json_agg(x), '[]') FROM (${q}) x)`);
          const params = KINDS.flatMap((k) => [names[k], oids[k]]);
          const [row] = await driver.select(`SELECT ${parts.map((p, k) => `${p} AS ${KINDS[k]}`).join(', ')}`, params, { timeoutMs: LIMITS.dbCatalogTimeoutMs });
          for (const k of KINDS) {
            const list = (typeof row[k] === 'string' ? JSON.parse(row[k] as string) : row[k]) as Array<Record<string, unknown>>;
            for (const r of list) s.rows[k].set(Number(r.oid), parseRow(k, r));
            for (const n of names[k]) s.byName[k].set(n, []);
            for (const r of list) if (names[k].includes(String(r.name))) s.byName[k].get(String(r.name))!.push(s.rows[k].get(Number(r.oid)));
          }
        })();
        for (const k of KINDS) for (const n of names[k]) s.names.set(`${k}:${n}`, read);
        try {
          await read;
          for (const k of KINDS) for (const n of names[k]) s.names.set(`${k}:${n}`, true);
        } catch (err) {
          for (const k of KINDS) for (const n of names[k]) s.names.delete(`${k}:${n}`);
          throw err;
        }
      }
      await Promise.all(waits);
    },
    forget: () => void (state = fresh()),
    byName: (kind, name) => (current().byName[kind].get(name) ?? []) as never,
    byOid: (kind, oid) => current().rows[kind].get(oid) as never,
  };
}
