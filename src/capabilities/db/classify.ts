/**
 * The engine's own statement classifier (seed 001 §4.9). Every statement gets one class:
 *   read       changes nothing and reaches nothing outside the database;
 *   write      changes data, schema, session or transaction state (or is not known to be a read);
 *   forbidden  reaches outside the database: server files, programs, other connections, extensions.
 * A batch takes the strictest class. The classifier fails closed: an unknown statement is a write,
 * an unterminated quote or comment is forbidden. It is the first of two locks; the second is the
 * database itself (read-only handle or transaction, see the drivers), so a classifier miss still
 * changes nothing.
 */
import { lex, splitStatements, type Token } from './sql-lexer.js';
import type { DbEngine } from './types.js';

export type StatementClass = 'read' | 'write' | 'forbidden';

export interface ClassifiedStatement {
  sql: string;
  class: StatementClass;
  /** Why it is not a read: a phrase a person or a model can act on. */
  reason?: string;
  /** The first keyword (select, insert, pragma ...). */
  verb: string;
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

/** Functions with side effects inside the database or on other sessions: a write. */
const WRITE_FUNCTIONS: Record<DbEngine, Set<string>> = {
  postgres: new Set([
    'nextval', 'setval', 'set_config', 'pg_notify', 'txid_current', 'pg_current_xact_id',
    'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
    'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared', 'pg_try_advisory_xact_lock', 'pg_try_advisory_xact_lock_shared',
    'pg_advisory_unlock', 'pg_advisory_unlock_shared', 'pg_advisory_unlock_all', 'pg_stat_reset', 'pg_stat_reset_shared',
    'pg_stat_reset_single_table_counters', 'pg_stat_reset_single_function_counters', 'pg_stat_reset_slru', 'pg_stat_reset_replication_slot',
  ]),
  mysql: new Set(['get_lock', 'release_lock', 'release_all_locks', 'nextval', 'setval', 'master_pos_wait', 'source_pos_wait']),
  sqlite: new Set([]),
};

/** Functions that reach outside the database (files, programs, connections) or run SQL text unseen. */
const FORBIDDEN_FUNCTIONS: Record<DbEngine, Set<string>> = {
  postgres: new Set([
    'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file', 'pg_ls_logdir', 'pg_ls_waldir', 'pg_ls_tmpdir',
    'pg_ls_archive_statusdir', 'pg_ls_logicalsnapdir', 'pg_ls_logicalmapdir', 'pg_ls_replslotdir',
    'pg_file_write', 'pg_file_rename', 'pg_file_unlink', 'pg_file_sync', 'pg_logdir_ls',
    'lo_import', 'lo_export', 'lo_from_bytea', 'lo_put', 'lo_create', 'lo_creat', 'lo_unlink', 'lo_truncate', 'lo_truncate64', 'lo_open', 'lowrite',
    'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_promote', 'pg_switch_wal',
    'pg_create_restore_point', 'pg_backup_start', 'pg_backup_stop', 'pg_start_backup', 'pg_stop_backup',
    'pg_create_physical_replication_slot', 'pg_create_logical_replication_slot', 'pg_drop_replication_slot',
    'pg_copy_physical_replication_slot', 'pg_copy_logical_replication_slot', 'pg_logical_emit_message',
    'pg_logical_slot_get_changes', 'pg_logical_slot_get_binary_changes', 'pg_replication_slot_advance', 'pg_import_system_collations',
    // These run SQL text the classifier never sees.
    'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema',
  ]),
  mysql: new Set(['load_file', 'sys_exec', 'sys_eval', 'sys_get', 'sys_set']),
  sqlite: new Set(['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer', 'zipfile', 'fsdir', 'lsmode']),
};

/** Name prefixes of function families that open connections or touch replication. */
const FORBIDDEN_PREFIXES: Record<DbEngine, string[]> = {
  postgres: ['dblink', 'pg_replication_origin_', 'lo_', 'pg_file_'],
  mysql: ['sys_'],
  sqlite: [],
};

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

export function classify(sql: string, engine: DbEngine): Classification {
  const lexed = lex(sql, engine);
  if (lexed.unterminated) {
    const reason = `the SQL has ${lexed.unterminated} that is never closed`;
    return { statements: [{ sql, class: 'forbidden', reason, verb: '' }], class: 'forbidden', reason };
  }
  const statements = splitStatements(sql, lexed).map((s) => ({ sql: s.text, verb: verbOf(s.tokens), ...classifyTokens(s.tokens, engine) }));
  let worst: ClassifiedStatement | undefined;
  for (const s of statements) if (!worst || RANK[s.class] > RANK[worst.class]) worst = s;
  return { statements, class: worst?.class ?? 'read', reason: worst?.reason };
}

function verbOf(tokens: Token[]): string {
  const first = tokens.find((t) => !(t.type === 'punct' && t.value === '('));
  return first?.type === 'word' ? first.value : '';
}

function classifyTokens(tokens: Token[], engine: DbEngine): { class: StatementClass; reason?: string } {
  const forbidden = (reason: string) => ({ class: 'forbidden' as const, reason });
  const write = (reason: string) => ({ class: 'write' as const, reason });
  const verb = verbOf(tokens);
  const words = tokens.filter((t) => t.type === 'word').map((t) => t.value);
  const has = (w: string) => words.includes(w);
  const followedBy = (w: string, after: string[]) =>
    tokens.some((t, k) => t.type === 'word' && t.value === w && tokens[k + 1]?.type === 'word' && after.includes(tokens[k + 1].value));

  // What reaches outside the database comes first: it is refused even where writes are allowed.
  if (engine === 'postgres' && verb === 'copy') return forbidden('COPY reads or writes server files and programs');
  const second = tokens[1]?.type === 'word' ? tokens[1].value : '';
  if (engine === 'postgres' && verb === 'create' && (second === 'extension' || (second === 'language' || (second === 'trusted' || second === 'procedural'))))
    return forbidden('CREATE EXTENSION / LANGUAGE loads server code');
  if (engine === 'postgres' && (verb === 'load' || (verb === 'alter' && second === 'system'))) return forbidden(verb === 'load' ? 'LOAD loads a server library' : 'ALTER SYSTEM writes the server configuration');
  if (engine === 'mysql' && (verb === 'install' || verb === 'uninstall' || (verb === 'create' && has('soname')))) return forbidden('plugins and UDF libraries load server code');
  if (engine === 'postgres' && tokens.some((t) => t.unicode)) return forbidden('U&"..." identifiers can spell any name; write the name plainly');
  if (engine === 'mysql' && verb === 'load') return forbidden('LOAD DATA / LOAD XML reads files');
  if (engine === 'mysql' && followedBy('into', ['outfile', 'dumpfile'])) return forbidden('SELECT ... INTO OUTFILE/DUMPFILE writes server files');
  if (engine === 'sqlite' && (verb === 'attach' || verb === 'detach')) return forbidden('ATTACH opens (and can create) other database files');
  if (engine === 'sqlite' && verb === 'vacuum' && has('into')) return forbidden('VACUUM INTO writes a new file');
  const call = calledFunctions(tokens).find((f) => FORBIDDEN_FUNCTIONS[engine].has(f) || FORBIDDEN_PREFIXES[engine].some((p) => f.startsWith(p)));
  if (call) return forbidden(`${call}() reaches outside the database`);

  if (engine === 'sqlite' && verb === 'pragma') return classifyPragma(tokens);
  if (!verb) {
    if (tokens.length === 0) return { class: 'read' };
    return write('the statement does not start with a known keyword');
  }
  if (!READ_VERBS.has(verb)) return write(`${verb.toUpperCase()} is not a read`);
  const w = words.find((x) => WRITE_WORDS.has(x));
  if (w) return write(w === 'into' ? 'SELECT ... INTO writes' : w === 'lock' || w === 'update' ? `${w.toUpperCase()} changes data or takes locks` : `${w.toUpperCase()} changes data or schema`);
  if (followedBy('for', ['share', 'no', 'key'])) return write('SELECT ... FOR SHARE takes locks');
  const fn = calledFunctions(tokens).find((f) => WRITE_FUNCTIONS[engine].has(f));
  if (fn) return write(`${fn}() changes state`);
  // MySQL EXPLAIN ANALYZE and PostgreSQL EXPLAIN ANALYZE run the statement: what it runs was checked above.
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
