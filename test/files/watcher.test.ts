import assert from 'node:assert/strict';
import { realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let ws: string;
let proj: string;
let events: EventCollector;

const changed = (p: string) => (e: { kind: string; paths?: unknown }) => e.kind === 'fs.changed' && Array.isArray(e.paths) && e.paths.includes(p);

before(async () => {
  t = await startTestEngine();
  ws = await realpath(path.join(t.home, 'workspace'));
  proj = await realpath(await tempDir('watch-proj-'));
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
  await rm(proj, { recursive: true, force: true });
});

test('a change made outside the engine is an fs.changed event', async () => {
  await writeFile(path.join(ws, 'outside-edit.txt'), 'hi');
  const e = await events.waitFor(changed('outside-edit.txt'), 20_000);
  assert.equal(e.runId, undefined);
});

test('the engine\'s own writes are file.written, not echoed as fs.changed', async () => {
  await t.api('PUT', '/api/files/own.txt', { content: 'mine' });
  await events.waitFor((e) => e.kind === 'file.written' && e.path === 'own.txt');
  // New parent folders, a mkdir, a copy, a rename and a delete are the engine's own too.
  await t.api('PUT', '/api/files/nested/a/b/own.txt', { content: 'mine' });
  await t.api('POST', '/api/files-op', { op: 'mkdir', path: 'made/x/y' });
  await t.api('POST', '/api/files-op', { op: 'copy', path: 'nested', to: 'copied/deep/nested' });
  await t.api('POST', '/api/files-op', { op: 'rename', path: 'copied', to: 'moved/here' });
  await t.api('POST', '/api/files-op', { op: 'delete', path: 'moved' });
  // A later outside change proves the watcher has caught up past the engine's writes.
  await writeFile(path.join(ws, 'marker.txt'), 'm');
  await events.waitFor(changed('marker.txt'), 20_000);
  const echoed = events.events
    .filter((e) => e.kind === 'fs.changed')
    .flatMap((e) => e.paths as string[])
    .filter((p) => /^(own\.txt|nested|made|copied|moved)/.test(p));
  assert.deepEqual(echoed, [], 'own writes echoed as fs.changed');
});

test('mounting re-arms the watcher over the new root', async () => {
  assert.equal((await t.api('POST', '/api/mounts', { path: proj, name: 'proj' })).status, 201);
  await writeFile(path.join(proj, 'from-outside.md'), 'x');
  await events.waitFor(changed('proj/from-outside.md'), 20_000);
  assert.equal((await t.api('DELETE', '/api/mounts/proj')).status, 200);
});
