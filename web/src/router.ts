/**
 * Client-side routes under the same paths the engine answers with the app shell for a browser
 * (src/http/web-app.ts CLIENT_ROUTES), so a notification's `/runs/<id>` link or a reload lands on
 * the right page.
 */
import { signal } from '@preact/signals';

export const path = signal(location.pathname);

export function navigate(to: string, replace = false): void {
  if (to === path.value) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  path.value = to;
}

addEventListener('popstate', () => (path.value = location.pathname));

/** Same-origin <a href> clicks become client navigations. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (ev) => {
    const a = (ev.target as HTMLElement).closest('a');
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || a.target) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    ev.preventDefault();
    navigate(url.pathname + url.search);
  });
}

/** `/runs/abc` against `/runs/:id` -> {id: 'abc'}; null when it does not match. */
export function match(pattern: string, p: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = p.split('/');
  if (a.at(-1) === '*') {
    if (b.length < a.length - 1) return null;
  } else if (a.length !== b.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '*') {
      out['*'] = b.slice(i).map(decodeURIComponent).join('/');
      return out;
    }
    if (a[i].startsWith(':')) out[a[i].slice(1)] = decodeURIComponent(b[i] ?? '');
    else if (a[i] !== b[i]) return null;
  }
  return out;
}
