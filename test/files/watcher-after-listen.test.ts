/**
 * The engine listens before it arms the file watcher (a 50 000-file workspace takes about a second
 * to subscribe), and the watcher armed that way still reports changes made from outside.
 */
import assert from 'node:assert/strict';
import { realpath, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import watcher from '@parcel/watcher';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

test('the API answers before the watcher subscribes, and the watcher still reports outside changes', async () => {
  const port = await freePort();
  const seen: number[] = [];
  const subscribe = watcher.subscribe;
  // Each subscription first asks the API for its status: before listen-first this was refused.
  watcher.subscribe = (async (...args: Parameters<typeof subscribe>) => {
    seen.push(await fetch(`http://127.0.0.1:${port}/api/status`).then((r) => r.status, () => 0));
    return subscribe(...args);
  }) as typeof subscribe;
  let t: TestEngine;
  try {
    t = await startTestEngine({ port });
  } finally {
    watcher.subscribe = subscribe;
  }
  try {
    assert.ok(seen.length >= 1, 'the watcher subscribed during start');
    assert.deepEqual(seen, seen.map(() => 200), 'every subscription came after the API answered');
    const events = await collectEvents(t.url);
    const ws = await realpath(path.join(t.home, 'workspace'));
    await writeFile(path.join(ws, 'after-listen.txt'), 'hi');
    await events.waitFor((e) => e.kind === 'fs.changed' && Array.isArray(e.paths) && e.paths.includes('after-listen.txt'), 20_000);
    events.close();
  } finally {
    await t.close();
  }
});
