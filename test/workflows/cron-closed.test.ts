/**
 * A closed cron scheduler writes nothing and arms nothing (issue 41: a reload of the workflow files
 * under way when the engine closed synced the scheduler after close, and its cron-state.json write
 * landed in a home the test was removing: ENOTEMPTY).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCronScheduler } from '../../src/capabilities/workflows/cron-scheduler.js';
import type { WorkflowDocument } from '../../src/capabilities/workflows/types.js';
import { TestClock } from '../support/clock.js';

const doc = (id: string) => ({ id, formatVersion: 2, group: null, nodes: [{ id: 'tick', type: 'trigger.cron', config: { expr: '* * * * *' } }], edges: [] }) as unknown as WorkflowDocument;

test('sync after close neither saves the cron state nor arms a timer', async () => {
  const clock = new TestClock(Date.parse('2030-01-01T00:00:00Z'));
  let saves = 0;
  const cron = createCronScheduler({
    state: { load: async () => ({}), save: async () => void saves++ },
    clock,
    emit: () => undefined,
    log: () => undefined,
    fire: async () => 'started',
  });
  await cron.init([doc('a')]);
  assert.deepEqual(cron.armed(), ['a:tick']);
  await cron.close();
  const before = saves;
  assert.equal(clock.pending(), 0);
  cron.sync([doc('a'), doc('b')]);
  await new Promise((r) => setImmediate(r));
  assert.equal(saves, before, 'no write after close');
  assert.equal(clock.pending(), 0, 'no timer armed after close');
  assert.deepEqual(cron.armed(), []);
});
