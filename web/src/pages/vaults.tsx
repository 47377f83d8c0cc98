/**
 * Vaults: notes with their links and backlinks (each opens the note), search, the inbox with Accept
 * and Reject, and Capture (the model files pasted text into the inbox; the page says when it did).
 * Notes written elsewhere (a model, another window, the file on disk) show without a reload.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put, sentence } from '../api';
import { useLive } from '../live';
import { epoch, onEvent } from '../sync';
import { Action, Empty, ErrorLine, PageHead, short } from '../ui';

interface Meta {
  path: string;
  name: string;
  type?: string;
  folder?: string;
  inbox?: boolean;
  links?: { target: string; resolution?: { status: string; path?: string } }[];
  backlinks?: string[];
}

/** The note's name from its path (`history/people/ada.md` -> ada). */
const nameOf = (p: string) => p.split('/').pop()!.replace(/\.md$/, '');

export function VaultsPage() {
  const vaults = useSignal<any[]>([]);
  const current = useSignal<string | null>(null);
  const index = useSignal<{ notes: Meta[] } | null>(null);
  const note = useSignal<{ path: string; content: string; meta?: Meta; saved?: boolean } | null>(null);
  const q = useSignal('');
  const hits = useSignal<any[] | null>(null);
  const error = useSignal<string | null>(null);
  const making = useSignal(false);
  const fail = (e: unknown) => (error.value = sentence(e));
  const loadVaults = () => get<any[]>('/api/vaults').then((v) => ((vaults.value = v), !current.value && v[0] && (current.value = v[0].name)), fail);
  const loadIndex = () => (current.value ? get(`/api/vaults/${encodeURIComponent(current.value)}/index`).then((i) => (index.value = i), fail) : undefined);
  useEffect(() => void loadVaults(), [epoch.value]);
  useEffect(() => void loadIndex(), [current.value, epoch.value]);
  useLive((e) => e.kind === 'vaults.changed', loadVaults);
  // A note written, moved or deleted in this vault (by anyone), or a capture that filed notes.
  const inVault = (p: unknown) => typeof p === 'string' && !!current.value && p.startsWith(`${current.value}/`);
  useLive((e) => (/^(file|folder)\./.test(e.kind) && (inVault(e.path) || inVault(e.to))) || (e.kind === 'fs.changed' && (e.paths ?? []).some(inVault)) || (e.kind === 'vault.captured' && e.vault === current.value), loadIndex);
  const v = current.value ? encodeURIComponent(current.value) : '';
  const open = (path: string) => get<any>(`/api/vaults/${v}/note?path=${encodeURIComponent(path)}`).then((n) => (note.value = { path: n.note ?? path, content: n.content ?? '', meta: n.meta }), fail);
  const notes = index.value?.notes ?? [];
  const inbox = notes.filter((n) => n.inbox);
  const filed = notes.filter((n) => !n.inbox);
  const decide = async (n: Meta, how: 'accept' | 'reject') => {
    if (how === 'reject' && !confirm(`Reject "${n.name}"? The inbox note is deleted.`)) return;
    await post(`/api/vaults/${v}/inbox/${how}`, { file: n.path });
    if (note.value?.path === n.path) note.value = null;
    await loadIndex();
  };
  return (
    <div class={`split ${note.value ? 'has-detail' : ''}`}>
      <div class="list-pane">
        <PageHead title="Vaults">{vaults.value.length > 0 && !making.value && <button class="btn" onClick={() => (making.value = true)}>New vault</button>}</PageHead>
        {(making.value || !vaults.value.length) && (
          <NewVault
            onDone={(name) => {
              making.value = false;
              current.value = name;
              void loadVaults();
            }}
          />
        )}
        <ErrorLine error={error.value} />
        {!vaults.value.length && <Empty>No vaults yet: make a folder of notes a vault above.</Empty>}
        {vaults.value.length > 1 && (
          <select value={current.value ?? ''} aria-label="vault" onChange={(e) => ((current.value = (e.target as HTMLSelectElement).value), (note.value = null), (hits.value = null))}>
            {vaults.value.map((x) => <option value={x.name}>{x.name}</option>)}
          </select>
        )}
        {current.value && (
          <>
            <form class="row" onSubmit={(e) => (e.preventDefault(), q.value.trim() ? get(`/api/vaults/${v}/search?q=${encodeURIComponent(q.value)}`).then((r) => (hits.value = r.results), fail) : (hits.value = null))}>
              <input class="grow-input" placeholder="Search notes" value={q.value} onInput={(e) => ((q.value = (e.target as HTMLInputElement).value), !q.value && (hits.value = null))} />
            </form>
            {!hits.value && inbox.length > 0 && (
              <div class="inbox" data-inbox>
                <div class="muted small section-title pad">Inbox ({inbox.length}): accept files a note into its folder</div>
                {inbox.map((n) => (
                  <div class="inbox-item" key={n.path} data-note={n.path}>
                    <a href="#" class="grow wrap" onClick={(e) => (e.preventDefault(), void open(n.path))}>{n.name}</a>
                    <Action onClick={() => decide(n, 'accept')} onError={(m) => (error.value = m)}>Accept</Action>
                    <Action kind="danger" onClick={() => decide(n, 'reject')} onError={(m) => (error.value = m)}>Reject</Action>
                  </div>
                ))}
              </div>
            )}
            {!hits.value && filed.length > 0 && inbox.length > 0 && <div class="muted small section-title pad">Notes</div>}
            {(hits.value ?? filed).map((n: any) => (
              <a class={`list-item ${note.value?.path === (n.path ?? n.file) ? 'active' : ''}`} href="#" onClick={(e) => (e.preventDefault(), void open(n.path ?? n.file))}>
                <span class="grow">
                  <span class="item-title wrap">{n.name ?? n.title ?? nameOf(n.path)}</span>
                  {n.snippet ? <span class="muted small">{short(n.snippet, 100)}</span> : n.folder ? <span class="muted small">{n.folder}</span> : null}
                </span>
              </a>
            ))}
            {hits.value && !hits.value.length && <div class="muted pad">No note matches.</div>}
          </>
        )}
      </div>
      <div class="detail-pane">
        {current.value && <Capture vault={current.value} />}
        {note.value ? (
          <div class="page">
            <PageHead title={nameOf(note.value.path)}>
              {note.value.saved && <span class="muted small" data-saved>saved</span>}
              <Action kind="primary" onClick={async () => (await put(`/api/vaults/${v}/note?path=${encodeURIComponent(note.value!.path)}`, { content: note.value!.content }), (note.value = { ...note.value!, saved: true }))} onError={(m) => (error.value = m)}>Save</Action>
            </PageHead>
            <div class="muted small wrap">{note.value.path}{note.value.meta?.inbox ? ' · in the inbox' : ''}</div>
            <textarea class="code editor-text" aria-label="note text" value={note.value.content} onInput={(e) => (note.value = { ...note.value!, content: (e.target as HTMLTextAreaElement).value, saved: false })} />
            <NoteLinks meta={note.value.meta} open={open} />
          </div>
        ) : (
          <Empty>Pick a note.</Empty>
        )}
      </div>
    </div>
  );
}

/** The note's links and backlinks, each a link that opens the note; links to notes not written yet say so. */
function NoteLinks({ meta, open }: { meta?: Meta; open: (path: string) => unknown }) {
  const links = meta?.links ?? [];
  const backlinks = meta?.backlinks ?? [];
  const go = (p: string) => (e: Event) => (e.preventDefault(), void open(p));
  return (
    <div class="note-links small">
      {links.length > 0 && (
        <div>
          Links:{' '}
          {links.map((l) =>
            l.resolution?.status === 'resolved' && l.resolution.path ? (
              <a href="#" class="chip" onClick={go(l.resolution.path)}>{nameOf(l.resolution.path)}</a>
            ) : (
              <span class="chip muted" title="no note has this name yet">{l.target}</span>
            ),
          )}
        </div>
      )}
      {backlinks.length > 0 && (
        <div>
          Backlinks:{' '}
          {backlinks.map((b) => (
            <a href="#" class="chip" onClick={go(b)}>{nameOf(b)}</a>
          ))}
        </div>
      )}
    </div>
  );
}

/** Capture: the model files the text into the inbox; the page follows its run and says what it filed. */
function Capture({ vault }: { vault: string }) {
  const text = useSignal('');
  const state = useSignal<{ runId: string; note: string; error?: boolean } | null>(null);
  useEffect(
    () =>
      onEvent((e) => {
        const s = state.value;
        if (!s || e.runId !== s.runId) return;
        if (e.kind === 'vault.captured') {
          const filed = (e.files as string[]).map(nameOf);
          const parts = [filed.length ? `Filed into the inbox: ${filed.join(', ')}.` : 'Nothing was filed.'];
          if (e.duplicates?.length) parts.push(`Already there: ${e.duplicates.map((d: any) => d.name).join(', ')}.`);
          if (e.errors?.length) parts.push(`Problems: ${e.errors.join('; ')}`);
          state.value = { ...s, note: parts.join(' '), error: !filed.length && !!e.errors?.length };
        } else if (e.kind === 'run.failed' && !/Problems:|Filed/.test(s.note)) state.value = { ...s, note: `The capture failed: ${e.error ?? 'no reason given'}`, error: true };
      }),
    [],
  );
  return (
    <div class="card capture">
      <textarea rows={2} aria-label="text to capture" placeholder="Capture: paste text, the model files it into the inbox as notes" value={text.value} onInput={(e) => (text.value = (e.target as HTMLTextAreaElement).value)} />
      <div class="row">
        <Action
          onClick={async () => {
            state.value = null;
            const r = await post<{ runId: string }>(`/api/vaults/${encodeURIComponent(vault)}/capture`, { text: text.value });
            state.value = { runId: r.runId, note: 'Capturing: the model is filing it into the inbox…' };
            text.value = '';
          }}
          disabled={!text.value.trim()}
        >
          Capture
        </Action>
        {state.value && (
          <span class={`small ${state.value.error ? 'error' : 'muted'}`} role="status" data-capture>
            {state.value.note} <a href={`/runs/${encodeURIComponent(state.value.runId)}`}>the run</a>
          </span>
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
