/**
 * Settings: providers with the test button, secrets by name only, MCP servers and their status,
 * the sandbox, phone push, permission rules, local models with download progress, the browser bridge.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { del, get, post, put, sentence } from '../api';
import { epoch, onEvent } from '../sync';
import { Action, ErrorLine, PageHead } from '../ui';
import { PhoneRelay } from './phone-relay';

const TYPES = ['openai-compatible', 'openai', 'anthropic'];

export function SettingsPage() {
  return (
    <div class="page">
      <PageHead title="Settings" />
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
    <section class="card">
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

function Secrets() {
  const { data, error, reload } = useLoad<{ names: string[]; backend: string }>('/api/secrets');
  const name = useSignal('');
  const value = useSignal('');
  return (
    <section class="card">
      <h2>Secrets <span class="muted small">({data.value?.backend})</span></h2>
      <ErrorLine error={error.value} />
      {data.value?.names.map((n) => (
        <div class="row" key={n}>
          <code class="grow">{n}</code>
          <Action kind="danger" onClick={async () => (await del(`/api/secrets/${encodeURIComponent(n)}`), reload())}>Delete</Action>
        </div>
      ))}
      <div class="row">
        <input placeholder="name" value={name.value} onInput={(e) => (name.value = (e.target as HTMLInputElement).value)} />
        <input placeholder="value" type="password" value={value.value} onInput={(e) => (value.value = (e.target as HTMLInputElement).value)} />
        <Action onClick={async () => (await post('/api/secrets', { name: name.value, value: value.value }), (name.value = value.value = ''), reload())}>Store</Action>
      </div>
    </section>
  );
}

function Mcp() {
  const tick = useSignal(0);
  useEffect(() => onEvent((e) => void (e.kind === 'mcp.status' && tick.value++)), []);
  const { data, error, reload } = useLoad<{ servers: Record<string, any>; status: Record<string, any>; authUrls: Record<string, string> }>('/api/mcp', [tick.value]);
  const names = Object.keys(data.value?.servers ?? {});
  return (
    <section class="card">
      <h2>MCP servers</h2>
      <ErrorLine error={error.value} />
      {!names.length && <div class="muted small">None configured.</div>}
      {names.map((n) => {
        const st = data.value!.status[n];
        return (
          <div class="row" key={n}>
            <strong class="grow">{n}</strong>
            <span class="small">{typeof st === 'string' ? st : (st?.state ?? st?.status ?? '')}{st?.error ? `: ${st.error}` : ''}</span>
            {data.value!.authUrls[n] && <a href={data.value!.authUrls[n]} target="_blank" rel="noreferrer">Authorize</a>}
            <Action onClick={async () => (await post(`/api/mcp/${encodeURIComponent(n)}/toggle`, {}), reload())}>Toggle</Action>
          </div>
        );
      })}
    </section>
  );
}

/** The browser bridge: whether the extension is connected, and the folder to load once (it pairs by itself). */
function Browser() {
  const { data, error, reload } = useLoad<{ connected: boolean; extensionPath: string; extensionId: string; client?: { version: string; userAgent: string } }>('/api/browser');
  useEffect(() => onEvent((e) => void (/^browser\.(connected|disconnected)$/.test(e.kind) && reload())), []);
  const b = data.value;
  return (
    <section class="card browser-card" data-browser={b?.connected ? 'connected' : 'disconnected'}>
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
    <section class="card">
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
    <section class="card" data-section="push">
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
  const key = useSignal('');
  return (
    <section class="card">
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
        <div class="row" key={r.key}>
          <code class="grow">{r.key}</code>
          <span class={`badge ${r.decision}`}>{r.decision}</span>
          <Action onClick={async () => (await del(`/api/permissions/rule?key=${encodeURIComponent(r.key)}`), reload())}>Remove</Action>
        </div>
      ))}
      <div class="row">
        <input placeholder="rule key, e.g. run_shell:git status" value={key.value} onInput={(e) => (key.value = (e.target as HTMLInputElement).value)} />
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
    <section class="card">
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
