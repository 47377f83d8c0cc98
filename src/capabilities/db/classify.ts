/**
 * The engine's own statement classifier (seed 001 §4.9). Every statement gets one class:
 *   read       changes nothing and reaches nothing outside the database;
 *   write      changes data, schema, session or transaction state (or is not known to be a read);
 *   forbidden  reaches outside the database or the transaction: server files, programs, other
 *              connections, extensions; or text whose reading by the server cannot be known.
 * A batch takes the strictest class. PostgreSQL is classified from its own parse tree
 * (classify-pg.ts); MySQL/MariaDB and SQLite from the lexer (sql-lexer.ts), which follows each
 * server's rules and fails closed: an unknown statement is a write, an unterminated quote or
 * comment is forbidden. It is the first of two locks; the second is the database itself
 * (read-only handle or transaction, see the drivers), so a classifier miss still changes nothing.
 *
 * That is structure. On a server, what a statement calls is then judged against the server's own
 * catalog by the connection's judge (judge-pg.ts, judge-mysql.ts): a read may call only what is
 * known to be harmless, and what the catalog shows reaching outside makes any statement forbidden.
 */
import { classifyPostgres } from './classify-pg.js';
import { loadPgParser } from './pg-parser.js';
import { lex, splitStatements, type LexEngine, type Token } from './sql-lexer.js';
import type { DbEngine } from './types.js';

export type StatementClass = 'read' | 'write' | 'forbidden';

export interface ClassifiedStatement {
  sql: string;
  class: StatementClass;
  /** Why it is not a read: a phrase a person or a model can act on. */
  reason?: string;
  /** The first keyword (select, insert, pragma ...). */
  verb: string;
  /** What the connection's judge reads: PostgreSQL's parse tree, or (MySQL) the text with the tokens of each reading. */
  tree?: unknown;
}

/**
 * A connection's judgement of one statement by the server's catalog: a stricter class and why, or
 * undefined when everything it calls is known harmless.
 */
export type StatementJudge = (statement: ClassifiedStatement) => Promise<{ class: Exclude<StatementClass, 'read'>; reason: string } | undefined>;

/** A MySQL statement as its judge reads it: the batch's text (the tokens' offsets are into it) and the tokens of each reading. */
export interface LexedText {
  text: string;
  readings: Token[][];
}

export interface Classification {
  statements: ClassifiedStatement[];
  class: StatementClass;
  /** The reason of the strictest statement. */
  reason?: string;
}

const RANK: Record<StatementClass, number> = { read: 0, write: 1, forbidden: 2 };

const READ_VERBS = new Set(['select', 'with', 'values', 'table', 'show', 'describe', 'desc', 'explain']);

/** Keywords that make any statement a write wherever they stand (outside strings and quoted names). */
const WRITE_WORDS = new Set(['insert', 'update', 'delete', 'merge', 'upsert', 'create', 'drop', 'alter', 'truncate', 'grant', 'revoke', 'into', 'lock', 'rename']);

/** Functions with effects the transaction does not undo (locks that outlive it) or that hold the server busy: a write. */
const WRITE_FUNCTIONS: Record<LexEngine, Set<string>> = {
  mysql: new Set(['get_lock', 'release_lock', 'release_all_locks', 'nextval', 'setval', 'lastval', 'master_pos_wait', 'source_pos_wait', 'master_gtid_wait', 'sleep', 'benchmark']),
  sqlite: new Set([]),
};

/** Functions that reach outside the database (files, programs, connections). */
const FORBIDDEN_FUNCTIONS: Record<LexEngine, Set<string>> = {
  mysql: new Set(['load_file', 'sys_exec', 'sys_eval', 'sys_get', 'sys_set']),
  sqlite: new Set(['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer', 'zipfile', 'fsdir', 'lsmode']),
};

/** Name prefixes of function families that reach outside. */
const FORBIDDEN_PREFIXES: Record<LexEngine, string[]> = {
  mysql: ['sys_'],
  sqlite: [],
};

/** What a function's name alone says for MySQL/MariaDB or SQLite: reaches outside (forbidden), changes state (write), or nothing. */
export function lexNameTier(name: string, engine: LexEngine): { class: 'forbidden' | 'write'; reason: string } | undefined {
  if (FORBIDDEN_FUNCTIONS[engine].has(name) || FORBIDDEN_PREFIXES[engine].some((p) => name.startsWith(p))) return { class: 'forbidden', reason: `${name}() reaches outside the database` };
  if (WRITE_FUNCTIONS[engine].has(name)) {
    return { class: 'write', reason: `${name}() ${name === 'sleep' || name === 'benchmark' ? 'holds the server busy' : 'takes locks or changes state the transaction does not undo'}` };
  }
  return undefined;
}

/** SQLite PRAGMAs that only report, with or without an argument in parentheses. */
const SQLITE_READ_PRAGMAS = new Set([
  'table_info', 'table_xinfo', 'table_list', 'index_info', 'index_xinfo', 'index_list', 'foreign_key_list', 'foreign_key_check',
  'integrity_check', 'quick_check', 'database_list', 'collation_list', 'function_list', 'module_list', 'pragma_list',
  'compile_options', 'application_id', 'user_version', 'schema_version', 'data_version', 'encoding', 'journal_mode', 'page_size',
  'page_count', 'freelist_count', 'max_page_count', 'auto_vacuum', 'foreign_keys', 'query_only', 'synchronous', 'cache_size',
  'busy_timeout', 'locking_mode', 'temp_store', 'recursive_triggers', 'case_sensitive_like', 'secure_delete', 'cell_size_check',
  'defer_foreign_keys', 'ignore_check_constraints', 'legacy_alter_table', 'reverse_unordered_selects', 'trusted_schema',
  'automatic_index', 'mmap_size', 'soft_heap_limit', 'hard_heap_limit', 'threads', 'wal_autocheckpoint', 'analysis_limit',
]);

const one = (sql: string, cls: StatementClass, reason: string): Classification => ({ statements: [{ sql, class: cls, reason, verb: '' }], class: cls, reason });

function combine(statements: ClassifiedStatement[]): Classification {
  let worst: ClassifiedStatement | undefined;
  for (const s of statements) if (!worst || RANK[s.class] > RANK[worst.class]) worst = s;
  return { statements, class: worst?.class ?? 'read', reason: worst?.reason };
}

/** Classifies `sql`. PostgreSQL needs its parser loaded first: use classifySql, or await loadPgParser(). */
export function classify(sql: string, engine: DbEngine): Classification {
  if (sql.includes('\0')) return one(sql, 'forbidden', 'the SQL holds a NUL character, which servers read in different ways');
  if (engine === 'postgres') {
    const parsed = classifyPostgres(sql);
    if ('error' in parsed) return one(sql, 'forbidden', `PostgreSQL's parser cannot read the SQL: ${parsed.error}`);
    return combine(parsed.statements);
  }
  const run = lexAndClassify(sql, engine, 'run');
  if ('failed' in run) return run.failed;
  if (!run.versioned) return combine(withTokens(run.statements));
  // A versioned comment runs on new enough servers and is skipped on older ones: the statements
  // must end at the same semicolons in both readings, and each takes the stricter class.
  const skip = lexAndClassify(sql, engine, 'skip');
  if ('failed' in skip) return skip.failed;
  if (skip.statements.length !== run.statements.length) return one(sql, 'forbidden', 'a version comment (/*!NNNNN ... */) moves where statements end depending on the server version; take it out');
  const merged = run.statements.map((r, k) => {
    const s = skip.statements[k];
    // Both readings' tokens go to the judge: a call that runs on one server version only is judged too.
    const readings = (x: ClassifiedStatement) => (x.tree as LexedText).readings;
    return { ...(!r.tokens || (s.tokens && RANK[s.class] > RANK[r.class]) ? s : r), tree: { text: sql, readings: [...readings(r), ...readings(s)] } };
  });
  return combine(withTokens(merged));
}

/**
 * The same, loading PostgreSQL's parser on first use; with a connection's judge, every statement
 * not already forbidden is judged by the server's catalog too, and takes the stricter class.
 */
export async function classifySql(sql: string, engine: DbEngine, judge?: StatementJudge): Promise<Classification> {
  if (engine === 'postgres') await loadPgParser();
  const c = classify(sql, engine);
  if (!judge) return c;
  const judged = await Promise.all(
    c.statements.map(async (s) => {
      const v = s.class === 'forbidden' ? undefined : await judge(s);
      return v && RANK[v.class] > RANK[s.class] ? { ...s, class: v.class, reason: v.reason } : s;
    }),
  );
  return combine(judged);
}

const withTokens = (list: Array<ClassifiedStatement & { tokens: number }>): ClassifiedStatement[] => list.filter((s) => s.tokens).map(({ tokens: _, ...s }) => s);

/** One reading of the text: its statements, those with no token kept (counted) to line readings up; or why it cannot be read. */
function lexAndClassify(sql: string, engine: LexEngine, versionComments: 'run' | 'skip'): { failed: Classification } | { statements: Array<ClassifiedStatement & { tokens: number }>; versioned?: boolean } {
  const lexed = lex(sql, engine, { versionComments });
  if (lexed.unterminated) return { failed: one(sql, 'forbidden', `the SQL has ${lexed.unterminated}`) };
  const statements = splitStatements(sql, lexed, true).map((s) => ({ sql: s.text, verb: verbOf(s.tokens), tokens: s.tokens.length, tree: { text: sql, readings: [s.tokens] }, ...classifyTokens(s.tokens, engine) }));
  return { statements, versioned: lexed.versioned };
}

function verbOf(tokens: Token[]): string {
  const first = tokens.find((t) => !(t.type === 'punct' && t.value === '('));
  return first?.type === 'word' ? first.value : '';
}

function classifyTokens(tokens: Token[], engine: LexEngine): { class: StatementClass; reason?: string } {
  const forbidden = (reason: string) => ({ class: 'forbidden' as const, reason });
  const write = (reason: string) => ({ class: 'write' as const, reason });
  const verb = verbOf(tokens);
  const words = tokens.filter((t) => t.type === 'word').map((t) => t.value);
  const has = (w: string) => words.includes(w);
  const followedBy = (w: string, after: string[]) =>
    tokens.some((t, k) => t.type === 'word' && t.value === w && tokens[k + 1]?.type === 'word' && after.includes(tokens[k + 1].value));

  // What reaches outside the database comes first: it is refused even where writes are allowed.
  const second = tokens[1]?.type === 'word' ? tokens[1].value : '';
  if (engine === 'mysql') {
    if (verb === 'install' || verb === 'uninstall' || (verb === 'create' && has('soname'))) return forbidden('plugins and UDF libraries load server code');
    if (verb === 'load') return forbidden('LOAD DATA / LOAD XML reads files');
    if (verb === 'kill' || verb === 'shutdown') return forbidden(`${verb.toUpperCase()} acts on other sessions or the server`);
    if (verb === 'create' && second === 'server') return forbidden('CREATE SERVER reaches other servers');
    if (followedBy('into', ['outfile', 'dumpfile'])) return forbidden('SELECT ... INTO OUTFILE/DUMPFILE writes server files');
  }
  if (engine === 'sqlite' && (verb === 'attach' || verb === 'detach')) return forbidden('ATTACH opens (and can create) other database files');
  if (engine === 'sqlite' && verb === 'vacuum' && has('into')) return forbidden('VACUUM INTO writes a new file');
  const outside = calledFunctions(tokens)
    .map((f) => lexNameTier(f, engine))
    .find((t) => t?.class === 'forbidden');
  if (outside) return outside;

  if (engine === 'sqlite' && verb === 'pragma') return classifyPragma(tokens);
  if (!verb) {
    if (tokens.length === 0) return { class: 'read' };
    return write('the statement does not start with a known keyword');
  }
  if (!READ_VERBS.has(verb)) return write(`${verb.toUpperCase()} is not a read`);
  const w = words.find((x) => WRITE_WORDS.has(x));
  if (w) return write(w === 'into' ? 'SELECT ... INTO writes' : w === 'lock' || w === 'update' ? `${w.toUpperCase()} changes data or takes locks` : `${w.toUpperCase()} changes data or schema`);
  if (followedBy('for', ['share', 'no', 'key'])) return write('SELECT ... FOR SHARE takes locks');
  const changes = calledFunctions(tokens)
    .map((f) => lexNameTier(f, engine))
    .find((t) => t?.class === 'write');
  if (changes) return changes;
  return { class: 'read' };
}

/** PRAGMA name, PRAGMA name(arg), PRAGMA name = value (schema-qualified or not). */
function classifyPragma(tokens: Token[]): { class: StatementClass; reason?: string } {
  const rest = tokens.slice(1);
  let k = 0;
  if (rest[1]?.type === 'punct' && rest[1].value === '.') k = 2;
  const name = rest[k]?.value?.toLowerCase() ?? '';
  const after = rest.slice(k + 1);
  if (after.some((t) => t.type === 'punct' && t.value === '=')) return { class: 'write', reason: 'a PRAGMA assignment changes settings' };
  if (!SQLITE_READ_PRAGMAS.has(name)) return { class: 'write', reason: `PRAGMA ${name} is not known to be a read` };
  const arg = after.length > 0;
  const setters = new Set(['table_info', 'table_xinfo', 'table_list', 'index_info', 'index_xinfo', 'index_list', 'foreign_key_list', 'foreign_key_check', 'integrity_check', 'quick_check']);
  if (arg && !setters.has(name)) return { class: 'write', reason: `PRAGMA ${name}(...) changes a setting` };
  return { class: 'read' };
}

/** Every function name called in the statement (`name(`, `schema.name(`, quoted names too), lower-cased. */
function calledFunctions(tokens: Token[]): string[] {
  const out: string[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k];
    if ((t.type === 'word' || t.type === 'qident') && tokens[k + 1].type === 'punct' && tokens[k + 1].value === '(') out.push(t.value.toLowerCase());
  }
  return out;
}

/** The strictest class first: a display order for refusals. */
export const strictest = (a: StatementClass, b: StatementClass): StatementClass => (RANK[a] >= RANK[b] ? a : b);
