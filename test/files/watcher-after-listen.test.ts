/**
 * The engine listens before it arms the file watcher (a 50 000-file workspace takes about a second
 * to subscribe), and the watcher armed that way still reports changes made from outside.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { realpath, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

test('the API answers before the watcher watches a folder, and the watcher still reports outside changes', async () => {
  // In the order they happen: each server's port as it starts listening, and each path watched.
  const order: Array<number | string> = [];
  const listen = net.Server.prototype.listen;
  const watch = fs.watch;
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    this.once('listening', () => order.push((this.address() as net.AddressInfo).port));
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof listen;
  fs.watch = ((...args: Parameters<typeof watch>) => (order.push(String(args[0])), watch(...args))) as typeof watch;
  syncBuiltinESMExports();
  let t: TestEngine;
  try {
    t = await startTestEngine();
  } finally {
    net.Server.prototype.listen = listen;
    fs.watch = watch;
    syncBuiltinESMExports();
  }
  try {
    // The engine's own settings files have watchers of their own; the file watcher's are the workspace's folders.
    const ws = await realpath(path.join(t.home, 'workspace'));
    const firstWatch = order.findIndex((p) => typeof p === 'string' && (p === ws || p.startsWith(ws + path.sep)));
    assert.ok(firstWatch >= 0, 'the watcher watched the workspace during start');
    const listened = order.indexOf(t.engine.port);
    assert.ok(listened >= 0 && listened < firstWatch, `the API listened before the first folder was watched: ${JSON.stringify(order)}`);
    const events = await collectEvents(t.url);
    await writeFile(path.join(ws, 'after-listen.txt'), 'hi');
    await events.waitFor((e) => e.kind === 'fs.changed' && Array.isArray(e.paths) && e.paths.includes('after-listen.txt'), 20_000);
    events.close();
  } finally {
    await t.close();
  }
});
