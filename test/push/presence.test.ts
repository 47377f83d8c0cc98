/** The workbench presence rule (src/capabilities/push/presence.ts) on an injected clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPresence } from '../../src/capabilities/push/presence.js';

test('present while a socket reported active within the idle time; a close or "inactive" ends it at once', () => {
  let now = 1_000_000;
  const changes: boolean[] = [];
  const p = createPresence({ idleMs: 120_000, now: () => now, onChange: (a) => changes.push(a) });
  const desk = {};
  const laptop = {};
  assert.equal(p.active(), false);
  p.parse(desk, JSON.stringify({ kind: 'presence', active: true }));
  assert.equal(p.active(), true);
  now += 119_000;
  assert.equal(p.active(), true, 'still within two minutes of the last report');
  now += 2_000;
  assert.equal(p.active(), false, 'a focused but untouched workbench goes idle');
  p.parse(desk, JSON.stringify({ kind: 'presence', active: true }));
  p.parse(laptop, JSON.stringify({ kind: 'presence', active: true }));
  p.parse(desk, JSON.stringify({ kind: 'presence', active: false }));
  assert.equal(p.active(), true, 'another workbench is still in use');
  p.drop(laptop);
  assert.equal(p.active(), false, 'its socket closed');
  assert.deepEqual(changes, [true, true, false]);
});

test('anything but a presence frame is ignored', () => {
  const p = createPresence();
  const c = {};
  for (const text of ['not json', '{"kind":"presence","active":"yes"}', '{"kind":"other","active":true}', 'null', JSON.stringify({ kind: 'presence', active: true, pad: 'x'.repeat(300) })]) p.parse(c, text);
  assert.equal(p.active(), false);
});
