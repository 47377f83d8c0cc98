import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('notify emits, lists newest first with an unread count, reads, dismisses, persists', async () => {
  const events = await collectEvents(t.url);
  const a = await t.engine.notifications.notify({ title: 'first', source: 'test' });
  const b = await t.engine.notifications.notify({ title: 'second', level: 'error', body: 'details' });
  const emitted = await events.waitFor((e) => e.kind === 'notification' && e.id === b.id);
  assert.equal(emitted.title, 'second');
  let list = await t.api('GET', '/api/notifications');
  assert.deepEqual(list.body.notifications.map((n: any) => n.id), [b.id, a.id]);
  assert.equal(list.body.unreadCount, 2);

  assert.equal((await t.api('POST', '/api/notifications/read', { id: a.id })).body.unreadCount, 1);
  assert.equal((await t.api('POST', '/api/notifications/read')).body.unreadCount, 0);
  assert.equal((await t.api('POST', `/api/notifications/${a.id}/dismiss`)).status, 200);
  list = await t.api('GET', '/api/notifications');
  assert.deepEqual(list.body.notifications.map((n: any) => n.id), [b.id]);

  const again = await startTestEngine({ home: t.home });
  try {
    const persisted = await again.api('GET', '/api/notifications');
    assert.deepEqual(persisted.body.notifications.map((n: any) => [n.id, n.read]), [[b.id, true]]);
  } finally {
    await again.close();
  }
  events.close();
});

test('unknown ids are 404, bad bodies 400', async () => {
  assert.equal((await t.api('POST', '/api/notifications/ntf-1-999/dismiss')).status, 404);
  assert.equal((await t.api('POST', '/api/notifications/read', { id: 'ntf-1-999' })).status, 404);
  assert.equal((await t.api('POST', '/api/notifications/read', { id: 5 })).status, 400);
  assert.equal((await t.api('POST', '/api/notifications/read', [1])).status, 400);
});
