/**
 * Reading, moving or commenting on one item reads that item's file only (issue 34): a move on a
 * board of 10 000 items costs what it costs on a board of 10. Its file is still read fresh, so a hand
 * edit or a hand delete of that item is seen at once, and a parent written by hand a moment ago can
 * be set; the list still reads the whole folder.
 */
import assert from 'node:assert/strict';
import fs, { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let items = '';
before(async () => {
  t = await startTestEngine();
  await t.api('PUT', '/api/work/keyed', { prefix: 'KY' });
  for (let i = 1; i <= 30; i++) assert.equal((await t.api('POST', '/api/work/keyed', { kind: 'task', title: `item ${i}` })).status, 201);
  items = path.join(t.engine.fence.root('workspace').path, '.work', 'keyed', 'items');
});
after(() => t.close());

/** Runs `fn` counting the stat (or lstat: the fenced reader's) and readdir calls on the board's items folder (named imports see the patch). */
async function touches(fn: () => Promise<unknown>): Promise<{ stats: Set<string>; listings: number }> {
  const stats = new Set<string>();
  let listings = 0;
  const { statSync, lstatSync, readdirSync } = fs;
  const patched = fs as { statSync: typeof fs.statSync; lstatSync: typeof fs.lstatSync; readdirSync: typeof fs.readdirSync };
  patched.statSync = ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    if (String(p).startsWith(items + path.sep)) stats.add(path.basename(String(p)));
    return statSync(p, o);
  }) as typeof fs.statSync;
  patched.lstatSync = ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
    if (String(p).startsWith(items + path.sep)) stats.add(path.basename(String(p)));
    return lstatSync(p, o);
  }) as typeof fs.lstatSync;
  patched.readdirSync = ((p: fs.PathLike, o?: any) => {
    if (String(p) === items) listings++;
    return readdirSync(p, o);
  }) as typeof fs.readdirSync;
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    patched.statSync = statSync;
    patched.lstatSync = lstatSync;
    patched.readdirSync = readdirSync;
    syncBuiltinESMExports();
  }
  return { stats, listings };
}

test('a read, a move and a comment read the one item, not the board', async () => {
  await t.api('GET', '/api/work?project=keyed'); // a full read first, as a client opening the board does
  for (const [what, call] of [
    ['read', () => t.api('GET', '/api/work/keyed/KY-7')],
    ['move', () => t.api('PUT', '/api/work/keyed/KY-7', { status: 'In Progress' })],
    ['comment', () => t.api('POST', '/api/work/keyed/KY-7/comment', { text: 'on it' })],
    ['parent', () => t.api('PUT', '/api/work/keyed/KY-7', { parent: 'KY-3' })],
  ] as const) {
    let status = 0;
    const seen = await touches(async () => (status = (await call()).status));
    assert.ok(status < 300, `${what}: ${status}`);
    assert.equal(seen.listings, 0, `${what} lists no folder`);
    assert.deepEqual([...seen.stats].sort(), what === 'parent' ? ['KY-3.md', 'KY-7.md'] : ['KY-7.md'], `${what} reads its item only`);
  }
  const full = await touches(() => t.api('GET', '/api/work?project=keyed'));
  assert.equal(full.listings, 1, 'the list reads the folder');
  assert.equal(full.stats.size, 30);
});

test('the one item is read fresh: a hand edit, a hand delete, a parent written by hand', async () => {
  await t.api('GET', '/api/work?project=keyed');
  const file = path.join(items, 'KY-12.md');
  writeFileSync(file, readFileSync(file, 'utf8').replace('title: item 12', 'title: edited by hand'));
  assert.equal((await t.api('GET', '/api/work/keyed/KY-12')).body.item.title, 'edited by hand');
  const moved = await t.api('PUT', '/api/work/keyed/KY-12', { status: 'Done' });
  assert.equal(moved.body.item.title, 'edited by hand', 'a move keeps the hand edit');
  assert.equal(moved.body.item.status, 'Done');

  rmSync(path.join(items, 'KY-13.md'));
  const gone = await t.api('PUT', '/api/work/keyed/KY-13', { status: 'Done' });
  assert.equal(gone.status, 404);
  assert.match(gone.body.error, /has no item KY-13/);

  // A file copied in by hand (another clone's item) can be a parent at once.
  writeFileSync(path.join(items, 'KY-99.md'), readFileSync(path.join(items, 'KY-1.md'), 'utf8').replace('title: item 1', 'title: from elsewhere'));
  const parented = await t.api('PUT', '/api/work/keyed/KY-12', { parent: 'KY-99' });
  assert.equal(parented.status, 200, JSON.stringify(parented.body));
  assert.equal(parented.body.item.parent, 'KY-99');
  const keys = (await t.api('GET', '/api/work?project=keyed')).body.boards[0].items.map((i: { key: string }) => i.key);
  assert.ok(keys.includes('KY-99') && !keys.includes('KY-13'), 'the list sees both hand changes');
});
