/** Databases: saved connections, a table's rows, and a query box. */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead } from '../ui';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function DatabasesPage() {
  const conns = useSignal<any[]>([]);
  const current = useSignal<string | null>(null);
  const schema = useSignal<any>(null);
  const sql = useSignal('');
  const result = useSignal<any>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    get<{ connections: any[] }>('/api/db').then((r) => (conns.value = r.connections), (e) => (error.value = sentence(e)));
  }, [epoch.value]);
  useEffect(() => {
    if (!current.value) return;
    get(`/api/db/${encodeURIComponent(current.value)}/schema`).then((s) => (schema.value = s), (e) => (error.value = sentence(e)));
  }, [current.value]);
  const id = current.value ? encodeURIComponent(current.value) : '';
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
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Databases" />
        {!conns.value.length && <Empty>No connections saved.</Empty>}
        {conns.value.map((c) => (
          <a href="#" class={`list-item ${c.id === current.value ? 'active' : ''}`} onClick={(e) => (e.preventDefault(), (current.value = c.id))}>
            <span class="grow">
              <span class="item-title">{c.name ?? c.id}</span>
              <span class="muted small">{c.engine}{c.writable ? ' · writable' : ' · read-only'}</span>
            </span>
          </a>
        ))}
        {tables.map((t) => (
          <a href="#" class="file" data-table={t.name} onClick={(e) => (e.preventDefault(), void browse(t.name))}>{t.schema ? `${t.schema}.` : ''}{t.name}</a>
        ))}
      </div>
      <div class="detail-pane page">
        {current.value ? (
          <>
            <textarea class="code" rows={4} placeholder="SELECT …" value={sql.value} onInput={(e) => (sql.value = (e.target as HTMLTextAreaElement).value)} />
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
          <Empty>Pick a connection.</Empty>
        )}
      </div>
    </div>
  );
}
