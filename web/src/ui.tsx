/** Small pieces every page uses: an action button that shows the engine's sentence on failure, etc. */
import type { ComponentChildren } from 'preact';
import { signal } from '@preact/signals';
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

export const Badge = ({ status }: { status: string }) => <span class={`badge ${status}`}>{status}</span>;

export function short(v: unknown, n = 160): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > n ? s.slice(0, n - 1) + '…' : (s ?? '');
}

/** The clock every <Time> reads: one tick a second, so "12s ago" moves on by itself. */
export const now = signal(Date.now());
setInterval(() => (now.value = Date.now()), 1000);

/** "just now", "12s ago", "5m ago", "in 3h", "4d ago"; a date past a week. */
export function relative(ts: number, at: number): string {
  const s = Math.round((at - ts) / 1000);
  const a = Math.abs(s);
  if (a < 5) return 'just now';
  const span = a < 60 ? `${a}s` : a < 3600 ? `${Math.round(a / 60)}m` : a < 86400 ? `${Math.round(a / 3600)}h` : a < 7 * 86400 ? `${Math.round(a / 86400)}d` : null;
  if (!span) return new Date(ts).toLocaleDateString();
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** A time as a person reads it: relative and ticking, the absolute date and time on hover. */
export function Time({ ts }: { ts: number | string | null | undefined }) {
  const t = typeof ts === 'string' ? Date.parse(ts) : ts;
  if (!t || Number.isNaN(t)) return null;
  const d = new Date(t);
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {relative(t, now.value)}
    </time>
  );
}

/** Puts text on the clipboard; where the Clipboard API is refused (no permission, plain HTTP), the old way. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.append(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    if (!done) throw new Error('the browser refused to copy; select the text and copy it by hand');
  }
}
