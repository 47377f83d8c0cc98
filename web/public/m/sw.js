/*
 * The phone layout's service worker (scope /m/; docs/push.md). A push from the engine carries
 * {kind, title, body, url, tag, ids}: titles and ids only, decrypted by the browser. It is shown as
 * a notification, except a finished-runs push while the phone app is on screen (the page shows that
 * itself); every push is also posted to the open phone pages. A tap opens the approval it is about.
 */
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => event.waitUntil(showPush(event.data)));

async function showPush(data) {
  let message = null;
  try {
    message = data ? data.json() : null;
  } catch {
    // not JSON: shown as the generic notice below
  }
  if (!message || typeof message.title !== 'string') message = { kind: 'unknown', title: 'Workbench', body: 'Something is waiting for you.', url: '/m/', tag: 'workbench' };
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) w.postMessage({ kind: 'push', message });
  if (message.kind === 'runs' && windows.some((w) => w.focused && w.visibilityState === 'visible')) return;
  await self.registration.showNotification(message.title, {
    body: message.body || '',
    tag: message.tag || 'workbench',
    // An approval asks again even when it replaces an older notification; a finished run does not.
    renotify: message.kind === 'gate' || message.kind === 'permission',
    requireInteraction: message.kind === 'gate' || message.kind === 'permission',
    data: { url: message.url, ids: message.ids || [] },
  });
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openPage(phoneUrl(event.notification.data && event.notification.data.url)));
});

/** Only a page of the phone app on this origin: a push can never send the phone elsewhere. */
function phoneUrl(url) {
  try {
    const target = new URL(url || '/m/', self.location.origin);
    if (target.origin === self.location.origin && (target.pathname === '/m' || target.pathname.startsWith('/m/'))) return target.href;
  } catch {
    // falls through to the phone app's start
  }
  return new URL('/m/', self.location.origin).href;
}

async function openPage(href) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).pathname.startsWith('/m'));
  if (!open) return self.clients.openWindow(href);
  open.postMessage({ kind: 'open', url: href });
  // Focusing is allowed within a tap on the notification; the page has gone to the approval either way.
  await open.focus().catch(() => undefined);
}
