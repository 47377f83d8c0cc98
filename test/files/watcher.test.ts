import assert from 'node:assert/strict';
import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
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

/** Every change the watcher reported for `p`, in order. */
const changesOf = (p: string) =>
  events.events.filter((e) => e.kind === 'fs.changed').flatMap((e) => (e.changes as Array<{ type: string; path: string }>).filter((c) => c.path === p).map((c) => c.type));

test('folders: one made outside is watched at once, one moved in reports its files, one moved out is reported by its own path', async () => {
  // Made outside, a file written in it straight away: the folder is watched before it is read.
  await mkdir(path.join(ws, 'fresh/deeper'), { recursive: true });
  await writeFile(path.join(ws, 'fresh/deeper/a.txt'), 'a');
  await events.waitFor(changed('fresh/deeper/a.txt'), 20_000);
  await writeFile(path.join(ws, 'fresh/deeper/b.txt'), 'b');
  await events.waitFor(changed('fresh/deeper/b.txt'), 20_000);
  // A folder moved in from outside every root: no event names its files, the walk of it does.
  const away = await realpath(await tempDir('watch-away-'));
  await mkdir(path.join(away, 'pack/inner'), { recursive: true });
  await writeFile(path.join(away, 'pack/inner/c.txt'), 'c');
  await rename(path.join(away, 'pack'), path.join(ws, 'pack'));
  await events.waitFor(changed('pack/inner/c.txt'), 20_000);
  assert.deepEqual(changesOf('pack/inner/c.txt'), ['create']);
  // Moved out again: one delete, for the folder; a later folder of the same name is watched afresh.
  await rename(path.join(ws, 'pack'), path.join(away, 'pack'));
  await events.waitFor((e) => e.kind === 'fs.changed' && (e.changes as Array<{ type: string; path: string }>).some((c) => c.path === 'pack' && c.type === 'delete'), 20_000);
  await mkdir(path.join(ws, 'pack/inner'), { recursive: true });
  await writeFile(path.join(ws, 'pack/inner/d.txt'), 'd');
  await events.waitFor(changed('pack/inner/d.txt'), 20_000);
  // Changes inside ignored folders are neither watched nor reported.
  await mkdir(path.join(ws, 'node_modules/dep'), { recursive: true });
  await writeFile(path.join(ws, 'node_modules/dep/index.js'), 'x');
  await mkdir(path.join(ws, 'fresh/.git'), { recursive: true });
  await writeFile(path.join(ws, 'fresh/.git/HEAD'), 'ref');
  await writeFile(path.join(ws, 'marker-2.txt'), 'm');
  await events.waitFor(changed('marker-2.txt'), 20_000);
  const reported = events.events.filter((e) => e.kind === 'fs.changed').flatMap((e) => e.paths as string[]);
  assert.deepEqual(reported.filter((p) => /node_modules|\.git/.test(p)), []);
  await rm(away, { recursive: true, force: true });
});
