/** Databases: saved connections (add, test, edit, delete), a table's rows, and a query box. */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { del, get, post, sentence } from '../api';
import { useLive } from '../live';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead } from '../ui';
import { ConnectionForm } from './connection-form';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const ENGINES: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL / MariaDB' };

export function DatabasesPage() {
  const conns = useSignal<any[]>([]);
  const current = useSignal<string | null>(null);
  /** The form in the detail pane: a new connection, or the one being edited. */
  const editing = useSignal<{ id?: string } | null>(null);
  const schema = useSignal<any>(null);
  const sql = useSignal('');
  const result = useSignal<any>(null);
  const error = useSignal<string | null>(null);
  const load = () => get<{ connections: any[] }>('/api/db').then((r) => (conns.value = r.connections), (e) => (error.value = sentence(e)));
  useEffect(() => void load(), [epoch.value]);
  // Another window, a script or a model adding or removing a connection shows here at once.
  useLive((e) => e.kind === 'db.connections.changed', load);
  useEffect(() => {
    schema.value = null;
    result.value = null;
    if (!current.value) return;
    get(`/api/db/${encodeURIComponent(current.value)}/schema`).then((s) => (schema.value = s), (e) => (error.value = sentence(e)));
  }, [current.value]);
  const id = current.value ? encodeURIComponent(current.value) : '';
  const conn = conns.value.find((c) => c.id === current.value);
  const tables: any[] = schema.value?.tables ?? [];
  const browse = async (table: string) => {
    error.value = null;
    result.value = await post(`/api/db/${id}/table-data`, { table, limit: 100 }).catch((e) => ((error.value = sentence(e)), null));
  };
  // A table page is {columns, rows}; a query answers one such part per statement: the last is shown.
  const shown = result.value?.statements?.at(-1) ?? result.value;
  const rows: any[] = shown?.rows ?? [];
  const columns: string[] = shown?.columns ?? [];
  const note = result.value?.statements?.map((st: any) => (st.affected !== undefined ? `${plural(st.affected, 'row')} changed` : `${plural(st.rowCount, 'row')}${st.truncated ? ' (truncated)' : ''}`)).join(' · ');
  const saved = (savedId: string) => {
    editing.value = null;
    current.value = savedId;
    void load();
  };
  return (
    <div class={`split ${current.value || editing.value ? 'has-detail' : ''}`}>
      <div class="list-pane">
        <PageHead title="Databases">
          <button class="btn" onClick={() => ((editing.value = {}), (current.value = null))}>Add connection</button>
        </PageHead>
        {!conns.value.length && <Empty>No connections yet: add one to browse its tables and run queries.</Empty>}
        {conns.value.map((c) => (
          <a href="#" class={`list-item ${c.id === current.value ? 'active' : ''}`} onClick={(e) => (e.preventDefault(), (editing.value = null), (current.value = c.id))}>
            <span class="grow">
              <span class="item-title wrap">{c.name ?? c.id}</span>
              <span class="muted small">{ENGINES[c.engine] ?? c.engine}{c.writable ? ' · writable' : ' · read-only'}</span>
            </span>
          </a>
        ))}
        {tables.length > 0 && <div class="muted small section-title pad">Tables of {conn?.name ?? current.value}</div>}
        {tables.map((t) => (
          <a href="#" class="file wrap" data-table={t.name} title={`${t.schema ? `${t.schema}.` : ''}${t.name}`} onClick={(e) => (e.preventDefault(), void browse(t.name))}>
            {t.schema ? `${t.schema}.` : ''}
            {t.name}
          </a>
        ))}
      </div>
      <div class="detail-pane page">
        {editing.value ? (
          <ConnectionForm key={editing.value.id ?? 'new'} existing={conns.value.find((c) => c.id === editing.value!.id)} onSaved={saved} onCancel={() => (editing.value = null)} />
        ) : current.value ? (
          <>
            <div class="row">
              <strong class="grow wrap">{conn?.name ?? current.value}</strong>
              <button class="btn" onClick={() => (editing.value = { id: current.value! })}>Edit</button>
              <Action kind="danger" onClick={async () => {
                if (!confirm(`Delete the connection "${conn?.name ?? current.value}"? Its stored password and query history go with it; the database itself is not touched.`)) return;
                await del(`/api/db/connections/${id}`);
                current.value = null;
              }}>Delete</Action>
            </div>
            {conn?.warning && <div class="muted small">{conn.warning}</div>}
            <textarea class="code" rows={4} placeholder="SELECT …" aria-label="SQL" value={sql.value} onInput={(e) => (sql.value = (e.target as HTMLTextAreaElement).value)} />
            <div class="row">
              <Action kind="primary" onClick={async () => ((error.value = null), (result.value = await post(`/api/db/${id}/query`, { sql: sql.value })))} onError={(m) => (error.value = m)}>Run</Action>
            </div>
            <ErrorLine error={error.value} />
            {note && <div class="muted small">{note}</div>}
            {columns.length > 0 && (
              <div class="table-wrap">
                <table class="grid">
                  <thead><tr>{columns.map((c) => <th>{c}</th>)}</tr></thead>
                  <tbody>{rows.map((r) => <tr>{columns.map((c) => <td>{r[c] === null ? <span class="muted">null</span> : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c])}</td>)}</tr>)}</tbody>
                </table>
              </div>
            )}
          </>
        ) : (
          <Empty>Pick a connection, or add one.</Empty>
        )}
      </div>
    </div>
  );
}
