/** Databases: saved connections, a table's rows, and a query box. */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, sentence } from '../api';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead } from '../ui';

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
  const rows: any[] = result.value?.rows ?? result.value?.results?.at(-1)?.rows ?? [];
  const columns: string[] = result.value?.columns?.map((c: any) => (typeof c === 'string' ? c : c.name)) ?? (rows[0] ? Object.keys(rows[0]) : []);
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Databases" />
        {!conns.value.length && <Empty>No connections saved.</Empty>}
        {conns.value.map((c) => (
          <a href="#" class={`list-item ${c.id === current.value ? 'active' : ''}`} onClick={(e) => (e.preventDefault(), (current.value = c.id))}>
            <span class="grow">
              <span class="item-title">{c.name ?? c.id}</span>
              <span class="muted small">{c.driver ?? c.type}</span>
            </span>
          </a>
        ))}
        {tables.map((t) => (
          <a href="#" class="file" onClick={(e) => (e.preventDefault(), void browse(t.name))}>{t.schema ? `${t.schema}.` : ''}{t.name}</a>
        ))}
      </div>
      <div class="detail-pane page">
        {current.value ? (
          <>
            <textarea class="code" rows={4} placeholder="SELECT …" value={sql.value} onInput={(e) => (sql.value = (e.target as HTMLTextAreaElement).value)} />
            <Action kind="primary" onClick={async () => (result.value = await post(`/api/db/${id}/query`, { sql: sql.value }))} onError={(m) => (error.value = m)}>Run</Action>
            <ErrorLine error={error.value} />
            {columns.length > 0 && (
              <div class="table-wrap">
                <table class="grid">
                  <thead><tr>{columns.map((c) => <th>{c}</th>)}</tr></thead>
                  <tbody>{rows.map((r) => <tr>{columns.map((c) => <td>{r[c] === null ? <span class="muted">null</span> : String(typeof r === 'object' && !Array.isArray(r) ? r[c] : r)}</td>)}</tr>)}</tbody>
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
