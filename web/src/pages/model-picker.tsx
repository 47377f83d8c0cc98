/**
 * The session's model: the default provider, one of the configured providers with its own model, or
 * another model id on a provider ("Other model…"). The engine keeps the pick with the session
 * (PUT /api/chat/model; a new session sends it with its first message) and answers a bad one with a
 * sentence, shown here.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { get, sentence } from '../api';
import { epoch } from '../sync';
import type { ModelChoice } from '../../../src/capabilities/chat/types';

interface Provider {
  name?: string;
  type: string;
  model: string;
}

const OTHER = '\u0001other';
const keyOf = (c: ModelChoice) => (c.provider || c.model ? `${c.provider ?? ''}\u0000${c.model ?? ''}` : '');

export function ModelPicker({ choice, onPick }: { choice: ModelChoice; onPick: (c: ModelChoice) => Promise<void> }) {
  const config = useSignal<{ providers: Provider[]; defaultProvider: string | null } | null>(null);
  const other = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    get<{ providers: Provider[]; defaultProvider: string | null }>('/api/config').then((c) => (config.value = c), () => {});
  }, [epoch.value]);
  const providers = (config.value?.providers ?? []).map((p) => ({ ...p, name: p.name || p.type }));
  if (!providers.length) return null;
  const fallback = providers.find((p) => p.name === config.value?.defaultProvider) ?? providers[0];
  const options = [
    { key: '', label: `Default: ${fallback.name} · ${fallback.model}` },
    ...providers.map((p) => ({ key: keyOf({ provider: p.name }), label: `${p.name} · ${p.model}` })),
  ];
  // A model id picked by hand stays in the list while it is the session's.
  if (choice.model) options.push({ key: keyOf(choice), label: `${choice.provider ?? fallback.name} · ${choice.model}` });
  const pick = async (c: ModelChoice) => {
    error.value = null;
    try {
      await onPick(c);
      other.value = null;
    } catch (e) {
      error.value = sentence(e);
    }
  };
  const onProvider = choice.provider ?? fallback.name;
  return (
    <span class="model-picker">
      <select
        aria-label="Model"
        title="the model this chat runs on"
        value={other.value !== null ? OTHER : keyOf(choice)}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          if (v === OTHER) return void (other.value = '');
          const [provider, model] = v ? v.split('\u0000') : [];
          void pick({ ...(provider ? { provider } : {}), ...(model ? { model } : {}) });
        }}
      >
        {options.map((o) => (
          <option key={o.key} value={o.key}>
            {o.label}
          </option>
        ))}
        <option value={OTHER}>Other model…</option>
      </select>
      {other.value !== null && (
        <form
          class="model-other"
          onSubmit={(e) => {
            e.preventDefault();
            void pick({ ...(choice.provider ? { provider: choice.provider } : {}), model: other.value!.trim() });
          }}
        >
          <input aria-label="Model id" placeholder={`a model id on ${onProvider}`} value={other.value} onInput={(e) => (other.value = (e.target as HTMLInputElement).value)} />
          <button class="btn plain">Use</button>
          <button type="button" class="btn plain" onClick={() => ((other.value = null), (error.value = null))}>
            Cancel
          </button>
        </form>
      )}
      {error.value && (
        <span class="error small" role="alert">
          {error.value}
        </span>
      )}
    </span>
  );
}
