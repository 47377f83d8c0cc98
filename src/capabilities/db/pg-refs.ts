/**
 * What a PostgreSQL statement names that the server will run code for, read from its parse tree:
 * the functions it calls (with their argument count, and their arguments for those that take SQL
 * text), the operators it applies (each one a function, pg_operator.oprcode), the types it casts
 * to or declares (their input functions, domain checks and casts), and the relations it reads (a
 * view runs its own query, a row-level policy its expressions, a foreign table reaches outside).
 * Syntax that applies an operator without naming one is counted too: IN, BETWEEN, a simple CASE,
 * JOIN ... USING, IN (subquery), `t.f` (which calls f(t) when t has no column f).
 * judge-pg.ts looks each of them up in the server's own catalog.
 */
import type { PgNode } from './pg-parser.js';

/** A name as the server resolves it: in `schema` when given, else along the search path. */
export interface PgName {
  schema?: string;
  name: string;
}

export interface PgFunctionRef extends PgName {
  /** Arguments written at the call (count(*) has none). */
  nargs: number;
  /** The call spells VARIADIC, or names an argument (`f(a => 1)`). */
  variadic: boolean;
  named: boolean;
  /** The argument nodes, for functions that run SQL text. */
  args: unknown[];
  /** `t.f` or `(row).f`: a call only when no column of that name exists. */
  attribute?: boolean;
  /** A TABLESAMPLE method (its handler function). */
  sampler?: boolean;
}

export interface PgOperatorRef extends PgName {
  /** Written with one operand, before it (`- x`, `@ x`). */
  prefix: boolean;
}

export interface PgRefs {
  functions: PgFunctionRef[];
  operators: PgOperatorRef[];
  types: PgName[];
  relations: PgName[];
}

type StringNode = { String?: { sval?: string } };
const strings = (list: unknown): string[] => (Array.isArray(list) ? (list as StringNode[]).map((x) => x.String?.sval ?? '') : []);

/** `[schema, name]` or `[name]` as a PgName; a longer list keeps its last two parts (the server refuses other databases). */
function nameOf(parts: string[]): PgName {
  const name = parts[parts.length - 1] ?? '';
  return parts.length > 1 ? { schema: parts[parts.length - 2], name } : { name };
}

/** Operators that syntax applies by name without spelling one. */
const BETWEEN_OPERATORS = ['>=', '<=', '<', '>'];

export function collectRefs(kind: string, node: PgNode): PgRefs {
  const refs: PgRefs = { functions: [], operators: [], types: [], relations: [] };
  const op = (name: string, prefix = false) => refs.operators.push({ name, prefix });
  // One pass over the tree: wrapped nodes by their kind, and (a field typed as one node kind holds
  // it unwrapped: TypeCast.typeName, InsertStmt.relation) type names and relations by their shape.
  walkAll({ [kind]: node }, (f) => {
    if (Array.isArray(f.names) && 'typemod' in f) refs.types.push(nameOf(strings(f.names)));
    else if (typeof f.relname === 'string') refs.relations.push(f.schemaname ? { schema: String(f.schemaname), name: f.relname } : { name: f.relname });
  }, (k, f) => {
    switch (k) {
      case 'FuncCall': {
        const args = Array.isArray(f.args) ? f.args : [];
        refs.functions.push({
          ...nameOf(strings(f.funcname)),
          nargs: args.length,
          variadic: !!f.func_variadic,
          named: args.some((a) => !!(a as PgNode).NamedArgExpr),
          args,
        });
        break;
      }
      case 'A_Expr': {
        const kindOf = String(f.kind);
        if (kindOf.startsWith('AEXPR_BETWEEN') || kindOf.startsWith('AEXPR_NOT_BETWEEN')) BETWEEN_OPERATORS.forEach((o) => op(o));
        else refs.operators.push({ ...nameOf(strings(f.name)), prefix: !f.lexpr });
        break;
      }
      case 'SubLink': {
        const names = strings(f.operName);
        if (names.length) refs.operators.push({ ...nameOf(names), prefix: false });
        else if (f.subLinkType === 'ANY_SUBLINK') op('='); // x IN (SELECT ...)
        break;
      }
      case 'CaseExpr':
        if (f.arg) op('='); // CASE x WHEN 1 ...
        break;
      case 'JoinExpr':
        if (f.isNatural || f.usingClause) op('=');
        break;
      case 'CommonTableExpr':
        if (f.cycle_clause) ['=', '<>'].forEach((o) => op(o));
        break;
      case 'SortBy': {
        const names = strings(f.useOp);
        if (names.length) refs.operators.push({ ...nameOf(names), prefix: false });
        break;
      }
      case 'RangeTableSample':
        refs.functions.push({ ...nameOf(strings(f.method)), nargs: 1, variadic: false, named: false, args: [], sampler: true });
        break;
      case 'ColumnRef': {
        // t.f calls f(t) when t has no column f (attribute notation); a single name never does.
        const fields = Array.isArray(f.fields) ? (f.fields as StringNode[]) : [];
        const last = fields[fields.length - 1]?.String?.sval;
        if (fields.length > 1 && last) refs.functions.push({ name: last, nargs: 1, variadic: false, named: false, args: [], attribute: true });
        break;
      }
      case 'A_Indirection':
        for (const name of strings(f.indirection).filter(Boolean)) refs.functions.push({ name, nargs: 1, variadic: false, named: false, args: [], attribute: true });
        break;
    }
  });
  return refs;
}

/** Every object of the tree (`shape`), and every wrapped node `{ Kind: fields }` with its kind (`node`). */
function walkAll(tree: unknown, shape: (fields: PgNode) => void, node: (kind: string, fields: PgNode) => void): void {
  if (Array.isArray(tree)) return tree.forEach((x) => walkAll(x, shape, node));
  if (!tree || typeof tree !== 'object') return;
  shape(tree as PgNode);
  for (const [key, value] of Object.entries(tree)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && /^[A-Z]/.test(key)) node(key, value as PgNode);
    walkAll(value, shape, node);
  }
}

/** The text of a string constant argument (`'...'`, `$$...$$`, `E'...'`, or one cast to text), else undefined. */
export function constantText(arg: unknown): string | undefined {
  const node = arg as PgNode;
  const value = (node?.A_Const as { sval?: { sval?: string } } | undefined)?.sval;
  if (value) return value.sval ?? '';
  const cast = node?.TypeCast as { arg?: unknown; typeName?: { names?: unknown } } | undefined;
  if (cast && ['text', 'varchar'].includes(strings(cast.typeName?.names).pop() ?? '')) return constantText(cast.arg);
  return undefined;
}
