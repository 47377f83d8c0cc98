/**
 * Databases > Add connection (or Edit): SQLite by its file, PostgreSQL and MySQL/MariaDB by host,
 * port, database, user and password (or one URL), read-only unless a person says otherwise. Test
 * makes a real round trip with what is typed; Save stores it (passwords as secrets). What the engine
 * refuses is shown next to the field it is about.
 */
import { useSignal } from '@preact/signals';
import { post, put } from '../api';
import { Field, FormFoot, formError, type FormError } from '../fields';
import { Action } from '../ui';

const FIELDS = ['id', 'name', 'engine', 'path', 'url', 'host', 'port', 'database', 'user', 'password', 'ssl', 'writable'];
const PORTS: Record<string, string> = { postgres: '5432', mysql: '3306' };
/** A connection id from its name: letters, digits, dot, dash, underscore. */
const idFrom = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64);

export function ConnectionForm({ existing, onSaved, onCancel }: { existing?: any; onSaved: (id: string) => void; onCancel: () => void }) {
  const f = useSignal({
    name: existing?.name ?? '',
    id: existing?.id ?? '',
    engine: existing?.engine ?? 'sqlite',
    path: existing?.path ?? '',
    url: '',
    host: existing?.host ?? '',
    port: existing?.port ? String(existing.port) : '',
    database: existing?.database ?? '',
    user: existing?.user ?? '',
    password: '',
    ssl: existing?.ssl === true,
    readOnly: existing ? existing.writable !== true : true,
  });
  const idTouched = useSignal(!!existing);
  const error = useSignal<FormError | null>(null);
  const tested = useSignal<{ ok: boolean; text: string } | null>(null);
  const v = f.value;
  const set = (k: keyof typeof v) => (e: Event) => {
    const el = e.target as HTMLInputElement;
    const value = el.type === 'checkbox' ? el.checked : el.value;
    f.value = { ...f.value, [k]: value, ...(k === 'name' && !idTouched.value ? { id: idFrom(String(value)) } : {}) };
    if (k === 'id') idTouched.value = true;
  };
  /** The definition as the API takes it: only what applies to the engine chosen, nothing empty. */
  const body = () => {
    const b: Record<string, unknown> = { engine: v.engine, writable: !v.readOnly };
    if (v.name.trim()) b.name = v.name.trim();
    if (v.engine === 'sqlite') {
      if (v.path) b.path = v.path;
    } else if (v.url.trim()) b.url = v.url.trim();
    else {
      for (const k of ['host', 'database', 'user', 'password'] as const) if (v[k] !== '') b[k] = v[k];
      if (v.port.trim()) b.port = /^\d+$/.test(v.port.trim()) ? Number(v.port) : v.port;
      if (v.ssl) b.ssl = true;
    }
    return b;
  };
  /** Runs one request; a refusal lands next to its field instead of being thrown. */
  const attempt = async <T,>(send: () => Promise<T>): Promise<T | undefined> => {
    error.value = null;
    tested.value = null;
    try {
      return await send();
    } catch (e) {
      error.value = formError(e, FIELDS);
      return undefined;
    }
  };
  const test = async () => {
    const r = await attempt(() => post<{ ok: boolean; ms?: number; error?: string; warning?: string }>('/api/db/test', body()));
    if (r) tested.value = r.ok ? { ok: true, text: `Connected in ${r.ms ?? '?'} ms.${r.warning ? ` ${r.warning}` : ''}` } : { ok: false, text: r.error ?? 'the test failed' };
  };
  const save = async () => {
    if (!v.id) return void (error.value = { fields: { id: 'give the connection an id (letters, digits, dot, dash or underscore), or a name to make it from' }, other: null });
    const saved = await attempt(() => put<{ id: string }>(`/api/db/connections/${encodeURIComponent(v.id)}`, body()));
    if (saved) onSaved(saved.id);
  };
  const server = v.engine !== 'sqlite';
  return (
    <form class="setup-form" aria-label={existing ? 'Edit connection' : 'Add connection'} onSubmit={(e) => e.preventDefault()}>
      <h2>{existing ? `Edit ${existing.name ?? existing.id}` : 'Add connection'}</h2>
      <div class="form-cols">
        <Field label="Name" name="name" error={error.value} hint="How it is listed.">
          <input value={v.name} onInput={set('name')} placeholder="Shop database" />
        </Field>
        <Field label="Id" name="id" error={error.value} hint="How tools and the API name it.">
          <input value={v.id} onInput={set('id')} placeholder="shop" disabled={!!existing} />
        </Field>
      </div>
      <Field label="Database engine" name="engine" error={error.value}>
        <select value={v.engine} onChange={set('engine')}>
          <option value="sqlite">SQLite (a file)</option>
          <option value="postgres">PostgreSQL</option>
          <option value="mysql">MySQL or MariaDB</option>
        </select>
      </Field>
      {!server ? (
        <Field label="Database file" name="path" error={error.value} hint="Absolute, or relative to the workspace. A writable connection creates it on its first write.">
          <input value={v.path} onInput={set('path')} placeholder="data/shop.db" class="mono" />
        </Field>
      ) : (
        <>
          <div class="form-cols">
            <Field label="Host" name="host" error={error.value}>
              <input value={v.host} onInput={set('host')} placeholder="127.0.0.1" />
            </Field>
            <Field label="Port" name="port" error={error.value}>
              <input value={v.port} onInput={set('port')} placeholder={PORTS[v.engine]} inputMode="numeric" />
            </Field>
            <Field label="Database" name="database" error={error.value}>
              <input value={v.database} onInput={set('database')} placeholder="shop" />
            </Field>
            <Field label="User" name="user" error={error.value}>
              <input value={v.user} onInput={set('user')} placeholder="me" autoComplete="off" />
            </Field>
            <Field label="Password" name="password" error={error.value} hint={existing?.hasPassword ? 'A password is stored; leave empty to keep it.' : 'Stored as a secret, never shown again.'}>
              <input type="password" value={v.password} onInput={set('password')} autoComplete="new-password" />
            </Field>
          </div>
          <label class="row small">
            <input type="checkbox" checked={v.ssl} onChange={set('ssl')} /> Use TLS (SSL)
          </label>
          <Field label="Or a connection URL" name="url" error={error.value} hint="Instead of the fields above; stored whole as a secret.">
            <input value={v.url} onInput={set('url')} placeholder={v.engine === 'postgres' ? 'postgres://me:password@127.0.0.1:5432/shop' : 'mysql://me:password@127.0.0.1:3306/shop'} class="mono" autoComplete="off" />
          </Field>
        </>
      )}
      <label class="row">
        <input type="checkbox" checked={v.readOnly} onChange={set('readOnly')} /> Read-only: my queries cannot change data (a model's writes always ask first)
      </label>
      <FormFoot error={error.value} />
      {tested.value && (
        <div class={tested.value.ok ? 'ok-line' : 'error-line'} role="status" data-tested={tested.value.ok ? 'ok' : 'failed'}>
          {tested.value.text}
        </div>
      )}
      <div class="row">
        <Action onClick={test}>Test</Action>
        <Action kind="primary" onClick={save}>{existing ? 'Save' : 'Save connection'}</Action>
        <button type="button" class="btn" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
