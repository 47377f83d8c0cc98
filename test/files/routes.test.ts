import assert from 'node:assert/strict';
import { mkdir, readFile, realpath, rm, symlink, writeFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { rawJson } from '../support/raw-http.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let ws: string;
let outside: string;
let proj: string;

before(async () => {
  t = await startTestEngine({ files: { revealCommand: null } });
  ws = await realpath(path.join(t.home, 'workspace'));
  outside = await realpath(await tempDir('files-outside-'));
  proj = await realpath(await tempDir('files-proj-'));
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(proj, 'readme.md'), '# Project\nhello mount\n');
});
after(async () => {
  await t.close();
  await rm(outside, { recursive: true, force: true });
  await rm(proj, { recursive: true, force: true });
});

const raw = (method: string, rawPath: string, body?: string) => rawJson(t.url, method, rawPath, body);

test('PUT then GET a file, with file.written on the socket', async () => {
  const events = await collectEvents(t.url);
  const put = await t.api('PUT', '/api/files/notes/todo.md', { content: 'buy milk\n' });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body, { ok: true, path: 'notes/todo.md', bytes: 9 });
  const ev = await events.waitFor((e) => e.kind === 'file.written' && e.path === 'notes/todo.md');
  assert.equal(ev.bytes, 9);
  const get = await t.api('GET', '/api/files/notes/todo.md');
  assert.deepEqual(get.body, { path: 'notes/todo.md', content: 'buy milk\n' });
  assert.equal(await readFile(path.join(ws, 'notes/todo.md'), 'utf8'), 'buy milk\n');
  const missing = await t.api('GET', '/api/files/notes/nope.md');
  assert.equal(missing.status, 404);
  const bad = await t.api('PUT', '/api/files/notes/x.md', { text: 'wrong field' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /content/);
  events.close();
});

test('PUT /api/files-bin stores raw bytes of any content type', async () => {
  const bytes = new Uint8Array([0, 1, 2, 255, 10, 0]);
  const res = await fetch(`${t.url}/api/files-bin/img/a.bin`, { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true, path: 'img/a.bin', bytes: 6 });
  assert.deepEqual(new Uint8Array(await readFile(path.join(ws, 'img/a.bin'))), bytes);
  const json = '{ "kept":   "as sent" }';
  const r2 = await fetch(`${t.url}/api/files-bin/data.json`, { method: 'PUT', body: json, headers: { 'content-type': 'application/json' } });
  assert.equal(r2.status, 200);
  assert.equal(await readFile(path.join(ws, 'data.json'), 'utf8'), json);
  const text = await t.api('GET', '/api/files/img/a.bin');
  assert.equal(text.status, 400);
  assert.match(text.body.error, /binary/);
  const rawGet = await fetch(`${t.url}/api/files/img/a.bin?raw=1`);
  assert.deepEqual(new Uint8Array(await rawGet.arrayBuffer()), bytes);
});

test('a binary upload over 32 MB but under 50 MB is accepted; over 50 MB is a 413', async () => {
  const big = new Uint8Array(40 * 1024 * 1024);
  const ok = await fetch(`${t.url}/api/files-bin/big.bin`, { method: 'PUT', body: big, headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(ok.status, 200);
  assert.equal((await stat(path.join(ws, 'big.bin'))).size, big.length);
  const tooBig = await fetch(`${t.url}/api/files-bin/huge.bin`, { method: 'PUT', body: new Uint8Array(51 * 1024 * 1024), headers: { 'content-type': 'application/octet-stream' } });
  assert.equal(tooBig.status, 413);
  await assert.rejects(stat(path.join(ws, 'huge.bin')));
  await rm(path.join(ws, 'big.bin'));
});

test('files-op: mkdir, copy, rename, delete, reveal; roots refused', async () => {
  assert.equal((await t.api('POST', '/api/files-op', { op: 'mkdir', path: 'a/b' })).status, 200);
  await t.api('PUT', '/api/files/a/b/x.txt', { content: 'x' });
  const copy = await t.api('POST', '/api/files-op', { op: 'copy', path: 'a', to: 'a2' });
  assert.equal(copy.status, 200);
  assert.equal(await readFile(path.join(ws, 'a2/b/x.txt'), 'utf8'), 'x');
  const clash = await t.api('POST', '/api/files-op', { op: 'copy', path: 'a', to: 'a2' });
  assert.equal(clash.status, 409);
  const mv = await t.api('POST', '/api/files-op', { op: 'rename', path: 'a2/b/x.txt', to: 'moved/y.txt' });
  assert.equal(mv.status, 200);
  assert.equal(await readFile(path.join(ws, 'moved/y.txt'), 'utf8'), 'x');
  const del = await t.api('POST', '/api/files-op', { op: 'delete', path: 'a2' });
  assert.equal(del.status, 200);
  await assert.rejects(stat(path.join(ws, 'a2')));
  for (const target of ['', '.', './']) {
    const r = await t.api('POST', '/api/files-op', { op: 'delete', path: target });
    assert.equal(r.status, 400);
    assert.match(r.body.error, /root/);
  }
  const reveal = await t.api('POST', '/api/files-op', { op: 'reveal', path: 'a' });
  assert.equal(reveal.status, 200);
  assert.equal(reveal.body.ok, false);
  assert.match(reveal.body.error, /no file manager/);
  const unknown = await t.api('POST', '/api/files-op', { op: 'explode', path: 'a' });
  assert.equal(unknown.status, 400);
  const outTo = await t.api('POST', '/api/files-op', { op: 'copy', path: 'a', to: '../escaped' });
  assert.equal(outTo.status, 400);
});

test('mounts: add, list, 409 on name or path, files across roots, unmount; persisted', async () => {
  const add = await t.api('POST', '/api/mounts', { path: proj, name: 'proj' });
  assert.equal(add.status, 201);
  assert.deepEqual(add.body.mount, { name: 'proj', path: proj });
  assert.equal((await t.api('POST', '/api/mounts', { path: outside, name: 'proj' })).status, 409);
  assert.equal((await t.api('POST', '/api/mounts', { path: proj, name: 'other' })).status, 409);
  assert.equal((await t.api('POST', '/api/mounts', { path: outside, name: 'bad name!' })).status, 400);
  assert.equal((await t.api('POST', '/api/mounts', { path: outside, name: 'workspace' })).status, 400);
  assert.equal((await t.api('POST', '/api/mounts', { path: 'relative/dir' })).status, 400);
  assert.equal((await t.api('POST', '/api/mounts', { path: path.join(outside, 'nope') })).status, 404);
  assert.equal((await t.api('POST', '/api/mounts', { path: path.join(ws, 'notes') })).status, 400);
  const list = await t.api('GET', '/api/mounts');
  assert.deepEqual(list.body.mounts, [{ name: 'proj', path: proj }]);
  const saved = JSON.parse(await readFile(path.join(t.home, 'mounts.json'), 'utf8'));
  assert.deepEqual(saved.mounts, [{ name: 'proj', path: proj }]);

  const tree = await t.api('GET', '/api/files');
  assert.equal(tree.status, 200);
  assert.deepEqual(tree.body.mounts, [{ name: 'proj', path: proj }]);
  const paths = tree.body.files.map((f: { path: string }) => f.path);
  assert.ok(paths.includes('notes/todo.md'));
  assert.ok(paths.includes('proj/readme.md'));
  assert.equal(tree.body.files.find((f: { path: string }) => f.path === 'proj/readme.md').size, 22);

  const read = await t.api('GET', '/api/files/proj/readme.md');
  assert.equal(read.body.content, '# Project\nhello mount\n');
  const w = await t.api('PUT', '/api/files/proj/new.txt', { content: 'in mount' });
  assert.equal(w.body.path, 'proj/new.txt');
  assert.equal(await readFile(path.join(proj, 'new.txt'), 'utf8'), 'in mount');
  const rootDel = await t.api('POST', '/api/files-op', { op: 'delete', path: 'proj' });
  assert.equal(rootDel.status, 400);

  const s = await t.api('GET', '/api/search?q=hello');
  assert.equal(s.status, 200);
  assert.deepEqual(s.body.results.find((r: { path: string }) => r.path === 'proj/readme.md').matches, [{ line: 2, col: 1, len: 5, text: 'hello mount' }]);

  const del = await t.api('DELETE', '/api/mounts/proj');
  assert.equal(del.status, 200);
  assert.equal((await t.api('DELETE', '/api/mounts/proj')).status, 404);
  assert.equal((await t.api('GET', '/api/files/proj/readme.md')).status, 404);
  // and back, for the restart check
  assert.equal((await t.api('POST', '/api/mounts', { path: proj })).status, 201);
  const t2 = await startTestEngine({ home: t.home, port: 0 } as never);
  try {
    const again = await t2.api('GET', '/api/mounts');
    assert.deepEqual(again.body.mounts, [{ name: path.basename(proj), path: proj }]);
  } finally {
    await t2.engine.close();
  }
  await t.api('DELETE', `/api/mounts/${path.basename(proj)}`);
});

test('a mount whose folder turns unreadable yields a warning, not a failure', async () => {
  const gone = await tempDir('files-gone-');
  await t.api('POST', '/api/mounts', { path: gone, name: 'gone' });
  await rm(gone, { recursive: true });
  const tree = await t.api('GET', '/api/files');
  assert.equal(tree.status, 200);
  assert.ok(tree.body.warnings.some((w: string) => w.includes('gone')));
  const write = await t.api('PUT', '/api/files/gone/x.txt', { content: 'x' });
  assert.equal(write.status, 404);
  await assert.rejects(stat(gone)); // not silently re-created
  await t.api('DELETE', '/api/mounts/gone');
});

test('GET /api/search: case, regex, short query and bad regex', async () => {
  await t.api('PUT', '/api/files/s/one.txt', { content: 'Alpha beta\nalpha ALPHA\n' });
  const ci = await t.api('GET', '/api/search?q=alpha');
  const one = ci.body.results.find((r: { path: string }) => r.path === 's/one.txt');
  assert.deepEqual(one.matches.map((m: { line: number; col: number }) => [m.line, m.col]), [[1, 1], [2, 1], [2, 7]]);
  assert.equal(ci.body.truncated, false);
  const cs = await t.api('GET', '/api/search?q=alpha&case=1');
  assert.deepEqual(cs.body.results.find((r: { path: string }) => r.path === 's/one.txt').matches.map((m: { line: number }) => m.line), [2]);
  const re = await t.api('GET', '/api/search?q=' + encodeURIComponent('be.a$') + '&regex=1');
  assert.deepEqual(re.body.results.map((r: { path: string }) => r.path), ['s/one.txt']);
  const literal = await t.api('GET', '/api/search?q=' + encodeURIComponent('be.a$'));
  assert.deepEqual(literal.body.results, []);
  assert.equal((await t.api('GET', '/api/search?q=a')).status, 400);
  const bad = await t.api('GET', '/api/search?q=' + encodeURIComponent('(unclosed') + '&regex=1');
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /regular expression/);
});

test('escape corpus over HTTP: every attempt fails and the outside is untouched', async () => {
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'leak.txt'));
  await symlink(outside, path.join(ws, 'leakdir'));
  await mkdir(path.join(ws, 'deep'), { recursive: true });
  await symlink(outside, path.join(ws, 'deep', 'up'));
  await symlink(path.join(outside, 'dangling.txt'), path.join(ws, 'dangling.txt'));
  const attempts: Array<[string, string, string?]> = [
    ['GET', '/api/files/..%2f..%2fsecret.txt'],
    ['GET', '/api/files/%2e%2e/%2e%2e/etc/passwd'],
    ['GET', '/api/files/%252e%252e/secret.txt'],
    ['GET', '/api/files/..%5csecret.txt'],
    ['GET', '/api/files/a%00b'],
    ['GET', `/api/files/${encodeURIComponent(path.join(outside, 'secret.txt'))}`],
    ['GET', '/api/files//etc/passwd'],
    ['GET', '/api/files/leak.txt'],
    ['GET', '/api/files/leakdir/secret.txt'],
    ['GET', '/api/files/deep/up/secret.txt'],
    ['PUT', '/api/files/leak.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files/leakdir/secret.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files/leakdir/new.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files/deep/up/secret.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files/..%2fescape.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files-bin/leakdir/secret.txt', 'pwned'],
    ['POST', '/api/files-op', JSON.stringify({ op: 'delete', path: 'leakdir/secret.txt' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'delete', path: '../' + path.basename(outside) })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'rename', path: 'leakdir/secret.txt', to: 'mine.txt' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'copy', path: 'leak.txt', to: 'copy.txt' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'copy', path: 'notes/todo.md', to: 'leakdir/todo.md' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'mkdir', path: 'leakdir/newdir' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'delete', path: 'notes\\..\\..\\x' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'delete', path: path.join(outside, 'secret.txt') })],
    ['GET', '/api/files/%2e%2e%5c%2e%2e%5csecret.txt'],
    ['GET', '/api/files/~/.ssh/id_rsa'],
    ['GET', '/api/files/file:%2F%2F%2Fetc%2Fpasswd'],
    ['GET', '/api/files/C:%2FWindows%2Fwin.ini'],
    ['GET', '/api/files/leakdir'],
    ['PUT', '/api/files/dangling.txt', JSON.stringify({ content: 'pwned' })],
    ['PUT', '/api/files-bin/..%2f..%2fescape.bin', 'pwned'],
    ['POST', '/api/files-op', JSON.stringify({ op: 'rename', path: 'notes/todo.md', to: 'leakdir/moved.md' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'mkdir', path: 'deep/up/x/y' })],
    ['POST', '/api/files-op', JSON.stringify({ op: 'copy', path: 'notes/todo.md', to: '/tmp/escaped.md' })],
  ];
  assert.ok(attempts.length >= 30);
  for (const [method, route, body] of attempts) {
    const r = await raw(method, route, body);
    assert.ok(r.status >= 400 && r.status < 500, `${method} ${route} answered ${r.status}`);
    assert.equal(typeof r.body.error, 'string', `${method} ${route}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  await assert.rejects(stat(path.join(outside, 'new.txt')));
  await assert.rejects(stat(path.join(outside, 'todo.md')));
  await assert.rejects(stat(path.join(outside, 'newdir')));
  for (const absent of ['dangling.txt', 'moved.md', 'x']) await assert.rejects(stat(path.join(outside, absent)));
  assert.equal(await readFile(path.join(ws, 'notes/todo.md'), 'utf8').then(() => true), true);
  // the symlinks are never listed
  const tree = await t.api('GET', '/api/files');
  assert.ok(!tree.body.files.some((f: { path: string }) => f.path.startsWith('leak')));
});

test('a mount whose folder is later replaced by a symlink pointing out is refused', async () => {
  const victim = await realpath(await tempDir('files-victim-'));
  await writeFile(path.join(victim, 'v.txt'), 'v');
  assert.equal((await t.api('POST', '/api/mounts', { path: victim, name: 'victim' })).status, 201);
  await rm(victim, { recursive: true });
  await symlink(outside, victim);
  assert.equal((await t.api('GET', '/api/files/victim/secret.txt')).status, 403);
  assert.equal((await t.api('PUT', '/api/files/victim/secret.txt', { content: 'pwned' })).status, 403);
  assert.equal((await t.api('POST', '/api/files-op', { op: 'delete', path: 'victim/secret.txt' })).status, 403);
  const tree = await t.api('GET', '/api/files');
  assert.ok(!tree.body.files.some((f: { path: string }) => f.path.startsWith('victim/')));
  assert.ok(tree.body.warnings.some((w: string) => w.includes('victim')));
  const search = await t.api('GET', '/api/search?q=secret');
  assert.ok(!search.body.results.some((r: { path: string }) => r.path.startsWith('victim')));
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  await t.api('DELETE', '/api/mounts/victim');
  await rm(victim, { force: true });
});

test('GET /api/tools lists the nine file tools', async () => {
  const r = await t.api('GET', '/api/tools');
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.body), 'the body is the array of tools');
  const names = r.body.map((x: { name: string }) => x.name);
  for (const n of ['read_file', 'write_file', 'edit_file', 'multi_edit', 'list_dir', 'grep', 'glob', 'delete_file', 'search_code']) assert.ok(names.includes(n), n);
  const grep = r.body.find((x: { name: string }) => x.name === 'grep');
  assert.equal(grep.source, 'built-in');
  assert.equal(grep.group, 'files');
  assert.equal(grep.available, true);
  // Each tool carries its argument schema (issue 26), as a model is given it.
  assert.equal(grep.parameters.type, 'object');
  assert.equal(typeof grep.parameters.properties.pattern, 'object');
  assert.ok(r.body.every((x: { parameters?: { type?: string } }) => x.parameters?.type === 'object'));
  assert.ok(grep.description.length <= 300);
});

test('reveal opens the folder with the file manager when one exists', async () => {
  const t3 = await startTestEngine({ files: { revealCommand: '/bin/true', watch: false } });
  try {
    await t3.api('PUT', '/api/files/r/x.txt', { content: 'x' });
    const r = await t3.api('POST', '/api/files-op', { op: 'reveal', path: 'r/x.txt' });
    assert.deepEqual(r.body, { ok: true, op: 'reveal', path: 'r/x.txt' });
    const root = await t3.api('POST', '/api/files-op', { op: 'reveal', path: '' });
    assert.equal(root.body.ok, true);
    assert.equal((await t3.api('POST', '/api/files-op', { op: 'reveal', path: 'r/missing' })).status, 404);
  } finally {
    await t3.close();
  }
});

test('a mount containing the engine home never exposes engine state', async () => {
  const base = await realpath(await tempDir('files-homeparent-'));
  const home = path.join(base, 'home');
  const t4 = await startTestEngine({ home, files: { watch: false } });
  try {
    await writeFile(path.join(base, 'project.txt'), 'project needle_state');
    await t4.api('PUT', '/api/files/inws.txt', { content: 'workspace needle_state' });
    await writeFile(path.join(home, 'permissions.json'), '{"rules": [], "note": "needle_state"}');
    assert.equal((await t4.api('POST', '/api/mounts', { path: base, name: 'all' })).status, 201);
    assert.equal((await t4.api('POST', '/api/mounts', { path: path.join(home, 'runs'), name: 'runs' })).status, 400);
    assert.equal((await t4.api('GET', '/api/files/all/project.txt')).status, 200);
    const state = await t4.api('GET', '/api/files/all/home/permissions.json');
    assert.equal(state.status, 403);
    assert.match(state.body.error, /engine home/);
    assert.equal((await t4.api('PUT', '/api/files/all/home/permissions.json', { content: '{"rules":[{"key":"*","decision":"allow"}]}' })).status, 403);
    assert.equal((await t4.api('POST', '/api/files-op', { op: 'delete', path: 'all/home' })).status, 403);
    assert.match(await readFile(path.join(home, 'permissions.json'), 'utf8'), /needle_state/);
    const tree = await t4.api('GET', '/api/files');
    assert.ok(!tree.body.files.some((f: { path: string }) => f.path.startsWith('all/home/')));
    const search = await t4.api('GET', '/api/search?q=needle_state');
    assert.deepEqual(search.body.results.map((r: { path: string }) => r.path).sort(), ['all/project.txt', 'inws.txt']);
    const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false };
    const grep = await t4.engine.tools.call({ callId: 'g', name: 'grep', args: { pattern: 'needle_state', path: 'all' } }, ctx);
    assert.equal(grep.text, 'matches 1-1 of 1\nall/project.txt:1: project needle_state');
    const glob = await t4.engine.tools.call({ callId: 'h', name: 'glob', args: { pattern: '**/*.json', path: 'all' } }, ctx);
    assert.match(glob.text, /no files match/);
    const ls = await t4.engine.tools.call({ callId: 'l', name: 'list_dir', args: { path: 'all' } }, ctx);
    assert.equal(ls.text, 'project.txt');
  } finally {
    await t4.close();
    await rm(base, { recursive: true, force: true });
  }
});
