/** Issue 42: a capability's implementation loads on its first use, once, and is closed only if it was. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onFirstUse } from '../../src/kernel/on-first-use.js';

test('nothing loads until the first call; calls at once share one load', async () => {
  let loads = 0;
  const cap = onFirstUse(async () => ({ n: ++loads }));
  assert.equal(loads, 0);
  assert.equal(await cap.started(), undefined, 'never started: nothing to close');
  const [a, b] = await Promise.all([cap(), cap()]);
  assert.equal(loads, 1);
  assert.equal(a, b);
  assert.equal(await cap(), a);
  assert.equal(await cap.started(), a);
});

test('a load that failed is tried again by the next call, and close waits for a load under way', async () => {
  let attempt = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const cap = onFirstUse(async () => {
    attempt++;
    if (attempt === 1) throw new Error('first load fails');
    await gate;
    return { attempt };
  });
  await assert.rejects(cap(), /first load fails/);
  assert.equal(await cap.started(), undefined, 'a failed load leaves nothing to close');
  const loading = cap();
  let seen: unknown = 'pending';
  const closing = cap.started().then((v) => (seen = v));
  await new Promise((r) => setImmediate(r));
  assert.equal(seen, 'pending', 'close waits for the load under way');
  release();
  await closing;
  assert.deepEqual(seen, { attempt: 2 });
  assert.equal(await loading, seen);
});
