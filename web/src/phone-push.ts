/**
 * Push notifications on the phone (docs/push.md): the service worker at /m/sw.js, and turning the
 * phone's push channel on and off: the browser subscribes with the engine's VAPID public key
 * (GET /api/mobile/push/config) and the subscription goes to POST /api/mobile/push/subscribe; off
 * unsubscribes in the browser and DELETE ...?endpoint= on the engine. A subscription made for an
 * older key (the engine's pair was made anew) is replaced at start. Needs a secure context.
 */
import { signal } from '@preact/signals';
import { del, get, post, sentence } from './api';
import { navigate } from './router';

export type PushState = 'unavailable' | 'off' | 'on' | 'blocked' | 'busy';
export const pushState = signal<PushState>('unavailable');
/** Why pushes will not arrive yet (no VAPID subject set on the engine), or the last error. */
export const pushProblem = signal<string | null>(null);

let registration: ServiceWorkerRegistration | null = null;

export async function startPush(): Promise<void> {
  if (!window.isSecureContext || !('serviceWorker' in navigator) || !('PushManager' in window)) return;
  // A tap on a notification while the app is open: the worker asks this page to go there.
  navigator.serviceWorker.addEventListener('message', (e) => {
    if (e.data?.kind === 'open' && typeof e.data.url === 'string') {
      const url = new URL(e.data.url);
      if (url.origin === location.origin) navigate(url.pathname + url.search);
    }
  });
  registration = await navigator.serviceWorker.register('/m/sw.js', { scope: '/m/' });
  if (Notification.permission === 'denied') return void (pushState.value = 'blocked');
  const current = await registration.pushManager.getSubscription();
  pushState.value = current ? 'on' : 'off';
  if (current) await refresh(current).catch((e) => (pushProblem.value = sentence(e)));
}

/** Keeps the engine's copy current, and replaces a subscription made for another key. */
async function refresh(current: PushSubscription): Promise<void> {
  const config = await get<{ publicKey: string; ready: boolean; problem?: string }>('/api/mobile/push/config');
  pushProblem.value = config.ready ? null : (config.problem ?? null);
  const key = current.options.applicationServerKey;
  if (key && base64url(key) !== config.publicKey) {
    await current.unsubscribe();
    return void (await turnOn());
  }
  await post('/api/mobile/push/subscribe', { subscription: current.toJSON() });
}

export async function turnOn(): Promise<void> {
  if (!registration) return;
  pushState.value = 'busy';
  try {
    if ((await Notification.requestPermission()) !== 'granted') return void (pushState.value = 'blocked');
    const config = await get<{ publicKey: string; ready: boolean; problem?: string }>('/api/mobile/push/config');
    const sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: config.publicKey });
    await post('/api/mobile/push/subscribe', { subscription: sub.toJSON() });
    pushProblem.value = config.ready ? null : (config.problem ?? null);
    pushState.value = 'on';
  } catch (e) {
    pushProblem.value = sentence(e);
    pushState.value = 'off';
  }
}

export async function turnOff(): Promise<void> {
  const sub = await registration?.pushManager.getSubscription();
  pushState.value = 'busy';
  try {
    if (sub) {
      await del(`/api/mobile/push/subscribe?endpoint=${encodeURIComponent(sub.endpoint)}`).catch(() => undefined);
      await sub.unsubscribe();
    }
    pushProblem.value = null;
  } finally {
    pushState.value = 'off';
  }
}

function base64url(key: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(key)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
