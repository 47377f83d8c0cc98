/**
 * Files and git: the tree of the workspace and the mounts, a file's text with save, search, one
 * root's git status, diff and commit, checkpoints with revert, and mounting a folder through the
 * operating system's picker (POST /api/pick-folder) or a typed path.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError, encPath, get, post, put, sentence } from '../api';
import { epoch, onEvent } from '../sync';
import { Action, Empty, ErrorLine, PageHead } from '../ui';
import { CheckpointList } from './checkpoints';

interface Tree {
  mounts: { name: string; path: string }[];
  files: { path: string; size: number }[];
  warnings?: string[];
}

export function FilesPage({ file }: { file?: string }) {
  const tree = useSignal<Tree>({ mounts: [], files: [] });
  const error = useSignal<string | null>(null);
  const tick = useSignal(0);
  const filter = useSignal('');
  const tab = useSignal<'files' | 'search' | 'git'>('files');
  useEffect(() => onEvent((e) => void ((e.kind === 'fs.changed' || e.kind === 'file.written' || e.kind === 'mounts.changed') && tick.value++)), []);
  useEffect(() => {
    get<Tree>('/api/files').then((t) => ((tree.value = t), (error.value = null)), (e) => (error.value = sentence(e)));
  }, [epoch.value, tick.value]);
  const shown = filter.value ? tree.value.files.filter((f) => f.path.toLowerCase().includes(filter.value.toLowerCase())) : tree.value.files;
  return (
    <div class="split">
      <div class="list-pane">
        <PageHead title="Files">
          <MountButton onDone={() => tick.value++} />
        </PageHead>
        <div class="seg wide" role="tablist">
          {(['files', 'search', 'git'] as const).map((t) => (
            <button class={tab.value === t ? 'on' : ''} onClick={() => (tab.value = t)}>
              {t}
            </button>
          ))}
        </div>
        <ErrorLine error={error.value} />
        {tab.value !== 'search' && (
          <>
            <input class="filter" placeholder="Filter files" value={filter.value} onInput={(e) => (filter.value = (e.target as HTMLInputElement).value)} />
            {filter.value ? (
              <div class="file-list">
                {shown.slice(0, 1500).map((f) => (
                  <a key={f.path} href={`/files/${encPath(f.path)}`} class={`file ${f.path === file ? 'active' : ''}`} title={f.path}>
                    {f.path}
                  </a>
                ))}
                {!shown.length && <div class="muted pad">No files match.</div>}
              </div>
            ) : (
              <FileTree tree={tree.value} current={file} />
            )}
          </>
        )}
        {tab.value === 'search' && <Search />}
      </div>
      <div class="detail-pane">
        {tab.value === 'git' ? <GitPanel mounts={tree.value.mounts} /> : file ? <Editor key={file} path={file} /> : <Empty>Pick a file to view or edit it.</Empty>}
      </div>
    </div>
  );
}

interface Folder {
  name: string;
  path: string;
  folders: Map<string, Folder>;
  files: string[];
}

/** The flat file list as folders: the workspace, then each mount; folders open on click. */
function FileTree({ tree, current }: { tree: Tree; current?: string }) {
  // Roots, and the folders holding the open file, start open, other folders closed; a click flips
  // one (flipped keys are kept, not open ones, so a new mount starts open).
  const flipped = useSignal<Set<string>>(new Set());
  const mounts = new Set(tree.mounts.map((m) => m.name));
  const roots = new Map<string, Folder>();
  const folder = (parent: Folder | undefined, name: string, p: string): Folder => {
    const map = parent ? parent.folders : roots;
    let f = map.get(name);
    if (!f) map.set(name, (f = { name, path: p, folders: new Map(), files: [] }));
    return f;
  };
  folder(undefined, 'workspace', '');
  for (const m of tree.mounts) folder(undefined, m.name, m.name);
  for (const { path } of tree.files) {
    const parts = path.split('/');
    const inMount = parts.length > 1 && mounts.has(parts[0]);
    let at = inMount ? roots.get(parts[0])! : roots.get('workspace')!;
    for (let i = inMount ? 1 : 0; i < parts.length - 1; i++) at = folder(at, parts[i], parts.slice(0, i + 1).join('/'));
    at.files.push(path);
  }
  const along = new Set<string>();
  if (current) {
    const parts = current.split('/');
    for (let i = 1; i < parts.length; i++) along.add(parts.slice(0, i).join('/'));
  }
  const toggle = (key: string) => {
    const next = new Set(flipped.value);
    if (!next.delete(key)) next.add(key);
    flipped.value = next;
  };
  const draw = (f: Folder, key: string, depth: number): preact.ComponentChildren => {
    const shown = (depth === 0 || along.has(key)) !== flipped.value.has(key);
    return (
    <div key={key}>
      <button class="folder" style={{ paddingLeft: 12 + depth * 14 }} onClick={() => toggle(key)} aria-expanded={shown}>
        <span class="caret">{shown ? '▾' : '▸'}</span> {f.name}
        {depth === 0 && mounts.has(f.name) && <span class="muted small"> mount</span>}
      </button>
      {shown && (
        <>
          {[...f.folders.values()].sort((a, b) => a.name.localeCompare(b.name)).map((c) => draw(c, c.path, depth + 1))}
          {f.files.sort().map((p) => (
            <a key={p} href={`/files/${encPath(p)}`} class={`file ${p === current ? 'active' : ''}`} style={{ paddingLeft: 26 + (depth + 1) * 14 }} title={p}>
              {p.split('/').pop()}
            </a>
          ))}
        </>
      )}
    </div>
    );
  };
  return <div class="file-list tree">{[...roots.values()].map((r) => draw(r, r.name === 'workspace' ? 'workspace' : r.name, 0))}</div>;
}

function MountButton({ onDone }: { onDone: () => void }) {
  const error = useSignal<string | null>(null);
  const typed = useSignal('');
  const asking = useSignal(false);
  const mount = async (path: string) => {
    await post('/api/mounts', { path });
    typed.value = '';
    asking.value = false;
    onDone();
  };
  return (
    <span class="mount">
      <Action
        onClick={async () => {
          error.value = null;
          const r = await post<{ path?: string; canceled?: boolean; reason?: string }>('/api/pick-folder');
          if (r.path) await mount(r.path);
          else if (r.reason) ((error.value = r.reason), (asking.value = true));
        }}
        onError={(m) => ((error.value = m), (asking.value = true))}
      >
        Mount folder…
      </Action>
      {asking.value && (
        <span class="row">
          <input placeholder="/absolute/folder/path" value={typed.value} onInput={(e) => (typed.value = (e.target as HTMLInputElement).value)} />
          <Action onClick={() => mount(typed.value)} onError={(m) => (error.value = m)}>Mount</Action>
        </span>
      )}
      <ErrorLine error={error.value} />
    </span>
  );
}

function Editor({ path }: { path: string }) {
  const text = useSignal<string | null>(null);
  const saved = useSignal('');
  const error = useSignal<string | null>(null);
  const entries = useSignal<{ name: string; dir: boolean }[] | null>(null);
  const note = useSignal('');
  useEffect(() => {
    get<{ content?: string; entries?: { name: string; dir: boolean }[] }>(`/api/files/${encPath(path)}`).then(
      (r) => {
        if (r.entries) entries.value = r.entries;
        else text.value = saved.value = r.content ?? '';
      },
      (e) => (error.value = sentence(e)),
    );
  }, [path]);
  const dirty = text.value !== null && text.value !== saved.value;
  const save = async () => {
    const content = text.value ?? '';
    await put(`/api/files/${encPath(path)}`, { content });
    saved.value = content;
    note.value = `saved ${new Date().toLocaleTimeString()}`;
  };
  return (
    <div class="page editor">
      <PageHead title={path}>
        {note.value && <span class="muted small" data-saved>{note.value}</span>}
        {text.value !== null && <Action kind="primary" onClick={save} disabled={!dirty} onError={(m) => (error.value = m)}>Save</Action>}
      </PageHead>
      <ErrorLine error={error.value} />
      {entries.value && (
        <div class="file-list">
          {entries.value.map((e) => (
            <a href={`/files/${encPath(`${path}/${e.name}`)}`} class="file">{e.name}{e.dir ? '/' : ''}</a>
          ))}
        </div>
      )}
      {text.value !== null && (
        <textarea
          class="code editor-text"
          spellcheck={false}
          value={text.value}
          aria-label="file text"
          onInput={(e) => (text.value = (e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if ((e.ctrlKey || e.metaKey) && e.key === 's') {
              e.preventDefault();
              save().catch((err) => (error.value = sentence(err)));
            }
          }}
        />
      )}
    </div>
  );
}

function Search() {
  const q = useSignal('');
  const results = useSignal<{ path: string; matches: { line: number; text: string }[] }[]>([]);
  const error = useSignal<string | null>(null);
  const run = async () => {
    error.value = null;
    try {
      results.value = (await get<{ results: any[] }>(`/api/search?q=${encodeURIComponent(q.value)}`)).results;
    } catch (e) {
      error.value = sentence(e);
    }
  };
  return (
    <div>
      <form class="row" onSubmit={(e) => (e.preventDefault(), void run())}>
        <input placeholder="Search text" value={q.value} onInput={(e) => (q.value = (e.target as HTMLInputElement).value)} />
        <button class="btn">Search</button>
      </form>
      <ErrorLine error={error.value} />
      {results.value.map((r) => (
        <div key={r.path} class="search-hit">
          <a href={`/files/${encPath(r.path)}`}>{r.path}</a>
          {r.matches.slice(0, 5).map((m) => (
            <div class="mono small muted">
              {m.line}: {m.text}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

function GitPanel({ mounts }: { mounts: { name: string }[] }) {
  const root = useSignal('workspace');
  const st = useSignal<any>(null);
  const diff = useSignal('');
  const error = useSignal<string | null>(null);
  const message = useSignal('');
  const tick = useSignal(0);
  useEffect(() => {
    error.value = null;
    const r = encodeURIComponent(root.value);
    get(`/api/git/status?root=${r}`).then(
      (s) => (st.value = s),
      (e) => {
        st.value = null;
        // The engine's sentence for API clients names a route; a person needs what to do.
        error.value = e instanceof ApiError && e.status === 404 && /not a git repository/.test(e.message) ? `${root.value === 'workspace' ? 'The workspace' : `"${root.value}"`} is not a git repository: run git init in it to track its changes here.` : sentence(e);
      },
    );
    get<{ diff?: string } | string>(`/api/git/contextual-diff?root=${r}`).then((d) => (diff.value = typeof d === 'string' ? d : (d.diff ?? '')), () => (diff.value = ''));
  }, [root.value, tick.value, epoch.value]);
  const s = st.value;
  const changed = s ? [...(s.staged ?? []), ...(s.unstaged ?? []), ...(s.untracked ?? [])] : [];
  return (
    <div class="page git">
      <PageHead title="Git" />
      <select value={root.value} onChange={(e) => (root.value = (e.target as HTMLSelectElement).value)} aria-label="root">
        <option value="workspace">workspace</option>
        {mounts.map((m) => (
          <option value={m.name}>{m.name}</option>
        ))}
      </select>
      <ErrorLine error={error.value} />
      {s && (
        <>
          <div class="small">
            branch <strong>{s.branch ?? '(none)'}</strong> {s.ahead ? `↑${s.ahead}` : ''} {s.behind ? `↓${s.behind}` : ''}
          </div>
          {changed.map((c: any) => {
            const p = typeof c === 'string' ? c : c.path;
            return (
              <div class="small mono" key={p}>
                {typeof c === 'string' ? '?' : (c.status ?? c.index ?? '')} {p}
              </div>
            );
          })}
          {!changed.length && <div class="muted small">Clean.</div>}
          <textarea rows={2} placeholder="Commit message" value={message.value} onInput={(e) => (message.value = (e.target as HTMLTextAreaElement).value)} />
          <Action kind="primary" disabled={!message.value.trim() || !changed.length} onClick={async () => (await post('/api/git/commit', { root: root.value, message: message.value }), (message.value = ''), tick.value++)}>
            Commit
          </Action>
        </>
      )}
      {diff.value && <pre class="diff" data-diff>{diff.value.split('\n').map((l) => <div class={l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : ''}>{l || ' '}</div>)}</pre>}
      <h3>Checkpoints</h3>
      <CheckpointList />
    </div>
  );
}
