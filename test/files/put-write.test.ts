/**
 * PUT /api/files/<path> after the one-resolution fast path (bench/files-write): still an atomic
 * replace that keeps the old file's mode, still through a fenced link to its target, still refusing
 * what is not a regular file and anything leading outside.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, readFile, readdir, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let ws: string;
let outside: string;
before(async () => {
  t = await startTestEngine();
  ws = await realpath(path.join(t.home, 'workspace'));
  outside = await realpath(await tempDir('put-outside-'));
});
after(async () => {
  await t.close();
  await rm(outside, { recursive: true, force: true });
});

test('a rewrite replaces the file whole, keeps its mode (even bits the umask would drop) and leaves no temp file', async () => {
  await mkdir(path.join(ws, 'm/n'), { recursive: true });
  for (const [name, mode] of [['private.txt', 0o600], ['shared.txt', 0o666], ['script.sh', 0o755]] as const) {
    await writeFile(path.join(ws, 'm/n', name), 'old');
    await chmod(path.join(ws, 'm/n', name), mode);
    const res = await t.api('PUT', `/api/files/m/n/${name}`, { content: 'new text' });
    assert.equal(res.status, 200);
    assert.equal(await readFile(path.join(ws, 'm/n', name), 'utf8'), 'new text');
    assert.equal((await lstat(path.join(ws, 'm/n', name))).mode & 0o777, mode, name);
  }
  assert.deepEqual((await readdir(path.join(ws, 'm/n'))).filter((f) => f.endsWith('.tmp')), []);
});

test('a new file is created with its folders; a link inside the fence is written through and stays a link', async () => {
  assert.equal((await t.api('PUT', '/api/files/new/deep/f.txt', { content: 'made' })).status, 200);
  assert.equal(await readFile(path.join(ws, 'new/deep/f.txt'), 'utf8'), 'made');
  await writeFile(path.join(ws, 'target.txt'), 'before');
  await symlink(path.join(ws, 'target.txt'), path.join(ws, 'link.txt'));
  assert.equal((await t.api('PUT', '/api/files/link.txt', { content: 'through' })).status, 200);
  assert.equal(await readFile(path.join(ws, 'target.txt'), 'utf8'), 'through');
  assert.equal(await readlink(path.join(ws, 'link.txt')), path.join(ws, 'target.txt'));
});

test('a link leading outside is refused, a folder, a pipe or a link inside a linked folder outside are not written', async () => {
  await writeFile(path.join(outside, 'victim.txt'), 'victim');
  await symlink(path.join(outside, 'victim.txt'), path.join(ws, 'out-link.txt'));
  assert.equal((await t.api('PUT', '/api/files/out-link.txt', { content: 'x' })).status, 403);
  await symlink(outside, path.join(ws, 'out-dir'));
  assert.equal((await t.api('PUT', '/api/files/out-dir/victim.txt', { content: 'x' })).status, 403);
  assert.equal(await readFile(path.join(outside, 'victim.txt'), 'utf8'), 'victim');
  await mkdir(path.join(ws, 'a-folder'));
  assert.equal((await t.api('PUT', '/api/files/a-folder', { content: 'x' })).status, 409);
  execFileSync('mkfifo', [path.join(ws, 'a-pipe')]);
  assert.equal((await t.api('PUT', '/api/files/a-pipe', { content: 'x' })).status, 400);
  assert.ok((await lstat(path.join(ws, 'a-pipe'))).isFIFO(), 'the pipe is left as it was');
});

test('the quick path (folder opened and located by the kernel) hands everything else to the full fence', async () => {
  // A linked folder inside the fence: the kernel places the opened folder elsewhere than the text
  // path, so the quick path steps aside and the fence writes through the link.
  await mkdir(path.join(ws, 'real-dir'));
  await symlink(path.join(ws, 'real-dir'), path.join(ws, 'linked-dir'));
  assert.equal((await t.api('PUT', '/api/files/linked-dir/f.txt', { content: 'via link' })).status, 200);
  assert.equal(await readFile(path.join(ws, 'real-dir/f.txt'), 'utf8'), 'via link');
  assert.ok((await lstat(path.join(ws, 'linked-dir'))).isSymbolicLink(), 'the folder link stays a link');
  // A new file in an existing folder gets the default mode (0644 less the umask), no temp file left.
  assert.equal((await t.api('PUT', '/api/files/real-dir/new.txt', { content: 'n' })).status, 200);
  assert.equal((await lstat(path.join(ws, 'real-dir/new.txt'))).mode & 0o777, 0o644 & ~process.umask());
  assert.deepEqual((await readdir(path.join(ws, 'real-dir'))).filter((f) => f.endsWith('.tmp')), []);
});

test('a folder kept open between writes is proven again: moved, replaced by a link or deleted, the next write goes where the path now leads', async () => {
  await mkdir(path.join(ws, 'kept/dir'), { recursive: true });
  assert.equal((await t.api('PUT', '/api/files/kept/dir/f.txt', { content: 'one' })).status, 200);
  // Moved away and a new folder made at its path: the write lands in the new folder, the moved one keeps its text.
  await rename(path.join(ws, 'kept/dir'), path.join(ws, 'kept/moved'));
  await mkdir(path.join(ws, 'kept/dir'));
  assert.equal((await t.api('PUT', '/api/files/kept/dir/f.txt', { content: 'two' })).status, 200);
  assert.equal(await readFile(path.join(ws, 'kept/dir/f.txt'), 'utf8'), 'two');
  assert.equal(await readFile(path.join(ws, 'kept/moved/f.txt'), 'utf8'), 'one');
  // Replaced by a link to a folder outside: refused, nothing written there or in the old folder.
  await rename(path.join(ws, 'kept/dir'), path.join(ws, 'kept/moved-again'));
  await symlink(outside, path.join(ws, 'kept/dir'));
  assert.equal((await t.api('PUT', '/api/files/kept/dir/f.txt', { content: 'three' })).status, 403);
  assert.equal(await readFile(path.join(ws, 'kept/moved-again/f.txt'), 'utf8'), 'two');
  await assert.rejects(readFile(path.join(outside, 'f.txt')));
  // Deleted: the write creates the folder anew.
  await rm(path.join(ws, 'kept/dir'));
  assert.equal((await t.api('PUT', '/api/files/kept/dir/f.txt', { content: 'four' })).status, 200);
  assert.equal(await readFile(path.join(ws, 'kept/dir/f.txt'), 'utf8'), 'four');
});

test('eight writers to one file: every answer 200, the file is whole (one of the texts sent), no temp file left', async () => {
  await mkdir(path.join(ws, 'many'), { recursive: true });
  const texts = Array.from({ length: 8 }, (_, i) => String(i).repeat(5000));
  const answers = await Promise.all(texts.map((content) => t.api('PUT', '/api/files/many/one.txt', { content })));
  assert.deepEqual(answers.map((a) => a.status), texts.map(() => 200));
  assert.ok(texts.includes(await readFile(path.join(ws, 'many/one.txt'), 'utf8')));
  assert.deepEqual((await readdir(path.join(ws, 'many'))).filter((f) => f.endsWith('.tmp')), []);
});
