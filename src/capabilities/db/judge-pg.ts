/**
 * A PostgreSQL read may call only what is known to be harmless, judged by the server's own catalog
 * (pg-catalog.ts), never by a list of bad names. Every function, operator, type and relation the
 * statement names (pg-refs.ts) is looked up the way the server resolves it: in the schema written,
 * or along the search path of the engine's read-only sessions, among every overload the call could
 * mean (same name, an argument count it accepts). A name passes only when every candidate does:
 *
 *   - a built-in function (made by initdb) that is IMMUTABLE or STABLE, or VOLATILE and on the short
 *     list below of what reads need (random(), clock_timestamp(), pg_sleep() ...);
 *   - a function of a vetted extension, by the same rule;
 *   - any other function only when it is IMMUTABLE or STABLE, not SECURITY DEFINER, in a trusted
 *     language, and its body is judged harmless here: LANGUAGE sql and plpgsql bodies are parsed
 *     (libpg-query's own PL/pgSQL parser) and every query in them judged by these same rules;
 *     a PL/pgSQL statement off the list of those that run only SQL the body holds (EXECUTE,
 *     CALL, COMMIT) refuses it; other languages' bodies cannot be judged. An aggregate's support
 *     functions and a function's parameter defaults are judged too. One refused for what it
 *     declares (VOLATILE, SECURITY DEFINER) is still judged by its body: reaching outside makes it
 *     forbidden, never a write a model could be allowed;
 *   - the functions that run SQL text (ts_stat, ts_rewrite with a query, query_to_xml and kin) pass
 *     only when that text is a string constant that is itself a harmless read, judged in its turn;
 *     anything else is forbidden (a write hidden in a string is never prompted for). The ones that
 *     run SQL they build (cursor_to_xml, table_, schema_ and database_to_xml) never pass, and a
 *     type named in text (pg_input_is_valid) is judged as that type;
 *   - an operator by its functions (pg_operator.oprcode, oprrest, oprjoin); a type by its I/O
 *     functions, its domain checks, its parts, and every cast into it that is not built in; a view
 *     and a row-level policy by everything they use (pg_depend), a table with its inheritance
 *     children; a foreign table never (its wrapper reaches outside the database);
 *   - an implicit cast that is not built in applies where types differ, unnamed: one that does not
 *     pass makes every read refused while it exists.
 *
 * What does not pass makes the statement a write (a person may run it on a writable connection, a
 * model after a yes), or forbidden when it reaches outside the database. Verdicts of objects are
 * kept with the catalog cache.
 */
import { LIMITS } from '../../kernel/limits.js';
import type { StatementClass } from './classify.js';
import { judgeStructure, nameTier } from './classify-pg.js';
import { FIRST_USER_OID, type PgCatalog, type PgFunction } from './pg-catalog.js';
import { parsePg, parsePlPgSql, walk, type PgNode } from './pg-parser.js';
import { collectRefs, constantText, type PgFunctionRef, type PgName, type PgRefs } from './pg-refs.js';

export type Verdict = { class: Exclude<StatementClass, 'read'>; reason: string } | undefined;

/** VOLATILE functions that reads need and that change nothing; pg_sleep is bounded by the connection's statement_timeout. */
const VOLATILE_READS = new Set([
  'random', 'random_normal', 'clock_timestamp', 'timeofday', 'gen_random_uuid', 'uuidv4', 'uuidv7', 'currval', 'lastval',
  'pg_sleep', 'pg_sleep_for', 'pg_sleep_until',
  'pg_relation_size', 'pg_table_size', 'pg_indexes_size', 'pg_total_relation_size', 'pg_database_size', 'pg_is_in_recovery',
  // Of the vetted extensions below.
  'uuid_generate_v1', 'uuid_generate_v1mc', 'uuid_generate_v4', 'gen_random_bytes', 'gen_salt',
]);

/** Extensions whose functions are judged like built-ins (by volatility): pure computations on their own types. */
const VETTED_EXTENSIONS = new Set([
  'pg_trgm', 'fuzzystrmatch', 'unaccent', 'citext', 'hstore', 'ltree', 'cube', 'earthdistance', 'intarray', 'isn', 'seg',
  'btree_gin', 'btree_gist', 'pgcrypto', 'uuid-ossp', 'tsm_system_rows', 'tsm_system_time', 'vector',
]);

/** Built-in functions that run SQL text: the argument (by argument count) that holds it. */
const SQL_TEXT: Record<string, Record<number, number>> = {
  ts_stat: { 1: 0, 2: 0 },
  ts_rewrite: { 2: 1 }, // ts_rewrite(query tsquery, select text); the three-argument form takes no SQL
  query_to_xml: { 4: 0 },
  query_to_xmlschema: { 4: 0 },
  query_to_xml_and_xmlschema: { 4: 0 },
};
/** Built-in functions that call a type's input (and a domain's checks) for a type named in text (PostgreSQL 16): the argument that names it. */
const TYPE_TEXT: Record<string, Record<number, number>> = { pg_input_is_valid: { 2: 1 }, pg_input_error_info: { 2: 1 } };
/** Built-in functions that run SQL they build from a cursor or a relation's name: never in a read. */
const SQL_BUILT = /^(cursor|table|schema|database)_to_xml(schema|_and_xmlschema)?$/;

const write = (reason: string): Verdict => ({ class: 'write', reason });
const forbidden = (reason: string): Verdict => ({ class: 'forbidden', reason });
const worse = (a: Verdict, b: Verdict): Verdict => (!a ? b : !b ? a : a.class === 'forbidden' || b.class !== 'forbidden' ? a : b);
const within = (what: string, v: Verdict): Verdict => v && { class: v.class, reason: `${what}: ${v.reason}` };

interface Context {
  catalog: PgCatalog;
  /** The catalog's memo when the statement's judgement began: dropped since (a write, the cache's age), verdicts are no longer kept. */
  memo: Map<string, unknown>;
  path: string[];
  depth: number;
  /** Objects being judged: met again (recursion), they are assumed harmless and nothing above them is kept. */
  open: Set<string>;
  assumed: number;
}

/** The verdict on one statement of a connection (undefined: everything it calls is known harmless). */
export async function judgePgStatement(kind: string, node: PgNode, catalog: PgCatalog): Promise<Verdict> {
  const ctx: Context = { catalog, memo: catalog.memo, path: await catalog.searchPath(), depth: 0, open: new Set(), assumed: 0 };
  // An implicit cast is applied wherever types differ, without a name in the statement: one that is not harmless taints every read.
  const casts = within('an implicit cast of this database', await all('functions', await catalog.implicitCasts(), ctx));
  return worse(casts, await judgeTree(kind, node, ctx));
}

async function judgeTree(kind: string, node: PgNode, ctx: Context): Promise<Verdict> {
  const refs = collectRefs(kind, node);
  await ctx.catalog.load({ names: namesOf(refs), oids: {} });
  const visible = (row: { schema: string }, ref: PgName) => (ref.schema ? row.schema === ref.schema : ctx.path.includes(row.schema));
  // A name's verdict is kept with the catalog (a page query then costs a few map lookups), except a
  // call whose arguments matter: one that may run SQL text or name a type in text.
  const judged: Array<[string, () => Promise<Verdict>]> = [
    ...refs.functions.map((ref): [string, () => Promise<Verdict>] => [
      SQL_TEXT[ref.name] || TYPE_TEXT[ref.name] ? '' : `call:${ref.schema ?? ''}.${ref.name}/${ref.nargs}/${ref.variadic}/${ref.named}/${ref.attribute ?? false}/${ref.sampler ?? false}`,
      () => judgeCall(ref, ctx, visible),
    ]),
    ...refs.operators.map((ref): [string, () => Promise<Verdict>] => [
      `operator:${ref.schema ?? ''}.${ref.name}/${ref.prefix}`,
      () => all('operators', ctx.catalog.byName('operators', ref.name).filter((o) => visible(o, ref) && o.kind === (ref.prefix ? 'l' : 'b')).map((o) => o.oid), ctx),
    ]),
    ...refs.types.map((ref): [string, () => Promise<Verdict>] => [
      `type:${ref.schema ?? ''}.${ref.name}`,
      () => all('types', ctx.catalog.byName('types', ref.name).filter((t) => visible(t, ref)).map((t) => t.oid), ctx),
    ]),
    ...refs.relations.map((ref): [string, () => Promise<Verdict>] => [
      `relation:${ref.schema ?? ''}.${ref.name}`,
      () => all('relations', ctx.catalog.byName('relations', ref.name).filter((r) => visible(r, ref)).map((r) => r.oid), ctx),
    ]),
  ];
  let verdict: Verdict;
  const seen = new Set<string>();
  for (const [key, judge] of judged) {
    if (key && seen.has(key)) continue;
    seen.add(key);
    verdict = worse(verdict, key ? await remembered(key, judge, ctx) : await judge());
  }
  return verdict;
}

/**
 * A verdict kept with the catalog under `key`, unless it leaned on an assumption about an object
 * still being judged, or the catalog was dropped while it was judged: then it may rest on rows read
 * before the drop and looked up after it (a name not found in the fresh cache), and keeping it would
 * let the stale reading outlive the write that dropped the catalog.
 */
async function remembered(key: string, judge: () => Promise<Verdict>, ctx: Context): Promise<Verdict> {
  const memo = ctx.catalog.memo;
  if (memo.has(key)) return memo.get(key) as Verdict;
  const assumedBefore = ctx.assumed;
  const verdict = await judge();
  if (ctx.assumed === assumedBefore && ctx.catalog.memo === ctx.memo) memo.set(key, verdict);
  return verdict;
}

const namesOf = (refs: PgRefs) => ({
  functions: refs.functions.map((f) => f.name),
  operators: refs.operators.map((o) => o.name),
  types: refs.types.map((t) => t.name),
  relations: refs.relations.map((r) => r.name),
});

/** Whether a call with this many arguments could mean `f` (its defaults and VARIADIC counted). */
function accepts(f: PgFunction, ref: PgFunctionRef): boolean {
  const n = ref.nargs;
  if (ref.variadic) return f.variadic;
  return n === f.nargs || (n < f.nargs && n >= f.nargs - f.ndefaults) || (f.variadic && n >= f.nargs - 1);
}

async function judgeCall(ref: PgFunctionRef, ctx: Context, visible: (row: { schema: string }, ref: PgName) => boolean): Promise<Verdict> {
  const candidates = ctx.catalog.byName('functions', ref.name).filter((f) => visible(f, ref) && accepts(f, ref));
  // `t.f` is a column unless such a function exists; a sampling method the server does not know fails there.
  if (!candidates.length) return ref.attribute || ref.sampler ? undefined : write(`${ref.name}() with ${ref.nargs} argument(s) is not a function of this database the engine can judge`);
  let verdict: Verdict;
  for (const f of candidates) {
    const query = f.oid < FIRST_USER_OID ? SQL_TEXT[f.name]?.[f.nargs] : undefined;
    if (query !== undefined && !ref.attribute) {
      // SQL text runs only when it is a constant that is a harmless read: a write hidden in a string is never prompted for.
      const text = ref.named ? undefined : constantText(ref.args[query]);
      const inner = text === undefined ? { reason: `${f.name}() runs SQL text, and only a string constant can be judged before it runs` } : within(`the query ${f.name}() runs`, await judgeText(text, ctx));
      if (inner) verdict = forbidden(inner.reason);
      continue;
    }
    const typeName = f.oid < FIRST_USER_OID ? TYPE_TEXT[f.name]?.[f.nargs] : undefined;
    if (typeName !== undefined && !ref.attribute) {
      const text = ref.named ? undefined : constantText(ref.args[typeName]);
      const inner = text === undefined ? write(`${f.name}() names its type in text, and only a string constant can be judged`) : within(`the type ${f.name}() reads`, await judgeText(`SELECT NULL::${text}`, ctx));
      verdict = worse(verdict, inner);
      continue;
    }
    if (ref.sampler && f.oid < FIRST_USER_OID) continue; // SYSTEM, BERNOULLI
    verdict = worse(verdict, await judgeObject('functions', f.oid, ctx));
  }
  return verdict;
}

/** SQL text a function runs or a body holds: it must parse, each statement a read, and everything it calls harmless. */
async function judgeText(text: string, ctx: Context): Promise<Verdict> {
  if (ctx.depth >= LIMITS.dbJudgeDepth) return write(`SQL nested more than ${LIMITS.dbJudgeDepth} levels deep cannot be judged`);
  const parsed = parsePg(text);
  if (!parsed.ok) return forbidden(`PostgreSQL's parser cannot read it: ${parsed.error}`);
  let verdict: Verdict;
  ctx.depth++;
  try {
    for (const s of parsed.statements) {
      const structure = judgeStructure(s.kind, s.node);
      if (structure.class !== 'read') verdict = worse(verdict, { class: structure.class, reason: structure.reason ?? 'not a read' });
      verdict = worse(verdict, await judgeTree(s.kind, s.node, ctx));
    }
  } finally {
    ctx.depth--;
  }
  return verdict;
}

type Kind = 'functions' | 'operators' | 'types' | 'relations';

/** One object's verdict, kept with the catalog. */
async function judgeObject(kind: Kind, oid: number, ctx: Context): Promise<Verdict> {
  const key = `${kind}:${oid}`;
  if (ctx.catalog.memo.has(key)) return ctx.catalog.memo.get(key) as Verdict;
  if (ctx.open.has(key)) {
    ctx.assumed++; // met again while being judged (recursion): assumed harmless here, judged where it started
    return undefined;
  }
  await ctx.catalog.load({ names: {}, oids: { [kind]: [oid] } });
  ctx.open.add(key);
  try {
    return await remembered(key, () => JUDGES[kind](oid, ctx), ctx);
  } finally {
    ctx.open.delete(key);
  }
}

async function all(kind: Kind, oids: number[], ctx: Context): Promise<Verdict> {
  if (!oids.length) return undefined;
  await ctx.catalog.load({ names: {}, oids: { [kind]: oids } });
  let verdict: Verdict;
  for (const oid of oids) verdict = worse(verdict, await judgeObject(kind, oid, ctx));
  return verdict;
}

const JUDGES: Record<Kind, (oid: number, ctx: Context) => Promise<Verdict>> = {
  async functions(oid, ctx) {
    const f = ctx.catalog.byOid('functions', oid);
    if (!f) return write(`function ${oid} is not in the catalog`);
    const tier = nameTier(f.name);
    if (tier) return tier;
    const name = `${f.name}()`;
    const builtIn = f.oid < FIRST_USER_OID;
    if (builtIn || (f.extension && VETTED_EXTENSIONS.has(f.extension))) {
      if (builtIn && (SQL_TEXT[f.name] || SQL_BUILT.test(f.name))) return write(`${name} runs SQL the engine does not see`);
      return f.volatility === 'v' && !VOLATILE_READS.has(f.name) ? write(`${name} is VOLATILE, so not known to be free of effects`) : undefined;
    }
    if (f.extension) return write(`${name} belongs to the extension ${f.extension}, which the engine has not vetted for reads`);
    // What it declares refuses it from a read; its body is judged all the same, since a body that
    // reaches outside makes it forbidden (never run for a model, even after a yes to a write).
    const declared = f.definer
      ? write(`${name} is SECURITY DEFINER: it runs with its owner's rights`)
      : f.volatility === 'v'
        ? write(`${name} is VOLATILE, so not known to be free of effects`)
        : f.kind === 'p'
          ? write(`${name} is a procedure`)
          : undefined;
    return worse(declared, worse(within(name, await all('functions', f.calls, ctx)), await judgeBody(f, ctx)));
  },
  async operators(oid, ctx) {
    const op = ctx.catalog.byOid('operators', oid);
    if (!op || op.oid < FIRST_USER_OID || (op.extension && VETTED_EXTENSIONS.has(op.extension))) return undefined;
    if (op.extension) return write(`the operator ${op.name} belongs to the extension ${op.extension}, which the engine has not vetted for reads`);
    return within(`the operator ${op.name}`, await all('functions', op.functions, ctx));
  },
  async types(oid, ctx) {
    const t = ctx.catalog.byOid('types', oid);
    if (!t) return undefined;
    const name = `the type ${t.schema}.${t.name}`;
    const casts = within(name, await all('functions', t.functions, ctx));
    if (t.oid < FIRST_USER_OID || (t.extension && VETTED_EXTENSIONS.has(t.extension))) return casts;
    if (t.extension) return write(`${name} belongs to the extension ${t.extension}, which the engine has not vetted for reads`);
    return worse(casts, worse(within(name, await all('functions', t.io, ctx)), within(name, await all('types', t.parts, ctx))));
  },
  async relations(oid, ctx) {
    const r = ctx.catalog.byOid('relations', oid);
    if (!r || r.oid < FIRST_USER_OID) return undefined;
    const name = `${r.schema}.${r.name}`;
    if (r.kind === 'f') return forbidden(`${name} is a foreign table, whose wrapper reaches outside the database`);
    let verdict: Verdict;
    for (const kind of ['functions', 'operators', 'types', 'relations'] as const) verdict = worse(verdict, await all(kind, r.uses[kind], ctx));
    return within(`${name} (${r.kind === 'v' ? 'its view query' : 'its row-level policies'})`, verdict);
  },
};

/** What a function's body does: an aggregate is its support functions (judged as calls); sql and plpgsql bodies are read; others cannot be. */
async function judgeBody(f: PgFunction, ctx: Context): Promise<Verdict> {
  const name = `${f.name}()`;
  if (f.kind === 'a') return undefined;
  if (!f.trusted) return forbidden(`${name} is written in ${f.language}, an untrusted language that can reach outside the database`);
  if (f.language === 'sql') return within(name, await judgeSqlBody(f, ctx));
  if (f.language === 'plpgsql') return within(name, await judgePlPgSqlBody(f, ctx));
  return write(`${name} is written in ${f.language}, whose body the engine cannot judge`);
}

/** A LANGUAGE sql body: the text after AS, or the statements of BEGIN ATOMIC. */
async function judgeSqlBody(f: PgFunction, ctx: Context): Promise<Verdict> {
  const parsed = f.definition ? parsePg(f.definition) : undefined;
  const create = parsed?.ok ? parsed.statements[0]?.node : undefined;
  if (!create) return write('its definition cannot be read');
  const as = (create.options as Array<{ DefElem?: { defname?: string; arg?: { List?: { items?: Array<{ String?: { sval?: string } }> } } } }> | undefined)?.find(
    (o) => o.DefElem?.defname === 'as',
  );
  const text = as?.DefElem?.arg?.List?.items?.[0]?.String?.sval;
  if (text !== undefined) return judgeText(text, ctx);
  // BEGIN ATOMIC holds a list of statements; RETURN <expr> one ReturnStmt (judged as the expression it returns).
  const body = create.sql_body as { List?: { items?: Array<{ List?: { items?: PgNode[] } }> } } | PgNode | undefined;
  const items: PgNode[] = (body as { List?: { items?: Array<{ List?: { items?: PgNode[] } }> } })?.List?.items?.flatMap((l) => l.List?.items ?? []) ?? (body ? [body as PgNode] : []);
  let verdict: Verdict;
  for (const item of items) {
    const [kind, node] = Object.entries(item)[0] as [string, PgNode];
    const structure = kind === 'ReturnStmt' ? { class: 'read' as const } : judgeStructure(kind, node);
    if (structure.class !== 'read') verdict = worse(verdict, { class: structure.class, reason: structure.reason ?? 'not a read' });
    verdict = worse(verdict, await judgeTree(kind, node, ctx));
  }
  return verdict;
}

/**
 * PL/pgSQL statements a body may hold (libpg-query's names): each runs only SQL the body holds, judged
 * below. Any other (EXECUTE, FOR ... EXECUTE, CALL, COMMIT, ROLLBACK, one a later grammar adds) refuses
 * the body; OPEN and RETURN QUERY only without EXECUTE.
 */
const STATIC_STATEMENTS = new Set(
  'block assign if case loop while fori fors forc foreach_a exit return return_next return_query raise assert execsql getdiag open fetch close perform'.split(' ').map((k) => `PLpgSQL_stmt_${k}`),
);

/**
 * A PL/pgSQL body, read by PostgreSQL's own PL/pgSQL grammar (libpg-query): no dynamic SQL, and
 * every query and expression in it judged as SQL. Expressions are read as `SELECT <expr>`, an
 * assignment `target := expr` as `SELECT target, expr` (its subscripts are expressions too).
 */
async function judgePlPgSqlBody(f: PgFunction, ctx: Context): Promise<Verdict> {
  const tree = f.definition ? parsePlPgSql(f.definition) : undefined;
  if (!tree?.ok) return write(`its body cannot be read${tree && !tree.ok ? ` (${tree.error})` : ''}`);
  const queries: string[] = [];
  let dynamic: string | undefined;
  walk(tree.functions, (kind, node) => {
    const statement = kind.startsWith('PLpgSQL_stmt_');
    if ((statement && !STATIC_STATEMENTS.has(kind)) || ((kind === 'PLpgSQL_stmt_open' || kind === 'PLpgSQL_stmt_return_query') && node.dynquery)) dynamic ??= kind.replace('PLpgSQL_stmt_', '').toUpperCase();
    if (kind === 'PLpgSQL_expr') queries.push(asSelect(String(node.query ?? ''), Number(node.parseMode ?? 0)) ?? '');
  });
  if (dynamic) return write(`its body runs dynamic SQL or ends the transaction (${dynamic})`);
  let verdict: Verdict;
  for (const q of queries) verdict = worse(verdict, q ? await judgeText(q, ctx) : write('an assignment in its body cannot be read'));
  return verdict;
}

/** A PL/pgSQL expression as a statement PostgreSQL's parser reads (its RawParseMode: 0 statement, 1 type, 2 expression, 3-5 assignment). */
function asSelect(query: string, mode: number): string | undefined {
  if (mode === 0) return query;
  if (mode === 1) return `SELECT NULL::${query}`;
  if (mode === 2) return `SELECT ${query}`;
  // target := expr (or target = expr): the target has no operator, so its first top-level := or = splits it.
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < query.length; i++) {
    const c = query[i];
    if (c === '"') quoted = !quoted;
    if (quoted) continue;
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0 && (c === ':' || c === '=')) {
      const op = query.startsWith(':=', i) ? 2 : c === '=' ? 1 : 0;
      if (op) return `SELECT ${query.slice(0, i)}, ${query.slice(i + op)}`;
    }
  }
  return undefined;
}
