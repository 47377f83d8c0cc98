/**
 * Dashboards > New dashboard: a name, what it should show, and (optionally) the tiles it should have.
 * With tiles, the definition is saved as written; without, the engine's model designs the tiles from
 * the words (POST /api/dashboards/design). Either way the page then offers Build. The engine's
 * sentences about a field stand next to it.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, post, put } from '../api';
import { Field, FormFoot, formError, type FormError } from '../fields';
import { Action } from '../ui';

const FIELDS = ['id', 'name', 'prompt', 'layout', 'slots', 'refresh'];
const ALIASES = { 'dashboard id': 'id', description: 'prompt' };
const idFrom = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 64);

interface Slot {
  title: string;
  type: string;
}

export function DashboardForm({ onCreated, onCancel }: { onCreated: (id: string) => void; onCancel: () => void }) {
  const name = useSignal('');
  const id = useSignal('');
  const idTouched = useSignal(false);
  const prompt = useSignal('');
  const layout = useSignal('2');
  const refresh = useSignal('');
  const slots = useSignal<Slot[]>([]);
  const types = useSignal<{ name: string; label?: string }[]>([]);
  const error = useSignal<FormError | null>(null);
  const busy = useSignal<string | null>(null);
  useEffect(() => void get<{ widgets: { name: string; label?: string }[] }>('/api/widgets').then((r) => (types.value = r.widgets), () => undefined), []);
  const setSlot = (i: number, patch: Partial<Slot>) => (slots.value = slots.value.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const create = async () => {
    error.value = null;
    const dashboard = id.value || idFrom(name.value);
    if (!dashboard) return void (error.value = { fields: { name: 'name is required: what the page is called' }, other: null });
    const written = slots.value.filter((s) => s.title.trim());
    try {
      if (written.length) {
        busy.value = 'Saving…';
        const definition = {
          name: name.value.trim(),
          layout: /^\d+$/.test(layout.value) ? Number(layout.value) : layout.value,
          prompt: prompt.value,
          ...(refresh.value.trim() ? { refresh: refresh.value.trim() } : {}),
          slots: written.map((s, i) => ({ id: idFrom(s.title) || `tile-${i + 1}`, title: s.title.trim(), ...(s.type ? { type: s.type } : {}) })),
        };
        await put(`/api/dashboards/${encodeURIComponent(dashboard)}`, definition);
      } else {
        if (!prompt.value.trim()) return void (error.value = { fields: { prompt: 'say what the dashboard should show (or list its tiles below)' }, other: null });
        busy.value = 'The model is designing the tiles…';
        await post('/api/dashboards/design', { id: dashboard, description: `${name.value.trim() ? `A dashboard called "${name.value.trim()}". ` : ''}${prompt.value.trim()}` });
      }
      onCreated(dashboard);
    } catch (e) {
      error.value = formError(e, FIELDS, ALIASES);
    } finally {
      busy.value = null;
    }
  };
  return (
    <form class="setup-form" aria-label="New dashboard" onSubmit={(e) => e.preventDefault()}>
      <h2>New dashboard</h2>
      <div class="form-cols">
        <Field label="Name" name="name" error={error.value}>
          <input value={name.value} placeholder="Shop this week" onInput={(e) => ((name.value = (e.target as HTMLInputElement).value), !idTouched.value && (id.value = idFrom(name.value)))} />
        </Field>
        <Field label="Id" name="id" error={error.value} hint="Lower-case letters, digits, - or _.">
          <input value={id.value} placeholder="shop-this-week" onInput={(e) => ((id.value = (e.target as HTMLInputElement).value), (idTouched.value = true))} />
        </Field>
      </div>
      <Field label="What it should show" name="prompt" error={error.value} hint="What the build finds out and shows, in your words: where the data is and what matters.">
        <textarea rows={3} value={prompt.value} placeholder="Orders and revenue of this week from data/orders.csv, the top five products, anything unusual." onInput={(e) => (prompt.value = (e.target as HTMLTextAreaElement).value)} />
      </Field>
      <Field label="Tiles (optional)" name="slots" error={error.value} hint={slots.value.length ? 'Each tile is filled by the build; leave the type to let it choose.' : 'Without tiles, the model designs them from your words.'}>
        <div class="slots">
          {slots.value.map((s, i) => (
            <div class="row" key={i}>
              <input class="grow-input" value={s.title} placeholder={`Tile ${i + 1}, e.g. Revenue this week`} aria-label={`tile ${i + 1} title`} onInput={(e) => setSlot(i, { title: (e.target as HTMLInputElement).value })} />
              <select value={s.type} aria-label={`tile ${i + 1} type`} onChange={(e) => setSlot(i, { type: (e.target as HTMLSelectElement).value })}>
                <option value="">any type</option>
                {types.value.map((t) => (
                  <option value={t.name}>{t.label ?? t.name}</option>
                ))}
              </select>
              <button type="button" class="btn" aria-label={`remove tile ${i + 1}`} onClick={() => (slots.value = slots.value.filter((_, j) => j !== i))}>✕</button>
            </div>
          ))}
          <button type="button" class="btn" onClick={() => (slots.value = [...slots.value, { title: '', type: '' }])}>Add a tile</button>
        </div>
      </Field>
      {slots.value.length > 0 && (
      <div class="form-cols">
        <Field label="Columns" name="layout" error={error.value}>
          <input value={layout.value} inputMode="numeric" onInput={(e) => (layout.value = (e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="Rebuild every (optional)" name="refresh" error={error.value} hint='"15m", "1h", or a cron expression.'>
          <input value={refresh.value} placeholder="1h" onInput={(e) => (refresh.value = (e.target as HTMLInputElement).value)} />
        </Field>
      </div>
      )}
      <FormFoot error={error.value} />
      {busy.value && <div class="muted small" role="status">{busy.value}</div>}
      <div class="row">
        <Action kind="primary" onClick={create}>Create</Action>
        <button type="button" class="btn" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
