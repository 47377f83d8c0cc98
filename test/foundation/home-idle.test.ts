/**
 * The engine's close waits for the writes still queued in its home (issue 41: a test's after hook
 * removed the home while a failed run's notification was being written into it: ENOTEMPTY), and
 * refuses any write that would start after it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Home } from '../../src/kernel/home.js';
import { startTestEngine } from '../support/engine.js';

test('Home.idle waits for every queued write, those queued while it waits included', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'home-idle-'));
  try {
    const home = new Home(dir);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // A slow writer (a busy disk), and a second write another listener queues once the first lands.
    void home.serialize(home.path('a.json'), async () => {
      await gate;
      await writeFile(home.path('a.json'), '1');
      void home.writeJson('b.json', { after: 'a' });
    });
    let idle = false;
    const waiting = home.idle().then(() => (idle = true));
    // The gate holds the write until released: a turn of the event loop is enough to see a wrong answer.
    await new Promise((r) => setImmediate(r));
    assert.equal(idle, false, 'idle while a write is still queued');
    release();
    await waiting;
    assert.deepEqual((await readdir(dir)).sort(), ['a.json', 'b.json'], 'both written, no temp file left');
    assert.deepEqual(JSON.parse(await readFile(home.path('b.json'), 'utf8')), { after: 'a' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a notification the engine starts writing as it closes is on disk when close returns', async () => {
  const t = await startTestEngine({ keepHome: true });
  try {
    const written = t.engine.notifications.notify({ title: 'written while closing', level: 'error' });
    await t.close();
    const stored = JSON.parse(await readFile(path.join(t.home, 'notifications.json'), 'utf8'));
    assert.ok(stored.notifications.some((n: { title: string }) => n.title === 'written while closing'));
    await written;
  } finally {
    await rm(t.home, { recursive: true, force: true });
  }
});

test('after the engine closed, a late write into its home is refused with a sentence and nothing lands', async () => {
  const t = await startTestEngine({ keepHome: true });
  try {
    await t.close();
    const before = (await readdir(t.home)).sort();
    // A notification (a timer or a reload that outlived the engine) and a history version.
    await assert.rejects(t.engine.notifications.notify({ title: 'too late', level: 'info' }), /^Error: the engine has stopped; notifications\.json was not written$/);
    await assert.rejects(t.engine.home.writeJson('history/workflow/late/versions.json', {}), /the engine has stopped; history\/workflow\/late\/versions\.json was not written/);
    assert.deepEqual((await readdir(t.home)).sort(), before);
  } finally {
    await rm(t.home, { recursive: true, force: true });
  }
});
