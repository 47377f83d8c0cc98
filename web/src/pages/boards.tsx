/**
 * Work boards: every lane side by side (all of them fit), cards that move ← →, a new card in the
 * first lane, New board with its name, and a card that opens (/boards/<board>/<key>) to read and
 * change it: title, text, lane, priority, assignee, its activity and a comment. Changes made
 * anywhere (a model's tool call, another window) show without a reload.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put, sentence } from '../api';
import { Field, FormFoot, formError, type FormError } from '../fields';
import { useLive } from '../live';
import { navigate } from '../router';
import { epoch } from '../sync';
import { Action, Empty, ErrorLine, PageHead, Time } from '../ui';

const boardId = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 64);
const cardHref = (project: string, key: string) => `/boards/${encodeURIComponent(project)}/${encodeURIComponent(key)}`;

export function BoardsPage({ project: openProject, card }: { project?: string; card?: string }) {
  const boards = useSignal<any[]>([]);
  const error = useSignal<string | null>(null);
  const making = useSignal(false);
  const load = () => get<{ boards: any[] }>('/api/work').then((r) => ((boards.value = r.boards), (error.value = null)), (e) => (error.value = sentence(e)));
  useEffect(() => void load(), [epoch.value]);
  useLive((e) => e.kind === 'work.updated', load);
  const move = async (project: string, key: string, status: string) => {
    await put(`/api/work/${encodeURIComponent(project)}/${encodeURIComponent(key)}`, { status });
    await load();
  };
  return (
    <div class="page wide boards-page">
      <PageHead title="Boards">{!making.value && <button class="btn" onClick={() => (making.value = true)}>New board</button>}</PageHead>
      {making.value && (
        <NewBoard
          onDone={async () => {
            making.value = false;
            await load();
          }}
          onCancel={() => (making.value = false)}
        />
      )}
      <ErrorLine error={error.value} />
      {!boards.value.length && !making.value && <Empty>No boards yet. A board holds cards in lanes, for you and for agents (their tools move cards too).</Empty>}
      {boards.value.map((b) => {
        const lanes: string[] = (b.config?.lanes ?? []).map((l: { name: string }) => l.name);
        const project = b.project ?? b.name;
        return (
          <section key={project} class="board" data-board={project}>
            <h2>{b.config?.name ?? project}</h2>
            <NewCard project={project} kind={b.config?.kinds?.[0]?.name ?? 'task'} onDone={load} onError={(m) => (error.value = m)} />
            <div class="lanes" style={{ gridTemplateColumns: `repeat(${lanes.length}, minmax(190px, 1fr))` }}>
              {lanes.map((lane, li) => (
                <div class="lane" key={lane} data-lane={lane}>
                  <h3>
                    {lane} <span class="muted">{b.counts?.[lane] ?? ''}</span>
                  </h3>
                  {(b.items ?? []).filter((it: any) => it.status === lane).map((it: any) => (
                    <div class={`card item ${card === it.key && openProject === project ? 'focused' : ''}`} key={it.key} data-card={it.key}>
                      <a class="card-link" href={cardHref(project, it.key)}>
                        <span class="muted small">{it.key}</span>
                        <span class="card-title">{it.title}</span>
                      </a>
                      <div class="row">
                        {it.priority && <span class="badge">{it.priority}</span>}
                        {it.assignee && <span class="muted small">{it.assignee}</span>}
                        <span class="grow" />
                        {li > 0 && <Action title={`move to ${lanes[li - 1]}`} onClick={() => move(project, it.key, lanes[li - 1])}>←</Action>}
                        {li < lanes.length - 1 && <Action title={`move to ${lanes[li + 1]}`} onClick={() => move(project, it.key, lanes[li + 1])}>→</Action>}
                      </div>
                    </div>
                  ))}
                </div>
              ))}
            </div>
          </section>
        );
      })}
      {openProject && card && <CardPanel key={`${openProject}/${card}`} project={openProject} cardKey={card} board={boards.value.find((b) => (b.project ?? b.name) === openProject)} onClose={() => navigate('/boards')} />}
    </div>
  );
}

function NewCard({ project, kind, onDone, onError }: { project: string; kind: string; onDone: () => unknown; onError: (m: string) => void }) {
  const title = useSignal('');
  return (
    <form class="row" onSubmit={(e) => (e.preventDefault(), post(`/api/work/${encodeURIComponent(project)}`, { kind, title: title.value }).then(() => ((title.value = ''), onDone()), (err) => onError(sentence(err))))}>
      <input placeholder="New card title" aria-label={`new card on ${project}`} value={title.value} onInput={(e) => (title.value = (e.target as HTMLInputElement).value)} />
      <button class="btn" disabled={!title.value.trim()}>Add</button>
    </form>
  );
}

/** New board: its name (the board's id is made from it, and shown). */
function NewBoard({ onDone, onCancel }: { onDone: () => unknown; onCancel: () => void }) {
  const name = useSignal('');
  const error = useSignal<FormError | null>(null);
  const id = boardId(name.value);
  const create = async () => {
    error.value = null;
    try {
      await put(`/api/work/${encodeURIComponent(id || name.value)}`, { name: name.value.trim() });
      await onDone();
    } catch (e) {
      // The engine's sentence quotes the board name: it is about the name field.
      error.value = formError(e, ['name'], { [`"${id || name.value}"`]: 'name' });
    }
  };
  return (
    <form class="setup-form card" aria-label="New board" onSubmit={(e) => (e.preventDefault(), void create())}>
      <Field label="Board name" name="name" error={error.value} hint={id ? `Cards get keys like ${id.replace(/[^a-z0-9]/g, '').slice(0, 4).toUpperCase() || 'X'}-1; tools name the board "${id}".` : 'For example: Engine, Release 2.0, Home.'}>
        <input value={name.value} placeholder="Engine" onInput={(e) => (name.value = (e.target as HTMLInputElement).value)} autoFocus />
      </Field>
      <FormFoot error={error.value} />
      <div class="row">
        <Action kind="primary" disabled={!name.value.trim()} onClick={create}>Create board</Action>
        <button type="button" class="btn" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** One card, opened: read and change it, its activity, a comment. */
function CardPanel({ project, cardKey, board, onClose }: { project: string; cardKey: string; board?: any; onClose: () => void }) {
  const item = useSignal<any>(null);
  const draft = useSignal<{ title: string; body: string } | null>(null);
  const comment = useSignal('');
  const error = useSignal<string | null>(null);
  const note = useSignal<string | null>(null);
  const url = `/api/work/${encodeURIComponent(project)}/${encodeURIComponent(cardKey)}`;
  const load = () => get<{ item: any }>(url).then((r) => ((item.value = r.item), (error.value = null)), (e) => (error.value = sentence(e)));
  useEffect(() => void load(), [url]);
  useLive((e) => e.kind === 'work.updated' && e.project === project && (!e.key || e.key === cardKey), load);
  const change = async (patch: Record<string, unknown>) => {
    const r = await put<{ change: string; item: any }>(url, patch);
    item.value = { ...item.value, ...r.item };
    note.value = r.change;
  };
  const it = item.value;
  const d = draft.value ?? (it ? { title: it.title, body: it.body ?? '' } : null);
  const lanes: string[] = (board?.config?.lanes ?? []).map((l: { name: string }) => l.name);
  const priorities: string[] = board?.config?.priorities ?? [];
  return (
    <aside class="drawer" aria-label={`card ${cardKey}`}>
      <div class="drawer-head">
        <span class="muted small">{project} · {cardKey}</span>
        <button class="btn" onClick={onClose} aria-label="close the card">✕</button>
      </div>
      <ErrorLine error={error.value} />
      {it && d && (
        <>
          <input class="title-input" aria-label="card title" value={d.title} onInput={(e) => (draft.value = { ...d, title: (e.target as HTMLInputElement).value })} />
          <div class="form-cols">
            <label class="field">
              <span class="field-label">Lane</span>
              <select value={it.status} onChange={(e) => change({ status: (e.target as HTMLSelectElement).value }).catch((err) => (error.value = sentence(err)))}>
                {lanes.map((l) => <option value={l}>{l}</option>)}
              </select>
            </label>
            <label class="field">
              <span class="field-label">Priority</span>
              <select value={it.priority ?? ''} onChange={(e) => change({ priority: (e.target as HTMLSelectElement).value || null }).catch((err) => (error.value = sentence(err)))}>
                <option value="">none</option>
                {priorities.map((p) => <option value={p}>{p}</option>)}
              </select>
            </label>
            <label class="field">
              <span class="field-label">Assignee</span>
              <input value={it.assignee ?? ''} placeholder="nobody" onChange={(e) => change({ assignee: (e.target as HTMLInputElement).value.trim() || null }).catch((err) => (error.value = sentence(err)))} />
            </label>
          </div>
          <label class="field">
            <span class="field-label">Text</span>
            <textarea rows={8} aria-label="card text" value={d.body} placeholder="What needs doing, how to know it is done…" onInput={(e) => (draft.value = { ...d, body: (e.target as HTMLTextAreaElement).value })} />
          </label>
          <div class="row">
            <Action kind="primary" disabled={!draft.value} onClick={async () => (await change({ title: d.title, body: d.body }), (draft.value = null))} onError={(m) => (error.value = m)}>Save</Action>
            {note.value && <span class="muted small" role="status">{note.value}</span>}
          </div>
          <h3>Activity</h3>
          <ul class="activity">
            {(it.activity ?? []).map((line: string) => <ActivityLine line={line} />)}
          </ul>
          <form class="row" onSubmit={(e) => (e.preventDefault(), post<{ item: any }>(`${url}/comment`, { text: comment.value }).then((r) => ((item.value = r.item), (comment.value = '')), (err) => (error.value = sentence(err))))}>
            <input class="grow-input" placeholder="Add a comment" value={comment.value} onInput={(e) => (comment.value = (e.target as HTMLInputElement).value)} />
            <button class="btn" disabled={!comment.value.trim()}>Comment</button>
          </form>
        </>
      )}
    </aside>
  );
}

/** An activity line (`2026-12-02T00:06:15Z person: moved to Todo`) with its time as a person reads it. */
function ActivityLine({ line }: { line: string }) {
  const m = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)\s+(.*)$/s.exec(line);
  return <li>{m ? <><Time ts={m[1]} /> · {m[2]}</> : line}</li>;
}
