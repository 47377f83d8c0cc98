/** Vaults (notes with backlinks, search, capture) and work boards (lanes with cards that move). */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put, sentence } from '../api';
import { epoch, onEvent } from '../sync';
import { Action, Empty, ErrorLine, PageHead, short } from '../ui';

export function VaultsPage() {
  const vaults = useSignal<any[]>([]);
  const current = useSignal<string | null>(null);
  const index = useSignal<any>(null);
  const note = useSignal<{ path: string; content: string; meta?: any } | null>(null);
  const q = useSignal('');
  const hits = useSignal<any[] | null>(null);
  const capture = useSignal('');
  const error = useSignal<string | null>(null);
  const fail = (e: unknown) => (error.value = sentence(e));
  useEffect(() => {
    get<any[]>('/api/vaults').then((v) => ((vaults.value = v), !current.value && v[0] && (current.value = v[0].name)), fail);
  }, [epoch.value]);
  useEffect(() => {
    if (current.value) get(`/api/vaults/${encodeURIComponent(current.value)}/index`).then((i) => (index.value = i), fail);
  }, [current.value]);
  const v = current.value ? encodeURIComponent(current.value) : '';
  const open = (path: string) => get<any>(`/api/vaults/${v}/note?path=${encodeURIComponent(path)}`).then((n) => (note.value = { path, content: n.content ?? '', meta: n.meta }), fail);
  const notes: any[] = index.value?.notes ?? [];
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Vaults" />
        <NewVault onDone={(name) => get<any[]>('/api/vaults').then((v) => ((vaults.value = v), (current.value = name)), fail)} />
        <ErrorLine error={error.value} />
        {!vaults.value.length && <Empty>No vaults yet: make a folder of notes a vault above.</Empty>}
        {vaults.value.length > 1 && (
          <select value={current.value ?? ''} onChange={(e) => (current.value = (e.target as HTMLSelectElement).value)}>
            {vaults.value.map((x) => <option value={x.name}>{x.name}</option>)}
          </select>
        )}
        {current.value && (
          <>
            <form class="row" onSubmit={(e) => (e.preventDefault(), get(`/api/vaults/${v}/search?q=${encodeURIComponent(q.value)}`).then((r) => (hits.value = r.results), fail))}>
              <input placeholder="Search notes" value={q.value} onInput={(e) => (q.value = (e.target as HTMLInputElement).value)} />
            </form>
            {(hits.value ?? notes).map((n: any) => (
              <a class="list-item" href="#" onClick={(e) => (e.preventDefault(), void open(n.path ?? n.file))}>
                <span class="grow">
                  <span class="item-title">{n.name ?? n.title ?? n.path}</span>
                  {n.snippet && <span class="muted small">{short(n.snippet, 100)}</span>}
                </span>
              </a>
            ))}
          </>
        )}
      </div>
      <div class="detail-pane">
        {current.value && (
          <div class="card">
            <textarea rows={2} placeholder="Capture: paste text, the model files it into the inbox" value={capture.value} onInput={(e) => (capture.value = (e.target as HTMLTextAreaElement).value)} />
            <Action onClick={async () => (await post(`/api/vaults/${v}/capture`, { text: capture.value }), (capture.value = ''))} onError={(m) => (error.value = m)} disabled={!capture.value.trim()}>Capture</Action>
          </div>
        )}
        {note.value ? (
          <div class="page">
            <PageHead title={note.value.path}>
              <Action kind="primary" onClick={() => put(`/api/vaults/${v}/note?path=${encodeURIComponent(note.value!.path)}`, { content: note.value!.content })} onError={(m) => (error.value = m)}>Save</Action>
            </PageHead>
            <textarea class="code editor-text" value={note.value.content} onInput={(e) => (note.value = { ...note.value!, content: (e.target as HTMLTextAreaElement).value })} />
            {note.value.meta?.backlinks?.length > 0 && (
              <div class="small">
                Backlinks:{' '}
                {note.value.meta.backlinks.map((b: string) => (
                  <a href="#" onClick={(e) => (e.preventDefault(), void open(b))}>{b} </a>
                ))}
              </div>
            )}
          </div>
        ) : (
          <Empty>Pick a note.</Empty>
        )}
      </div>
    </div>
  );
}

/** Makes a folder a vault (a folder holding vault.json is adopted as it is): typed or picked. */
function NewVault({ onDone }: { onDone: (name: string) => void }) {
  const name = useSignal('');
  const folder = useSignal('');
  const error = useSignal<string | null>(null);
  return (
    <div class="new-vault">
      <div class="row">
        <input placeholder="vault name" value={name.value} onInput={(e) => (name.value = (e.target as HTMLInputElement).value)} aria-label="vault name" />
        <input placeholder="/folder/of/notes" value={folder.value} onInput={(e) => (folder.value = (e.target as HTMLInputElement).value)} aria-label="vault folder" />
      </div>
      <div class="row">
        <Action onClick={async () => {
          const r = await post<{ path?: string; reason?: string }>('/api/pick-folder');
          if (r.path) folder.value = r.path;
          else if (r.reason) error.value = r.reason;
        }} onError={(m) => (error.value = m)}>Choose folder…</Action>
        <Action kind="primary" disabled={!name.value || !folder.value} onClick={async () => {
          await post('/api/vaults', { name: name.value, path: folder.value });
          onDone(name.value);
          name.value = folder.value = '';
          error.value = null;
        }} onError={(m) => (error.value = m)}>Make vault</Action>
      </div>
      <ErrorLine error={error.value} />
    </div>
  );
}

export function BoardsPage() {
  const boards = useSignal<any[]>([]);
  const error = useSignal<string | null>(null);
  const tick = useSignal(0);
  const title = useSignal('');
  useEffect(() => onEvent((e) => void (e.kind === 'work.updated' && tick.value++)), []);
  useEffect(() => {
    get<{ boards: any[] }>('/api/work').then((r) => ((boards.value = r.boards), (error.value = null)), (e) => (error.value = sentence(e)));
  }, [epoch.value, tick.value]);
  return (
    <div class="page wide">
      <PageHead title="Boards">
        <Action onClick={async () => (await put('/api/work/main', {}), tick.value++)} onError={(m) => (error.value = m)}>New board</Action>
      </PageHead>
      <ErrorLine error={error.value} />
      {!boards.value.length && <Empty>No boards yet.</Empty>}
      {boards.value.map((b) => {
        const lanes: { id: string; name?: string }[] = (b.config?.lanes ?? []).map((l: { name: string }) => ({ id: l.name, name: l.name }));
        const project = b.project ?? b.name;
        return (
          <section key={project} class="board">
            <h2>{b.config?.name ?? project}</h2>
            <form class="row" onSubmit={(e) => (e.preventDefault(), post(`/api/work/${encodeURIComponent(project)}`, { kind: b.config?.kinds?.[0]?.name ?? 'task', title: title.value }).then(() => ((title.value = ''), tick.value++), (err) => (error.value = sentence(err))))}>
              <input placeholder="New card title" value={title.value} onInput={(e) => (title.value = (e.target as HTMLInputElement).value)} />
              <button class="btn">Add</button>
            </form>
            <div class="lanes">
              {lanes.map((lane, li) => (
                <div class="lane" key={lane.id}>
                  <h3>{lane.name ?? lane.id}</h3>
                  {(b.items ?? []).filter((it: any) => it.status === lane.id).map((it: any) => (
                    <div class="card item" key={it.key}>
                      <div class="muted small">{it.key}</div>
                      <div>{it.title}</div>
                      <div class="row">
                        {li > 0 && <Action onClick={async () => (await put(`/api/work/${encodeURIComponent(project)}/${encodeURIComponent(it.key)}`, { status: lanes[li - 1].id }), tick.value++)}>←</Action>}
                        {li < lanes.length - 1 && <Action onClick={async () => (await put(`/api/work/${encodeURIComponent(project)}/${encodeURIComponent(it.key)}`, { status: lanes[li + 1].id }), tick.value++)}>→</Action>}
                      </div>
                    </div>
                  ))}
                </div>
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}
