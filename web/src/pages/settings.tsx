/**
 * Settings: providers with the test button, secrets by name only, MCP servers and their status,
 * the sandbox, phone push, permission rules, local models with download progress, the browser bridge.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { del, get, post, put, sentence } from '../api';
import { useLive } from '../live';
import { epoch, onEvent } from '../sync';
import { Action, ErrorLine, PageHead } from '../ui';
import { McpForm } from './mcp-form';
import { PhoneRelay } from './phone-relay';

const TYPES = ['openai-compatible', 'openai', 'anthropic'];

const SECTIONS: [string, string][] = [
  ['providers', 'Providers'],
  ['secrets', 'Secrets'],
  ['mcp', 'MCP servers'],
  ['browser', 'Browser'],
  ['sandbox', 'Sandbox'],
  ['push', 'Phone push'],
  ['permissions', 'Permissions'],
  ['phone', 'Phone'],
  ['models', 'Local models'],
];

export function SettingsPage() {
  // /settings#mcp opens at that section (a link from elsewhere, or a reload).
  useEffect(() => {
    if (location.hash) setTimeout(() => document.getElementById(location.hash.slice(1))?.scrollIntoView(), 300);
  }, []);
  return (
    <div class="page">
      <PageHead title="Settings" />
      <nav class="section-nav" aria-label="settings sections">
        {SECTIONS.map(([id, label]) => (
          <a href={`#${id}`} onClick={(e) => (e.preventDefault(), history.replaceState(null, '', `#${id}`), document.getElementById(id)?.scrollIntoView({ behavior: 'smooth' }))}>
            {label}
          </a>
        ))}
      </nav>
      <Providers />
      <Secrets />
      <Mcp />
      <Browser />
      <Sandbox />
      <PhonePush />
      <Permissions />
      <PhoneRelay />
      <Models />
    </div>
  );
}

function useLoad<T>(path: string, deps: unknown[] = []) {
  const data = useSignal<T | null>(null);
  const error = useSignal<string | null>(null);
  const reload = () => get<T>(path).then((d) => ((data.value = d), (error.value = null)), (e) => (error.value = sentence(e)));
  useEffect(() => void reload(), [epoch.value, ...deps]);
  return { data, error, reload };
}

function Providers() {
  const { data, error, reload } = useLoad<{ providers: any[]; defaultProvider: string | null }>('/api/config');
  useLive((e) => e.kind === 'config.updated' || e.kind === 'config.reloaded', reload);
  const form = useSignal({ type: 'openai-compatible', name: '', baseUrl: 'http://127.0.0.1:11434/v1', model: '', newKey: '' });
  const test = useSignal<Record<string, string>>({});
  const providers = data.value?.providers ?? [];
  const save = async (list: any[], def?: string | null) => {
    await put('/api/config', { providers: list, defaultProvider: def ?? data.value?.defaultProvider ?? list[0]?.name ?? null });
    await reload();
  };
  const f = form.value;
  const set = (k: string) => (e: Event) => (form.value = { ...form.value, [k]: (e.target as HTMLInputElement).value });
  return (
    <section class="card" id="providers">
      <h2>Providers</h2>
      <ErrorLine error={error.value} />
      {providers.map((p) => (
        <div class="row provider" key={p.name}>
          <span class="grow">
            <strong>{p.name}</strong> <span class="muted small">{p.type} · {p.model} · {p.baseUrl ?? 'default URL'} · {p.hasKey ? 'key stored' : 'no key'}</span>
            {data.value?.defaultProvider === p.name && <span class="badge">default</span>}
          </span>
          {test.value[p.name] && <span class="small">{test.value[p.name]}</span>}
          <Action onClick={async () => {
            const r = await post<any>('/api/test-provider', { type: p.type, baseUrl: p.baseUrl, model: p.model, name: p.name });
            test.value = { ...test.value, [p.name]: r.ok ? `ok in ${r.latencyMs} ms` : `failed: ${r.error}` };
          }}>Test</Action>
          {data.value?.defaultProvider !== p.name && <Action onClick={() => save(providers, p.name)}>Make default</Action>}
          <Action kind="danger" onClick={() => save(providers.filter((x) => x.name !== p.name))}>Remove</Action>
        </div>
      ))}
      <div class="form-grid">
        <select value={f.type} onChange={set('type')} aria-label="type">{TYPES.map((t) => <option value={t}>{t}</option>)}</select>
        <input placeholder="name" value={f.name} onInput={set('name')} aria-label="name" />
        <input placeholder="base URL" value={f.baseUrl} onInput={set('baseUrl')} aria-label="base URL" />
        <input placeholder="model" value={f.model} onInput={set('model')} aria-label="model" />
        <input placeholder="API key (stored as a secret)" type="password" value={f.newKey} onInput={set('newKey')} aria-label="API key" />
      </div>
      <div class="row">
        <Action onClick={async () => {
          const r = await post<any>('/api/test-provider', { type: f.type, baseUrl: f.baseUrl || undefined, model: f.model, ...(f.newKey ? { newKey: f.newKey } : {}) });
          test.value = { ...test.value, new: r.ok ? `ok in ${r.latencyMs} ms: ${r.reply ?? ''}` : `failed: ${r.error}` };
        }}>Test</Action>
        <Action kind="primary" onClick={async () => {
          const entry: any = { type: f.type, name: f.name || f.type, model: f.model, ...(f.baseUrl ? { baseUrl: f.baseUrl } : {}), ...(f.newKey ? { newKey: f.newKey } : {}) };
          await save([...providers.filter((x) => x.name !== entry.name), entry], data.value?.defaultProvider ?? entry.name);
          form.value = { ...f, name: '', model: '', newKey: '' };
        }}>Add provider</Action>
        {test.value.new && <span class="small">{test.value.new}</span>}
      </div>
    </section>
  );
}

/**
 * Secrets by name (never a value). The engine's own (a provider's key, the browser pairing, a
 * connection's password) are listed read-only with what uses them: they change where they belong.
 */
function Secrets() {
  const { data, error, reload } = useLoad<{ names: string[]; backend: string; usedBy?: Record<string, string> }>('/api/secrets');
  useLive((e) => e.kind === 'secrets.changed', reload);
  const name = useSignal('');
  const value = useSignal('');
  const usedBy = data.value?.usedBy ?? {};
  const mine = data.value?.names.filter((n) => !usedBy[n]) ?? [];
  const kept = data.value?.names.filter((n) => usedBy[n]) ?? [];
  return (
    <section class="card" id="secrets">
      <h2>Secrets <span class="muted small">({data.value?.backend === 'keychain' ? 'in the system keychain' : 'in an encrypted file in the engine home'})</span></h2>
      <p class="muted small">Tools, MCP servers and workflows read a secret by its name ({'{{secret:name}}'}); no page or answer ever shows its value.</p>
      <ErrorLine error={error.value} />
      {!mine.length && <div class="muted small">None of your own yet.</div>}
      {mine.map((n) => (
        <div class="row" key={n} data-secret={n}>
          <code class="grow wrap">{n}</code>
          <Action kind="danger" onClick={async () => (await del(`/api/secrets/${encodeURIComponent(n)}`), reload())}>Delete</Action>
        </div>
      ))}
      <div class="row">
        <input placeholder="name, e.g. github.token" aria-label="secret name" value={name.value} onInput={(e) => (name.value = (e.target as HTMLInputElement).value)} />
        <input placeholder="value" aria-label="secret value" type="password" value={value.value} onInput={(e) => (value.value = (e.target as HTMLInputElement).value)} />
        <Action onClick={async () => (await post('/api/secrets', { name: name.value, value: value.value }), (name.value = value.value = ''), reload())}>Store</Action>
      </div>
      {kept.length > 0 && (
        <div class="kept">
          <div class="small muted">Kept by the engine itself: change them where they are used.</div>
          {kept.map((n) => (
            <div class="row small" key={n} data-secret={n}>
              <code class="wrap">{n}</code>
              <span class="muted">used by {usedBy[n]}</span>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** MCP servers: each with its state and tools, enabled or not, removable; Add server opens the form. */
function Mcp() {
  const { data, error, reload } = useLoad<{ servers: Record<string, any>; status: Record<string, any>; authUrls: Record<string, string> }>('/api/mcp');
  useLive((e) => e.kind === 'mcp.status' || e.kind === 'mcp.updated', reload);
  const adding = useSignal(false);
  const note = useSignal<string | null>(null);
  const servers = data.value?.servers ?? {};
  const names = Object.keys(servers);
  const remove = async (n: string) => {
    if (!confirm(`Remove the MCP server "${n}"? Its tools leave every chat and agent.`)) return;
    const { [n]: _gone, ...rest } = servers;
    await put('/api/mcp', { servers: rest });
    await reload();
  };
  return (
    <section class="card" id="mcp">
      <div class="card-title">
        <h2>MCP servers</h2>
        {!adding.value && <button class="btn" onClick={() => ((adding.value = true), (note.value = null))}>Add server</button>}
      </div>
      <ErrorLine error={error.value} />
      {note.value && <div class="ok-line" role="status">{note.value}</div>}
      {adding.value && <McpForm onAdded={async (text) => ((adding.value = false), (note.value = text), await reload())} onCancel={() => (adding.value = false)} />}
      {!names.length && !adding.value && <div class="muted small">None yet. Add one to give chats and agents its tools.</div>}
      {names.map((n) => {
        const st = data.value!.status[n] ?? {};
        const enabled = servers[n].enabled !== false;
        return (
          <div class="row server" key={n} data-server={n}>
            <span class="grow">
              <strong class="wrap">{n}</strong>
              <span class="muted small wrap">{servers[n].url ?? [servers[n].command, ...(servers[n].args ?? [])].join(' ')}</span>
              <span class={`small ${st.state === 'failed' ? 'error' : ''}`} data-state={st.state}>{mcpState(st, enabled)}</span>
            </span>
            {data.value!.authUrls[n] && <a class="btn" href={data.value!.authUrls[n]} target="_blank" rel="noreferrer">Sign in</a>}
            <label class="small">
              <input type="checkbox" checked={enabled} onChange={(e) => post(`/api/mcp/${encodeURIComponent(n)}/toggle`, { enabled: (e.target as HTMLInputElement).checked }).then(reload, (err) => (error.value = sentence(err)))} /> enabled
            </label>
            <Action kind="danger" onClick={() => remove(n)}>Remove</Action>
          </div>
        );
      })}
    </section>
  );
}

/** A server's state in words. */
function mcpState(st: { state?: string; tools?: unknown[]; error?: string }, enabled: boolean): string {
  if (!enabled) return 'disabled';
  switch (st.state) {
    case 'connected':
      return `connected · ${st.tools?.length ?? 0} tools`;
    case 'connecting':
      return 'connecting…';
    case 'needs-auth':
      return 'needs you to sign in';
    case 'failed':
      return `cannot connect: ${st.error ?? 'no reason given'}`;
    default:
      return st.state ?? '';
  }
}

/** The browser bridge: whether the extension is connected, and the folder to load once (it pairs by itself). */
function Browser() {
  const { data, error, reload } = useLoad<{ connected: boolean; extensionPath: string; extensionId: string; client?: { version: string; userAgent: string } }>('/api/browser');
  useEffect(() => onEvent((e) => void (/^browser\.(connected|disconnected)$/.test(e.kind) && reload())), []);
  const b = data.value;
  return (
    <section class="card browser-card" id="browser" data-browser={b?.connected ? 'connected' : 'disconnected'}>
      <h2>Browser</h2>
      <ErrorLine error={error.value} />
      {b && (
        <>
          <div class="row">
            <span class="grow">
              <span>
                <span class={`dot ${b.connected ? 'live' : ''}`} />
                {b.connected ? `Connected${b.client ? ` (extension ${b.client.version})` : ''}: the browser tools can drive your tabs.` : 'Not connected: the browser tools answer "not connected".'}
              </span>
            </span>
            <Action onClick={async () => (await post('/api/browser/token/rotate', {}), reload())}>Rotate token</Action>
          </div>
          {!b.connected && (
            <p class="small muted">
              Once, in Chrome or Chromium: open chrome://extensions, turn on Developer mode, choose Load unpacked and pick this folder. It pairs by itself; nothing to type.
            </p>
          )}
          <div class="row small">
            <span class="muted">Folder</span> <code class="grow">{b.extensionPath}</code>
            <Action onClick={() => navigator.clipboard?.writeText(b.extensionPath)}>Copy</Action>
          </div>
          <div class="row small">
            <span class="muted">Extension id</span> <code class="grow">{b.extensionId}</code>
          </div>
        </>
      )}
    </section>
  );
}

function Sandbox() {
  const { data, error, reload } = useLoad<any>('/api/settings');
  const sb = data.value?.sandbox;
  if (!sb) return <ErrorLine error={error.value} />;
  return (
    <section class="card" id="sandbox">
      <h2>Sandbox</h2>
      <ErrorLine error={error.value} />
      <div class="seg" role="group" aria-label="sandbox mode">
        {['workspace-write', 'read-only', 'off'].map((m) => (
          <button class={sb.mode === m ? 'on' : ''} onClick={() => put('/api/settings', { sandbox: { ...sb, mode: m } }).then(reload, (e) => (error.value = sentence(e)))}>{m}</button>
        ))}
      </div>
      <label class="row small">
        <input type="checkbox" checked={sb.network} onChange={(e) => put('/api/settings', { sandbox: { ...sb, network: (e.target as HTMLInputElement).checked } }).then(reload, (err) => (error.value = sentence(err)))} /> commands may use the network
      </label>
    </section>
  );
}

/** The VAPID subject phone pushes are sent under (docs/push.md): none is sent until it is set. */
function PhonePush() {
  const { data, error, reload } = useLoad<any>('/api/settings');
  const draft = useSignal<string | null>(null);
  if (!data.value) return <ErrorLine error={error.value} />;
  const subject: string | null = data.value.push?.subject ?? null;
  const value = draft.value ?? subject ?? '';
  // A refused subject shows the engine's sentence under the button (Action).
  const save = () => put('/api/settings', { push: { subject: value.trim() || null } }).then(() => ((draft.value = null), reload()));
  return (
    <section class="card" id="push" data-section="push">
      <h2>Phone push</h2>
      <p class="muted small">The contact push services may write to about this engine's pushes: an https: URL or a mailto: address. No push is sent to a phone until it is set.</p>
      <ErrorLine error={error.value} />
      <div class="row">
        <input class="grow" placeholder="mailto:you@example.com" value={value} onInput={(e) => (draft.value = (e.target as HTMLInputElement).value)} />
        <Action onClick={save}>Save</Action>
      </div>
    </section>
  );
}

function Permissions() {
  const { data, error, reload } = useLoad<{ rules: any[]; unattended: string }>('/api/permissions');
  // "Always allow" on a prompt (here, in another window, on the phone) adds a rule.
  useLive((e) => e.kind === 'permission.resolved' && e.scope === 'always', reload);
  const key = useSignal('');
  return (
    <section class="card" id="permissions">
      <h2>Permissions</h2>
      <ErrorLine error={error.value} />
      <div class="row small">
        With nobody watching, a call that would ask is:
        <div class="seg">
          {['allow', 'deny'].map((u) => (
            <button class={data.value?.unattended === u ? 'on' : ''} onClick={() => put('/api/permissions/defaults', { unattended: u }).then(reload, (e) => (error.value = sentence(e)))}>{u === 'allow' ? 'allowed' : 'denied'}</button>
          ))}
        </div>
      </div>
      {data.value?.rules.map((r) => (
        <div class="row" key={r.key} data-rule={r.key}>
          <code class="grow">{r.key}</code>
          <span class={`badge ${r.decision}`}>{r.decision}</span>
          <Action onClick={async () => (await del(`/api/permissions/rule?key=${encodeURIComponent(r.key)}`), reload())}>Remove</Action>
        </div>
      ))}
      <p class="muted small">A rule names a tool (<code>delete_file</code>) or what it does (<code>run_shell(git status:*)</code>: git status with any arguments; <code>db_query(shop)</code>). The key a prompt shows is the key a rule takes.</p>
      <div class="row">
        <input class="grow-input" placeholder="run_shell(git status:*)" aria-label="rule key" value={key.value} onInput={(e) => (key.value = (e.target as HTMLInputElement).value)} />
        <Action onClick={async () => (await post('/api/permissions/rule', { key: key.value, decision: 'allow' }), (key.value = ''), reload())}>Always allow</Action>
        <Action onClick={async () => (await post('/api/permissions/rule', { key: key.value, decision: 'deny' }), (key.value = ''), reload())}>Always deny</Action>
      </div>
    </section>
  );
}

function Models() {
  const progress = useSignal<Record<string, { done?: number; total?: number; state: string }>>({});
  const tick = useSignal(0);
  useEffect(
    () =>
      onEvent((e) => {
        if (!e.kind.startsWith('model.')) return;
        if (e.kind.startsWith('model.download.')) {
          const id = e.id ?? e.repo ?? 'download';
          progress.value = { ...progress.value, [id]: { done: e.bytesDone ?? e.downloaded ?? e.done, total: e.bytesTotal ?? e.total, state: e.kind.slice(15) } };
        }
        if (!e.kind.endsWith('.progress')) tick.value++;
      }),
    [],
  );
  const { data, error } = useLoad<{ models: any[]; downloads: any[]; loaded: any }>('/api/models', [tick.value]);
  return (
    <section class="card" id="models">
      <h2>Local models</h2>
      <ErrorLine error={error.value} />
      {!data.value?.models.length && <div class="muted small">No local models downloaded.</div>}
      {data.value?.models.map((m) => (
        <div class="row" key={m.repo ?? m.id}>
          <span class="grow">{m.repo ?? m.id} <span class="muted small">{m.dtype}</span></span>
          {data.value?.loaded?.repo === m.repo ? <span class="badge completed">loaded</span> : <Action onClick={() => post('/api/models/load', { repo: m.repo, dtype: m.dtype })}>Load</Action>}
        </div>
      ))}
      {Object.entries(progress.value).map(([id, p]) => (
        <div class="row small" key={id}>
          <span class="grow">{id} {p.state}</span>
          {p.total ? <progress max={p.total} value={p.done ?? 0} /> : null}
        </div>
      ))}
    </section>
  );
}
