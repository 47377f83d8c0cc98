/**
 * The phone's push path in a real Chromium: the engine pushes a waiting gate to a loopback push
 * service (which checks the VAPID JWT and decrypts the payload as the phone's browser would), and the
 * decrypted payload is delivered to the /m/ service worker through the DevTools
 * `ServiceWorker.deliverPushMessage` command; its push handler shows the notification, and a tap on it
 * opens that approval in the phone app. The workbench page reports presence over its socket, and
 * while it is focused no push is sent.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { schemeOnly } from '../../src/capabilities/web/floor-request.js';
import { openBrowser, SHOTS, type TestBrowser } from '../support/browser.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { gateFlow } from '../support/gate-flow.js';
import { startFakePushService, type FakePushService } from '../support/push-service.js';

describe('push on the phone layout', () => {
  let t: TestEngine;
  let svc: FakePushService;
  let b: TestBrowser;
  let events: EventCollector;

  before(async () => {
    svc = await startFakePushService();
    t = await startTestEngine({ push: { floor: schemeOnly } });
    events = await collectEvents(t.url);
    await t.api('PUT', '/api/settings', { push: { subject: 'mailto:ops@example.com' } });
    await t.api('PUT', '/api/workflows/notes', gateFlow('notes', 'Sign off the release notes?', { name: 'Release notes', node: 'sign-off' }));
    await t.api('PUT', '/api/workflows/desk', gateFlow('desk', 'Sign off the release notes?', { name: 'Desk check', node: 'sign-off' }));
    b = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
    await b.context.grantPermissions(['notifications'], { origin: t.url });
  });
  after(async () => {
    events?.close();
    await b?.close();
    await t?.close();
    await svc?.close();
  });

  it('registers the service worker on /m/; a delivered push shows a notification, and a tap opens the approval', async () => {
    const phone = svc.subscriber('phone');
    await t.api('POST', '/api/mobile/push/subscribe', { subscription: phone.subscription, deviceId: 'phone' });
    await b.page.goto(`${t.url}/m/#token=${encodeURIComponent(t.engine.mobileToken)}`);
    const scope = await b.page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.scope));
    assert.equal(scope, `${t.url}/m/`);
    await b.page.waitForSelector('.push-bar >> text=Turn on');

    // The engine's push, as the phone's browser receives it after decryption.
    const from = svc.received.length;
    const run = await t.api('POST', '/api/runs/notes', {});
    const push = await svc.next((p) => p.id === 'phone', from);
    assert.equal(push.refused, undefined, push.refused);
    const key = `${run.body.runId}:sign-off`;

    // Deliver it to the worker through DevTools, the way the browser's push service connection would.
    const cdp = await b.context.newCDPSession(b.page);
    const registrations = new Promise<string>((resolve) =>
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
        const reg = e.registrations.find((r) => r.scopeURL === `${t.url}/m/` && !r.isDeleted);
        if (reg) resolve(reg.registrationId);
      }),
    );
    await cdp.send('ServiceWorker.enable');
    const registrationId = await registrations;
    await b.page.evaluate(() => {
      (window as any).pushMessages = [];
      navigator.serviceWorker.addEventListener('message', (e) => (window as any).pushMessages.push(e.data));
    });
    // What the handler asks the browser to show is recorded in the worker: headless Chromium at times
    // drops a shown notification from getNotifications() at once (seen in about one run in four).
    const [worker] = b.context.serviceWorkers();
    await worker.evaluate(() => {
      const reg = (self as any).registration;
      const show = reg.showNotification.bind(reg);
      (self as any).shown = [];
      reg.showNotification = (title: string, options: any) => ((self as any).shown.push({ title, ...options }), show(title, options));
    });
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: t.url, registrationId, data: push.text! });

    // The worker's push handler ran: it posts every push to the open phone pages, and shows it.
    const posted = await waitFor(() => b.page.evaluate(() => (window as any).pushMessages.find((m: any) => m.kind === 'push')));
    assert.deepEqual(posted.message.ids, [key]);
    const notification = await waitFor(() => worker.evaluate(() => (self as any).shown[0] as { title: string; body: string; tag: string; renotify: boolean; data: { url: string } } | undefined));
    assert.equal(notification.title, 'Approval needed');
    assert.equal(notification.body, 'Release notes waits at sign-off');
    assert.equal(notification.tag, `gate:${key}`);
    assert.equal(notification.renotify, true);
    assert.equal(notification.data.url, `/m/?approval=${encodeURIComponent(key)}`);
    assert.ok(!JSON.stringify(notification).includes('Sign off the release notes'), 'the gate message is not in the notification');

    // A tap: the worker's notificationclick handler focuses the phone app and opens the approval. The
    // event carries the shown notification, or a stand-in with its data when headless dropped it.
    await b.page.evaluate(() => history.replaceState(null, '', '/m/runs'));
    await worker.evaluate(async () => {
      const [shown] = await (self as any).registration.getNotifications();
      const notification = shown ?? { data: (self as any).shown[0].data, close() {} };
      const click = new (self as any).ExtendableEvent('notificationclick');
      Object.defineProperty(click, 'notification', { value: notification });
      try {
        self.dispatchEvent(click);
      } catch {
        // waitUntil on an event the test made throws after the handler has started the open
      }
    });
    await b.page.waitForSelector(`.card.gate.focused[data-gate="${key}"]`);
    assert.ok(b.page.url().endsWith(`/m/?approval=${encodeURIComponent(key)}`));
    await b.shot('phone-push-approval');
    assert.deepEqual(b.errors.filter((e) => !/Event handler of 'notificationclick'|InvalidStateError/.test(e)), []);
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'sign-off', approved: true });
  });

  it('no push while the workbench page is focused; pushes again once it is hidden', async () => {
    const desk = await b.context.newPage();
    await desk.goto(t.url + '/');
    await desk.bringToFront();
    // The page reports presence once its socket is open.
    await events.waitFor((e) => e.kind === 'presence.changed' && e.active === true, 30_000);
    let run = await t.api('POST', '/api/runs/desk', {});
    const skipped = await events.waitFor((e) => e.kind === 'push.skipped' && (e.ids as string[]).includes(`${run.body.runId}:sign-off`));
    assert.equal(skipped.reason, 'present');
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'sign-off', approved: true });
    await desk.close();
    await events.waitFor((e) => e.kind === 'presence.changed' && e.active === false);
    const from = svc.received.length;
    run = await t.api('POST', '/api/runs/desk', {});
    await svc.next((p) => p.id === 'phone' && !!p.text?.includes(`${run.body.runId}:sign-off`), from);
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'sign-off', approved: true });
  });

  it('the workbench Settings page sets the VAPID subject and shows why a localhost one is refused', async () => {
    const desk = await b.context.newPage();
    await desk.goto(t.url + '/settings');
    const section = desk.locator('[data-section="push"]');
    await section.locator('input').fill('mailto:me@localhost');
    await section.locator('text=Save').click();
    await section.locator('text=push services refuse').waitFor();
    await section.screenshot({ path: path.join(SHOTS, 'settings-push-refused.png') });
    await section.locator('input').fill('mailto:release@example.org');
    await section.locator('text=Save').click();
    await waitFor(async () => ((await t.api('GET', '/api/settings')).body.push.subject === 'mailto:release@example.org' ? true : undefined));
    await desk.close();
  });
});

/** Polls `probe` until it answers something (the notification list is read, not pushed to us). */
async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('nothing came within the wait');
    await new Promise((r) => setTimeout(r, 100));
  }
}
