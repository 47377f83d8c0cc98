/**
 * What another engine of a pool changed is read again after its announcement; a read that began
 * before the change must never land last and leave a stale copy until the next change. Backends
 * here answer when the test says, so the order that loses a change is forced, not hoped for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createNotificationsService } from '../../src/capabilities/notifications/service.js';
import type { NotificationRecord, NotificationsBackend } from '../../src/capabilities/notifications/types.js';
import { Bus } from '../../src/kernel/bus.js';
import type { Home } from '../../src/kernel/home.js';
import { reloadLatest } from '../../src/kernel/serial.js';
import { RuleStore, type PermissionsFile, type RulesBackend } from '../../src/permissions/rules.js';

/** A promise the test settles. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: Error): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

test('reloadLatest: calls during a run fold into one more run after it; runs never overlap; a failure reaches its callers and the next call runs', async () => {
  const runs: Array<ReturnType<typeof deferred<void>>> = [];
  let live = 0;
  let most = 0;
  const reload = reloadLatest(async () => {
    live++;
    most = Math.max(most, live);
    const d = deferred<void>();
    runs.push(d);
    try {
      await d.promise;
    } finally {
      live--;
    }
  });
  const first = reload();
  const second = reload();
  const third = reload();
  await tick();
  assert.equal(runs.length, 1, 'the calls made while a run is under way wait for it');
  runs[0].resolve();
  await tick();
  assert.equal(runs.length, 2, 'then exactly one more run, for both');
  let settled = false;
  void second.then(() => (settled = true));
  await tick();
  assert.equal(settled, false, 'a call settles only with a run that started after it');
  runs[1].resolve();
  await Promise.all([first, second, third]);
  assert.equal(most, 1);

  const failing = reload();
  await tick();
  runs[2].reject(new Error('database went away'));
  await assert.rejects(failing, /database went away/);
  const after = reload();
  await tick();
  runs[3].resolve();
  await after;
  assert.equal(runs.length, 4);
});

test('permission rules: a read that began before another engine\'s change is answered but never cached', async () => {
  let stored: Partial<PermissionsFile> = { rules: [], unattended: 'deny' };
  const reads: Array<ReturnType<typeof deferred<Partial<PermissionsFile>>>> = [];
  let changed = () => {};
  const backend: RulesBackend = {
    read() {
      const d = deferred<Partial<PermissionsFile>>();
      reads.push(d);
      return d.promise;
    },
    update: async (change) => (stored = change(stored)),
    watch: (fn) => void (changed = fn),
  };
  const rules = new RuleStore({} as Home, undefined, backend);
  const early = rules.get();
  const before = structuredClone(stored);
  // Another engine commits a rule and announces it while the early read is still on its way.
  stored = { rules: [{ key: 'run_shell(git status:*)', decision: 'allow' }], unattended: 'allow' };
  changed();
  reads[0].resolve(before);
  assert.equal((await early).unattended, 'deny', 'the early caller gets what it read');
  const now = rules.get();
  assert.equal(reads.length, 2, 'the next use reads again');
  reads[1].resolve(stored);
  assert.equal((await now).unattended, 'allow');
  assert.equal((await rules.get()).rules[0]?.key, 'run_shell(git status:*)');
  assert.equal(reads.length, 2, 'and that read is the cache');
});

test('permission rules: this engine\'s write that lands after another engine\'s announced change does not become the cache', async () => {
  let stored: Partial<PermissionsFile> = { rules: [], unattended: 'deny' };
  let changed = () => {};
  const gate = deferred<void>();
  let reads = 0;
  const backend: RulesBackend = {
    read: async () => (reads++, stored),
    async update(change) {
      const mine = change(stored);
      stored = mine;
      await gate.promise; // the commit's answer is slow; another engine's change lands meanwhile
      return mine;
    },
    watch: (fn) => void (changed = fn),
  };
  const rules = new RuleStore({} as Home, undefined, backend);
  const writing = rules.setUnattended('allow');
  stored = { ...stored, rules: [{ key: 'grep(*)', decision: 'deny' }] };
  changed();
  gate.resolve();
  await writing;
  const seen = await rules.get();
  assert.equal(reads, 1, 'the cache is read again');
  assert.deepEqual(seen.rules, [{ key: 'grep(*)', decision: 'deny' }]);
});

test('notifications: a reload that began before a dismissal elsewhere cannot land after the one that followed it', async () => {
  const loads: Array<ReturnType<typeof deferred<NotificationRecord[]>>> = [];
  let changed = () => {};
  const backend: NotificationsBackend = {
    load() {
      const d = deferred<NotificationRecord[]>();
      loads.push(d);
      return loads.length === 1 ? Promise.resolve([]) : d.promise;
    },
    add: async () => undefined,
    markRead: async () => undefined,
    remove: async () => undefined,
    watch: (fn) => void (changed = fn),
  };
  const service = await createNotificationsService({ home: {} as Home, bus: new Bus(), log: () => undefined, backend });
  const made: NotificationRecord = { id: 'ntf-1', title: 'from A', level: 'info', ts: 1, read: false };
  changed(); // A added one: read again
  changed(); // C dismissed it: read again
  await tick();
  assert.equal(loads.length, 2, 'the second announcement waits for the read under way');
  loads[1].resolve([made]);
  await tick();
  assert.equal(loads.length, 3, 'then reads once more');
  loads[2].resolve([]);
  await tick();
  assert.deepEqual(service.list().notifications, [], 'the dismissal is what stays');
});
