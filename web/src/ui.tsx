/** Small pieces every page uses: an action button that shows the engine's sentence on failure, etc. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { sentence } from './api';

export function Action(props: { onClick: () => Promise<unknown> | unknown; children: ComponentChildren; kind?: 'primary' | 'danger' | 'plain'; disabled?: boolean; title?: string; onError?: (msg: string) => void; class?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onClick();
    } catch (e) {
      if (props.onError) props.onError(sentence(e));
      else setError(sentence(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button class={`btn ${props.kind ?? 'plain'} ${props.class ?? ''}`} disabled={busy || props.disabled} title={props.title} onClick={run}>
        {props.children}
      </button>
      {error && <span class="error" role="alert">{error}</span>}
    </span>
  );
}

export const ErrorLine = ({ error }: { error: string | null | undefined }) => (error ? <div class="error-line" role="alert">{error}</div> : null);

export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty">{children}</div>;

export function PageHead({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-head">
      <h1>{title}</h1>
      <div class="page-actions">{children}</div>
    </header>
  );
}

export function ago(ts: number | undefined): string {
  if (!ts) return '';
  const s = Math.round((Date.now() - ts) / 1000);
  if (s < 60) return `${Math.max(s, 0)}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return new Date(ts).toLocaleDateString();
}

export const Badge = ({ status }: { status: string }) => <span class={`badge ${status}`}>{status}</span>;

export function short(v: unknown, n = 160): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > n ? s.slice(0, n - 1) + '…' : (s ?? '');
}
