/**
 * PostgreSQL statements classified from PostgreSQL's own parse tree (pg-parser.ts), never from the
 * text: what the server will run is what is judged. A statement is a read only when it is a SELECT
 * (or VALUES, TABLE), SHOW or EXPLAIN whose whole tree holds no data-modifying statement (a CTE's
 * DELETE, EXPLAIN ANALYZE's UPDATE), no SELECT ... INTO, no FOR UPDATE/SHARE, and no call of a
 * function known by name to act outside the database or to change state, wherever it stands in the
 * tree (FROM, arguments, CTEs, subqueries), schema-qualified, quoted or spelled with U& escapes alike.
 * That is the structure; what the statement calls is then judged by the server's own catalog
 * (judge-pg.ts): a read may call only what is known to be harmless.
 */
import type { ClassifiedStatement, StatementClass } from './classify.js';
import { parsePg, walk, type PgNode } from './pg-parser.js';

/** Functions that act outside the transaction (files, programs, other sessions and servers): never run for a model or on a read-only connection. */
const OUTSIDE = new Set([
  'pg_stat_file', 'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_promote', 'pg_switch_wal',
  'pg_start_backup', 'pg_stop_backup', 'pg_drop_replication_slot', 'pg_replication_slot_advance', 'pg_import_system_collations',
  'lowrite', 'loread', 'pg_logdir_ls', 'pg_wal_replay_pause', 'pg_wal_replay_resume', 'pg_log_backend_memory_contexts',
]);
const OUTSIDE_PREFIXES = ['dblink', 'pg_read_', 'pg_ls_', 'lo_', 'pg_file_', 'pg_replication_origin_', 'pg_logical_', 'pg_create_', 'pg_copy_', 'pg_backup_'];

/**
 * Functions with effects the read-only transaction does not stop or undo for the session (advisory
 * locks outlive a rollback) or that change state: a write (a person may run them on a writable connection).
 */
const WRITES = new Set(['set_config', 'nextval', 'setval', 'pg_notify', 'txid_current', 'pg_current_xact_id', 'pg_export_snapshot']);
const WRITE_PREFIXES = ['pg_advisory', 'pg_try_advisory', 'pg_stat_reset'];

/** Statements that reach outside the database whatever their arguments. */
const OUTSIDE_STATEMENTS: Record<string, string> = {
  LoadStmt: 'LOAD loads a server library',
  CreateExtensionStmt: 'CREATE EXTENSION loads server code',
  AlterExtensionStmt: 'ALTER EXTENSION changes server code',
  CreatePLangStmt: 'CREATE LANGUAGE loads server code',
  AlterSystemStmt: 'ALTER SYSTEM writes the server configuration',
  CreateForeignServerStmt: 'CREATE SERVER reaches other servers',
  CreateUserMappingStmt: 'CREATE USER MAPPING stores credentials for other servers',
  ImportForeignSchemaStmt: 'IMPORT FOREIGN SCHEMA reaches other servers',
  CreateSubscriptionStmt: 'CREATE SUBSCRIPTION connects to other servers',
};

const MODIFYING = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

/** A node type's SQL verb: SelectStmt -> select, VariableShowStmt -> show. */
function verbOf(kind: string): string {
  if (kind === 'VariableShowStmt') return 'show';
  if (kind === 'VariableSetStmt') return 'set';
  return kind.replace(/Stmt$/, '').toLowerCase();
}

const funcName = (fields: PgNode): string => {
  const parts = (fields.funcname as Array<{ String?: { sval?: string } }> | undefined) ?? [];
  return (parts[parts.length - 1]?.String?.sval ?? '').toLowerCase();
};

/** Why a function of this name acts outside the database or changes state, by name alone (undefined when its name says nothing). */
export function nameTier(name: string): { class: 'forbidden' | 'write'; reason: string } | undefined {
  if (OUTSIDE.has(name) || OUTSIDE_PREFIXES.some((p) => name.startsWith(p))) return { class: 'forbidden', reason: `${name}() acts outside the database or the transaction` };
  if (WRITES.has(name) || WRITE_PREFIXES.some((p) => name.startsWith(p))) return { class: 'write', reason: `${name}() changes state outside the rows it reads` };
  return undefined;
}

/** The class of one statement from its structure and the names it calls. */
export function judgeStructure(kind: string, node: PgNode): { class: StatementClass; reason?: string } {
  if (OUTSIDE_STATEMENTS[kind]) return { class: 'forbidden', reason: OUTSIDE_STATEMENTS[kind] };
  if (kind === 'CopyStmt') {
    // COPY never runs as a query: its data travels outside the query protocol (the CSV export builds its own).
    if (node.is_program) return { class: 'forbidden', reason: 'COPY ... PROGRAM runs a program on the server' };
    if (node.filename) return { class: 'forbidden', reason: `COPY ${node.is_from ? 'FROM' : 'TO'} a file reads or writes server files` };
    return { class: 'forbidden', reason: node.is_from ? 'COPY FROM STDIN is not run as a query; insert rows with INSERT' : 'COPY TO STDOUT is not run as a query; use the CSV export' };
  }
  let outside: string | undefined;
  let write: string | undefined;
  walk({ [kind]: node }, (k, fields) => {
    if (k === 'FuncCall') {
      const tier = nameTier(funcName(fields));
      if (tier?.class === 'forbidden') outside ??= tier.reason;
      else if (tier) write ??= tier.reason;
    } else if (MODIFYING.has(k)) write ??= `${verbOf(k).toUpperCase()} changes data`;
    else if (k === 'SelectStmt' && fields.intoClause) write ??= 'SELECT ... INTO creates a table';
    else if (k === 'SelectStmt' && Array.isArray(fields.lockingClause) && fields.lockingClause.length) write ??= 'SELECT ... FOR UPDATE/SHARE takes row locks';
  });
  if (outside) return { class: 'forbidden', reason: outside };
  if (write) return { class: 'write', reason: write };
  if (kind === 'SelectStmt' || kind === 'VariableShowStmt') return { class: 'read' };
  if (kind === 'ExplainStmt') return { class: 'read' }; // what EXPLAIN ANALYZE runs was walked above
  return { class: 'write', reason: `${verbOf(kind).toUpperCase()} is not a read` };
}

/** The statements of `sql` as PostgreSQL cuts them, each classified; the parser's message when it does not parse. */
export function classifyPostgres(sql: string): { statements: ClassifiedStatement[] } | { error: string } {
  const parsed = parsePg(sql);
  if (!parsed.ok) return { error: parsed.error };
  return { statements: parsed.statements.map((s) => ({ sql: s.text, verb: verbOf(s.kind), tree: { kind: s.kind, node: s.node }, ...judgeStructure(s.kind, s.node) })) };
}
