/**
 * PostgreSQL's own parser (libpg-query: the server's scan.l and gram.y compiled to WebAssembly),
 * loaded on the first PostgreSQL classification, not at start: ~10 MB and ~25 ms that an engine
 * without a PostgreSQL connection never pays. The text a read-only connection runs is exactly the
 * text this parser cut into statements, so the engine and the server read the same statements.
 */
import { lazyRequire } from '../../kernel/lazy-require.js';

type LibPgQuery = {
  loadModule(): Promise<void>;
  parseSync(sql: string): { stmts?: Array<{ stmt: PgNode; stmt_location?: number; stmt_len?: number }> };
  parsePlPgSQLSync(sql: string): { plpgsql_funcs?: PgNode[] };
};

/** A parse-tree node as libpg-query gives it: `{ SelectStmt: {...} }`, arrays, scalars. */
export type PgNode = Record<string, unknown>;

export interface PgStatement {
  /** The statement's node type (SelectStmt, CopyStmt, ...). */
  kind: string;
  /** The node's fields. */
  node: PgNode;
  /** The statement's own text, cut where the parser says it begins and ends. */
  text: string;
}

export type PgParse = { ok: true; statements: PgStatement[] } | { ok: false; error: string };

const Lib = lazyRequire<LibPgQuery>('libpg-query');
let ready: Promise<void> | undefined;
let loaded = false;

/** Loads the parser once; every later call answers at once. */
export function loadPgParser(): Promise<void> {
  ready ??= Lib()
    .loadModule()
    .then(() => void (loaded = true));
  return ready;
}

export function parsePg(sql: string): PgParse {
  if (!loaded) throw new Error('the PostgreSQL parser is not loaded yet (await loadPgParser() first)');
  let tree: ReturnType<LibPgQuery['parseSync']>;
  try {
    tree = Lib().parseSync(sql);
  } catch (err) {
    const e = err as Error & { sqlDetails?: { cursorPosition?: number } };
    const at = e.sqlDetails?.cursorPosition;
    return { ok: false, error: `${e.message}${typeof at === 'number' ? ` (at character ${at + 1})` : ''}` };
  }
  const statements = (tree.stmts ?? []).map((s) => {
    const start = s.stmt_location ?? 0;
    // stmt_len 0 (or absent) means "to the end of the text".
    const end = s.stmt_len ? start + s.stmt_len : sql.length;
    const [kind, node] = Object.entries(s.stmt)[0] as [string, PgNode];
    return { kind, node, text: trimSpace(sql.slice(start, end)) };
  });
  return { ok: true, statements };
}

/** Every node of the tree, depth first, with its type name. */
export function walk(node: unknown, visit: (kind: string, fields: PgNode) => void): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as PgNode)) {
    // A node is `{ TypeName: { fields } }`: the key starts with a capital letter.
    if (value && typeof value === 'object' && !Array.isArray(value) && /^[A-Z]/.test(key)) visit(key, value as PgNode);
    walk(value, visit);
  }
}

/** A CREATE FUNCTION ... LANGUAGE plpgsql text read by PostgreSQL's own PL/pgSQL grammar: its functions' trees, or why not. */
export function parsePlPgSql(definition: string): { ok: true; functions: PgNode[] } | { ok: false; error: string } {
  if (!loaded) throw new Error('the PostgreSQL parser is not loaded yet (await loadPgParser() first)');
  try {
    return { ok: true, functions: Lib().parsePlPgSQLSync(definition).plpgsql_funcs ?? [] };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** Trims only what PostgreSQL calls space (JavaScript's trim() would also take U+00A0, a letter to PostgreSQL). */
const trimSpace = (s: string) => s.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');

/** The tree without source positions, to compare two parses of the same statement. */
function shape(node: unknown): string {
  return JSON.stringify(node, (k, v) => (k === 'location' || k === 'stmt_location' || k === 'stmt_len' ? undefined : v));
}

/**
 * `prefix + select + suffix` (COPY (...) TO STDOUT, DECLARE ... CURSOR FOR ...), checked by parsing
 * the result: exactly one statement of the wrapper's kind, with the wrapper's own options, around
 * exactly the statement `select` parses to. Text pasted into a wrapper can otherwise end it early
 * (a comment that swallows the closing parenthesis, and what follows it becomes the wrapper's
 * target: COPY ... TO PROGRAM). Throws a sentence when the check fails.
 */
export function wrapVerified(prefix: string, select: string, suffix: string): string {
  const inner = parsePg(select);
  if (!inner.ok || inner.statements.length !== 1 || inner.statements[0].kind !== 'SelectStmt') {
    throw new Error('an export runs exactly one SELECT (or VALUES, TABLE)');
  }
  const text = `${prefix}${inner.statements[0].text}\n${suffix}`;
  const outer = parsePg(text);
  const reference = parsePg(`${prefix}SELECT 1\n${suffix}`);
  const wrapper = (p: PgParse) => (p.ok && p.statements.length === 1 ? p.statements[0] : undefined);
  const got = wrapper(outer);
  const want = wrapper(reference);
  const without = (s: PgStatement) => shape({ ...s.node, query: undefined });
  const ok = got && want && got.kind === want.kind && without(got) === without(want) && shape(got.node.query) === shape({ SelectStmt: inner.statements[0].node });
  if (!ok) throw new Error('the query does not stay one SELECT inside the export wrapper; remove trailing comments or unbalanced parentheses');
  return text;
}
