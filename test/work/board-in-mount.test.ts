/**
 * Issue 26: PUT /api/work/<project>?root=<mount> places a board in a mounted folder, so its
 * `.work/` is committed with that code; every other call finds the board where it lives.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';

test('a board placed in a mount lives there, is listed and written there, and stays there', async () => {
  const t = await startTestEngine();
  const repo = path.join(await tempDir('board-mount-'), 'app');
  await mkdir(repo, { recursive: true });
  try {
    assert.equal((await t.api('POST', '/api/mounts', { path: repo, name: 'app' })).status, 201);
    const put = await t.api('PUT', '/api/work/app?root=app', { prefix: 'APP' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.root, 'app');
    assert.equal(put.body.created, true);
    assert.equal(JSON.parse(await readFile(path.join(repo, '.work', 'app', 'board.json'), 'utf8')).prefix, 'APP');
    await assert.rejects(stat(path.join(t.home, 'workspace', '.work', 'app')), 'nothing in the workspace');

    const made = await t.api('POST', '/api/work/app', { kind: 'task', title: 'Ship the mount board' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.key, 'APP-1');
    assert.match(await readFile(path.join(repo, '.work', 'app', 'items', 'APP-1.md'), 'utf8'), /Ship the mount board/);
    const list = await t.api('GET', '/api/work');
    assert.deepEqual(list.body.boards.map((b: { project: string }) => b.project), ['app']);

    // A later PUT without root updates it in place; it cannot move to another root.
    const again = await t.api('PUT', '/api/work/app', { name: 'App board' });
    assert.equal(again.body.root, 'app');
    assert.equal(again.body.created, false);
    const move = await t.api('PUT', '/api/work/app?root=workspace', {});
    assert.equal(move.status, 409);
    assert.match(move.body.error, /already lives in app/);
    const nowhere = await t.api('PUT', '/api/work/other?root=nope', {});
    assert.equal(nowhere.status, 404);
    assert.match(nowhere.body.error, /no root "nope"/);
    // Without root a new board goes to the workspace, as before.
    assert.equal((await t.api('PUT', '/api/work/home-board', {})).body.root, 'workspace');
  } finally {
    await t.close();
    await rm(path.dirname(repo), { recursive: true, force: true });
  }
});

test('a board folder planted as a link into the engine home (a mount holding the home) or out of its root is never written through', async () => {
  const base = await tempDir('board-home-');
  const outside = await tempDir('board-outside-');
  const t = await startTestEngine({ home: path.join(base, 'home') });
  try {
    assert.equal((await t.api('POST', '/api/mounts', { path: base, name: 'outer' })).status, 201);
    await symlink(t.home, path.join(base, '.work'));
    const intoHome = await t.api('PUT', '/api/work/proj?root=outer', {});
    assert.equal(intoHome.status, 403, JSON.stringify(intoHome.body));
    assert.match(intoHome.body.error, /engine home/);
    await assert.rejects(stat(path.join(t.home, 'proj')), 'nothing written in the home');

    await rm(path.join(base, '.work'));
    await symlink(outside, path.join(base, '.work'));
    const out = await t.api('PUT', '/api/work/proj?root=outer', {});
    assert.equal(out.status, 403, JSON.stringify(out.body));
    await assert.rejects(stat(path.join(outside, 'proj')), 'nothing written outside');
  } finally {
    await t.close();
    await rm(base, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  }
});
