/**
 * An atlas's staleness is kept from file events (issue 42): worked out once, kept until a file event
 * touches the scope, the atlas is rebuilt or its scope changes; with the file watcher off, every ask
 * works it out. End to end: the engine's own write counts at once, an outside edit once the watcher
 * has heard it, a folder moved out marks its unit, and without the watcher an outside edit
 * counts at once.
 */
import assert from 'node:assert/strict';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { StalenessCache } from '../../src/capabilities/atlas/staleness.js';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { startTestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';
import { FIXTURE } from './fixture.js';

const event = (kind: string, fields: Record<string, unknown>) => ({ kind, seq: 0, ts: 0, ...fields }) as EngineEvent;

test('the cache works staleness out once, and again only after a file event in the scope, a rebuild or a new scope', async () => {
  let watching = true;
  const cache = new StalenessCache(() => watching);
  let works = 0;
  const work = async () => (works++, ['core']);
  assert.deepEqual(await cache.get('a', 1, ['app'], work), ['core']);
  assert.deepEqual(await cache.get('a', 1, ['app'], work), ['core']);
  assert.equal(works, 1, 'kept while nothing changed');
  cache.onEvent(event('fs.changed', { paths: ['other/x.ts', 'application.ts'] }));
  cache.onEvent(event('file.read', { path: 'app/core/cart.ts' }));
  await cache.get('a', 1, ['app'], work);
  assert.equal(works, 1, 'events outside the scope, and reads, keep it');
  cache.onEvent(event('fs.changed', { paths: ['app/core/cart.ts'] }));
  await cache.get('a', 1, ['app'], work);
  assert.equal(works, 2, 'an outside change in the scope lets it go');
  cache.onEvent(event('file.renamed', { path: 'elsewhere/a.ts', to: 'app/a.ts' }));
  await cache.get('a', 1, ['app'], work);
  assert.equal(works, 3, 'a rename into the scope lets it go');
  await cache.get('a', 2, ['app'], work);
  assert.equal(works, 4, 'a rebuilt document is worked out again');
  await cache.get('a', 2, ['app', 'lib'], work);
  assert.equal(works, 5, 'so is a new scope');
  cache.onEvent(event('mounts.changed', {}));
  await cache.get('a', 2, ['app', 'lib'], work);
  assert.equal(works, 6, 'a mount or unmount lets every atlas go');
  // An event heard while the answer was being worked out: that answer may predate it, so it is not kept.
  await cache.get('b', 1, [''], async () => (cache.onEvent(event('file.written', { path: 'x.ts' })), works++, []));
  await cache.get('b', 1, [''], work);
  assert.equal(works, 8);
  watching = false;
  await cache.get('b', 1, [''], work);
  assert.equal(works, 9, 'without the watcher every ask works it out');
});

const stale = async (t: Awaited<ReturnType<typeof startTestEngine>>) => (await t.api('GET', '/api/atlas/std-app')).body.stale as string[];

async function withFixture(watch: boolean) {
  const t = await startTestEngine(watch ? {} : { files: { watch: false } });
  const ws = path.join(t.home, 'workspace');
  for (const [rel, text] of Object.entries(FIXTURE)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
  assert.equal((await t.api('POST', '/api/atlas/standard', { scope: 'app' })).status, 200);
  assert.deepEqual(await stale(t), []);
  return { t, ws };
}

test('end to end: the engine\'s own write counts at once, an outside edit and a folder moved out once heard', async () => {
  const { t, ws } = await withFixture(true);
  try {
    assert.equal((await t.api('PUT', '/api/files/app/web/routes.ts', { content: FIXTURE['app/web/routes.ts'] + '// mine\n' })).status, 200);
    assert.deepEqual(await stale(t), ['web'], 'the write\'s own event let the kept answer go before the write answered');
    await writeFile(path.join(ws, 'app/core/cart.ts'), FIXTURE['app/core/cart.ts'] + '// touched\n');
    await until('the outside edit to be heard', async () => (await stale(t)).includes('core'));
    assert.deepEqual(await stale(t), ['core', 'web']);
    // Moved out of the workspace: one event names the folder, none its files.
    await rename(path.join(ws, 'app/py/pkg'), path.join(t.home, 'pkg-moved-away'));
    await until('the folder moved away to be heard', async () => (await stale(t)).includes('py/pkg'));
    assert.deepEqual(await stale(t), ['core', 'py/pkg', 'web']);
  } finally {
    await t.close();
  }
});

test('without the file watcher an outside edit counts at once', async () => {
  const { t, ws } = await withFixture(false);
  try {
    await writeFile(path.join(ws, 'app/util/log.ts'), FIXTURE['app/util/log.ts'] + '// touched\n');
    assert.deepEqual(await stale(t), ['util']);
  } finally {
    await t.close();
  }
});
