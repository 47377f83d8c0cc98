/**
 * db_connections, db_schema, db_query (seed 001 §4.9): thin model-facing adapters. A model never
 * sees a URL or a password. db_query's permission step classifies the SQL: a read runs at once; a
 * write on a read-only connection, or anything reaching outside the database, is refused with a
 * sentence the model can act on; a write on a writable connection asks `db_query(<connection>)`
 * with the SQL shown (masked by the gate).
 */
import { LIMITS } from '../../kernel/limits.js';
import { defineTool, type AnyTool } from '../../tools/types.js';
import type { DbFacade } from './facade.js';
import type { QueryOutcome } from './query.js';
import { connectionId } from './schemas.js';
import type { SchemaInfo, SchemaTable } from './types.js';
import { textValue } from './values.js';

export function dbTools(db: () => Promise<DbFacade>): AnyTool[] {
  const connections = defineTool<Record<string, never>>({
    name: 'db_connections',
    group: 'db',
    readOnly: true,
    description:
      'Lists the saved database connections: id, name, engine (sqlite, postgres, mysql), writable, rowLimit, timeoutMs. ' +
      'Use an id with db_schema and db_query. On a connection that is not writable only reads run.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    permission: 'other',
    async run() {
      const list = await (await db()).service.list();
      if (!list.length) return 'No database connections are saved. Ask the user to add one (PUT /api/db/connections/<id>).';
      return list
        .map((c) => `${c.id}: "${c.name}" ${c.engine}${c.writable ? ', writable' : ', read-only'}, rowLimit ${c.rowLimit}, timeoutMs ${c.timeoutMs}`)
        .join('\n');
    },
  });

  const schema = defineTool<{ connection: string; table?: string }>({
    name: 'db_schema',
    group: 'db',
    readOnly: true,
    description:
      'Shows the tables and views of a connection with column types, primary and foreign keys. ' +
      'Pass table to expand one table with its defaults and indexes. Cached for 60 s.',
    parameters: {
      type: 'object',
      properties: {
        connection: { ...connectionId, description: 'Connection id (db_connections lists them).' },
        table: { type: 'string', description: 'One table or view to expand (name, or schema.name).' },
      },
      required: ['connection'],
      additionalProperties: false,
    },
    permission: 'other',
    async run(args) {
      const info = await (await db()).service.schema(args.connection);
      if (!args.table) return formatSchema(args.connection, info);
      const wanted = args.table;
      const t = info.tables.find((x) => `${x.schema}.${x.name}` === wanted) ?? info.tables.find((x) => x.name === wanted);
      if (!t) return { text: `No table or view "${wanted}" on ${args.connection}. Its tables: ${info.tables.map((x) => x.name).join(', ') || '(none)'}.`, isError: true };
      return formatTable(t);
    },
  });

  const query = defineTool<{ connection: string; sql: string; rowLimit?: number }>({
    name: 'db_query',
    group: 'db',
    description:
      'Runs SQL on a saved connection and answers a summary line and the rows as a table. Several ;-separated statements are allowed. ' +
      'Reads run at once inside a read-only transaction. A write (INSERT, UPDATE, DDL, SET, transaction control ...) runs only on a writable ' +
      'connection and only after the user approves it; on a read-only connection it is refused. Statements that reach files, programs or other ' +
      `connections are always refused. Rows are capped at the connection's rowLimit (or rowLimit here), and at most ${LIMITS.dbToolRows} are shown: use WHERE, LIMIT and OFFSET to page.`,
    parameters: {
      type: 'object',
      properties: {
        connection: { ...connectionId, description: 'Connection id (db_connections lists them).' },
        sql: { type: 'string', minLength: 1, description: 'One or more SQL statements separated by ;' },
        rowLimit: { type: 'integer', minimum: 1, maximum: LIMITS.dbRowLimitMax, description: 'Rows kept per statement.' },
      },
      required: ['connection', 'sql'],
      additionalProperties: false,
    },
    async permission(args) {
      const key = `db_query(${args.connection})`;
      const { view, classification, refusal } = await (await db()).queries.judge(args.connection, args.sql);
      if (refusal) {
        const hint = view.writable
          ? 'Rewrite it without that statement.'
          : 'Rewrite it as a read (SELECT), or ask the user to make the connection writable.';
        return { class: 'other', key, hardDeny: `db_query refused on "${args.connection}": ${refusal}. ${hint}` };
      }
      if (classification.class === 'write') {
        return { class: 'unknown', key, display: `db_query on "${args.connection}" (${view.engine}, ${classification.reason}):\n${args.sql}` };
      }
      return { class: 'other', key };
    },
    async run(args, ctx) {
      const outcome = await (await db()).queries.model(args.connection, { sql: args.sql, rowLimit: args.rowLimit }, { by: 'model', agent: ctx.agent, emit: ctx.emit });
      const text = formatOutcome(outcome);
      return outcome.ok ? text : { text, isError: true };
    },
  });

  return [connections, schema, query];
}

function formatSchema(id: string, info: SchemaInfo): string {
  const tables = info.tables.filter((t) => t.kind === 'table').length;
  const lines = [`Connection "${id}" (${info.engine}): ${tables} tables, ${info.tables.length - tables} views.`];
  for (const t of info.tables) {
    const cols = t.columns.map((c) => {
      const fk = t.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === c.name);
      return `${c.name} ${c.type}${t.primaryKey.includes(c.name) ? ' PK' : ''}${fk ? ` -> ${fk.refTable}(${fk.refColumns.join(', ')})` : ''}`;
    });
    lines.push(`${t.schema}.${t.name} (${t.kind}): ${cols.join(', ')}`);
  }
  return lines.join('\n');
}

function formatTable(t: SchemaTable): string {
  const lines = [`${t.schema}.${t.name} (${t.kind})`, 'Columns:'];
  for (const c of t.columns) lines.push(`  ${c.name} ${c.type}${c.nullable ? '' : ' NOT NULL'}${c.default != null ? ` DEFAULT ${c.default}` : ''}`);
  lines.push(`Primary key: ${t.primaryKey.length ? t.primaryKey.join(', ') : '(none)'}`);
  for (const f of t.foreignKeys) lines.push(`Foreign key: (${f.columns.join(', ')}) -> ${f.refSchema ? f.refSchema + '.' : ''}${f.refTable}(${f.refColumns.join(', ')})`);
  for (const i of t.indexes) lines.push(`Index ${i.name}${i.unique ? ' UNIQUE' : ''}${i.primary ? ' PRIMARY' : ''}: (${i.columns.join(', ')})`);
  return lines.join('\n');
}

const clipCell = (v: unknown) => {
  const t = textValue(v).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  return t.length > LIMITS.dbToolCellChars ? t.slice(0, LIMITS.dbToolCellChars - 1) + '…' : t;
};

function formatOutcome(o: QueryOutcome): string {
  const n = o.statements.length;
  const lines: string[] = [];
  lines.push(
    o.ok
      ? `${n} statement${n === 1 ? '' : 's'} ran on "${o.connection}" (${o.engine}, ${o.class}) in ${o.durationMs} ms.`
      : `The database refused a statement on "${o.connection}" (${o.engine}): ${o.error}${o.failedStatement ? `\nFailed statement: ${o.failedStatement.slice(0, 500)}` : ''}` +
          (o.class === 'read' || n === 0 ? '\nNothing was changed.' : `\n${n} statement(s) before it ran.`),
  );
  o.statements.forEach((s, k) => {
    const head = n > 1 ? `[${k + 1}] ` : '';
    if (!s.columns.length) {
      lines.push(`${head}${s.affected !== undefined ? `${s.affected} row(s) changed` : 'done'}.`);
      return;
    }
    const shown = s.rows.slice(0, LIMITS.dbToolRows);
    lines.push(`${head}${s.rowCount} row(s)${s.rowCount > shown.length ? `, showing ${shown.length}` : ''}:`);
    lines.push(`| ${s.columns.map(clipCell).join(' | ')} |`, `|${s.columns.map(() => '---').join('|')}|`);
    for (const r of shown) lines.push(`| ${s.columns.map((c) => clipCell(r[c])).join(' | ')} |`);
    if (s.rowCount > shown.length) lines.push(`(${s.rowCount - shown.length} more row(s) not shown: add WHERE or LIMIT/OFFSET to page.)`);
  });
  return lines.join('\n');
}
