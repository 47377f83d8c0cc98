import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { EngineError } from '../../src/kernel/errors.js';
import { Fence, type Root } from '../../src/kernel/fence.js';
import { FencedReader } from '../../src/kernel/fenced-read.js';

let base: string;
let ws: string;
let outside: string;
let mountDir: string;
let mounts: Root[];
let fence: Fence;

before(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'fence-')));
  ws = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  mountDir = path.join(base, 'proj');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await mkdir(outside);
  await mkdir(mountDir);
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(ws, 'a.txt'), 'a');
  await writeFile(path.join(mountDir, 'm.txt'), 'm');
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'out-file'));
  await symlink(outside, path.join(ws, 'out-dir'));
  await symlink(path.join(outside, 'new.txt'), path.join(ws, 'dangling-out'));
  await symlink(path.join(ws, 'a.txt'), path.join(ws, 'in-file'));
  await symlink(path.join(mountDir, 'm.txt'), path.join(ws, 'to-mount'));
  mounts = [{ name: 'proj', path: mountDir, kind: 'mount' }];
  fence = new Fence(ws, () => mounts);
});
after(() => rm(base, { recursive: true, force: true }));

async function refused(p: string, status?: number) {
  await assert.rejects(fence.resolve(p), (e: unknown) => {
    assert.ok(e instanceof EngineError, `expected EngineError for ${JSON.stringify(p)}`);
    assert.ok(e.status >= 400 && e.status < 500);
    if (status) assert.equal(e.status, status, `${JSON.stringify(p)}: ${e.message}`);
    assert.ok(e.message.length > 20);
    return true;
  });
}

test('bare paths land in the workspace, mount paths in the mount', async () => {
  const a = await fence.resolve('a.txt');
  assert.equal(a.real, path.join(ws, 'a.txt'));
  assert.equal(a.root.name, 'workspace');
  assert.equal(a.virtual, 'a.txt');
  const m = await fence.resolve('proj/m.txt');
  assert.equal(m.real, path.join(mountDir, 'm.txt'));
  assert.equal(m.root.kind, 'mount');
  assert.equal(m.relative, 'm.txt');
  const n = await fence.resolve('./sub//new/deeper.txt');
  assert.equal(n.virtual, 'sub/new/deeper.txt');
  assert.equal((await fence.resolve('in-file')).real, path.join(ws, 'in-file'));
  assert.equal((await fence.resolve('to-mount')).virtual, 'to-mount');
  assert.equal(fence.roots()[0].name, 'workspace');
  assert.equal(fence.root('proj').path, mountDir);
  assert.throws(() => fence.root('nope'), (e: unknown) => e instanceof EngineError && e.status === 404);
});

test('"%" and a leading "~" are ordinary file-name characters', async () => {
  for (const name of ['100%25.txt', '50%.md', '%E4%B8%AD.txt', '~notes.md', '~$doc.docx', 'sub/~/x']) {
    const r = await fence.resolve(name);
    assert.equal(r.virtual, name);
    assert.equal(r.real, path.join(ws, ...name.split('/')));
  }
});

test('roots are refused unless allowRoot', async () => {
  await refused('');
  await refused('.');
  await refused('proj');
  await refused('proj/');
  assert.equal((await fence.resolve('', { allowRoot: true })).real, ws);
  assert.equal((await fence.resolve('proj', { allowRoot: true })).real, mountDir);
});

test('toVirtual maps real paths back', () => {
  assert.equal(fence.toVirtual(path.join(ws, 'sub', 'x.md')), 'sub/x.md');
  assert.equal(fence.toVirtual(path.join(mountDir, 'm.txt')), 'proj/m.txt');
  assert.equal(fence.toVirtual(outside), undefined);
  assert.equal(fence.toVirtual(ws + 'x'), undefined);
  assert.equal(fence.toVirtual(path.join(ws, 'proj', 'hidden.md')), undefined); // hidden by mount "proj"
  assert.equal(fence.toVirtual(mountDir), 'proj');
  assert.equal(fence.toVirtual(ws), '');
});

test('place says which root an absolute path lies in, and which mount hides a workspace entry', async () => {
  assert.deepEqual(fence.place(path.join(mountDir, 'a', 'b.md')), { root: fence.root('proj'), relative: 'a/b.md', virtual: 'proj/a/b.md' });
  assert.deepEqual(fence.place(path.join(ws, 'proj', 'hidden.md')), { root: fence.root('workspace'), relative: 'proj/hidden.md', virtual: 'proj/hidden.md', shadowedBy: 'proj' });
  assert.equal(fence.place(outside), undefined);
  // The fenced reader places absolute paths by it: the hidden workspace entry is refused, not read as the mount's.
  const read = await new FencedReader(fence).read(path.join(ws, 'proj', 'hidden.md'), { for: 'person' });
  assert.equal(read.ok, false);
  assert.match(!read.ok ? read.reason : '', /hidden by the mount "proj"/);
});

test('the escape corpus is refused and the outside is untouched', async () => {
  const corpus = [
    '..',
    '../outside/secret.txt',
    'sub/../../outside/secret.txt',
    'sub/../..',
    './../outside',
    'proj/../outside/secret.txt',
    'proj/..',
    ' ../x',
    'a/.. /b',
    '..\\outside\\secret.txt',
    'sub\\..\\..\\x',
    '%2e%2e/outside/secret.txt',
    '%2E%2E%2Foutside',
    '..%2foutside',
    'sub%2f..%2f..%2fx',
    '%252e%252e/x',
    '%25252e%25252e/x',
    'a%5c..%5c..%5cx',
    'a%00.txt',
    '%7e/.ssh/id_rsa',
    '~',
    path.join(outside, 'secret.txt'),
    '/etc/passwd',
    '//etc/passwd',
    'C:/Windows/win.ini',
    'c:\\windows',
    '~/.ssh/id_rsa',
    'file:///etc/passwd',
    'a.txt\0.png',
    '\0',
    'out-file',
    'out-dir',
    'out-dir/secret.txt',
    'out-dir/new-file.txt',
    'out-dir/deep/new/file.txt',
    'dangling-out',
  ];
  for (const p of corpus) await refused(p);
  assert.ok(corpus.length >= 30);
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
});

test('a mount whose folder is replaced by a symlink pointing out is refused', async () => {
  const victim = path.join(base, 'victim');
  await mkdir(victim);
  await writeFile(path.join(victim, 'v.txt'), 'v');
  mounts.push({ name: 'victim', path: victim, kind: 'mount' });
  assert.equal((await fence.resolve('victim/v.txt')).relative, 'v.txt');
  await rm(victim, { recursive: true });
  await symlink(outside, victim);
  await refused('victim/secret.txt', 403);
  await refused('victim/new.txt', 403);
  await assert.rejects(fence.resolve('victim', { allowRoot: true }), (e: unknown) => e instanceof EngineError && e.status === 403);
  mounts.pop();
});

test('a symlink loop is a 400 sentence', async () => {
  await symlink(path.join(ws, 'loop-b'), path.join(ws, 'loop-a'));
  await symlink(path.join(ws, 'loop-a'), path.join(ws, 'loop-b'));
  await refused('loop-a', 400);
  await refused('loop-a/x', 400);
});
