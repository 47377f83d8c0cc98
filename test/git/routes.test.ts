/** Every /api/git route against real repositories: renames, deletions, binary files, commas, nesting, detached HEAD, conflicts. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { git, isolateGitHome, makeRepo, write } from './helpers.js';

describe('git routes', () => {
  let t: TestEngine;
  let ws: string;
  let plain: string;
  let other: string;
  const q = (p: string) => encodeURIComponent(p);

  before(async () => {
    await isolateGitHome();
    t = await startTestEngine({ files: { watch: false } });
    ws = path.join(t.home, 'workspace');
    makeRepo(ws, {
      'a.txt': 'alpha\n',
      'old-name.txt': 'this file will be renamed\nline two\nline three\n',
      'gone.txt': 'to delete\n',
      'x,y.txt': 'comma one\n',
      'p,q.txt': 'comma two\n',
      'img.bin': Buffer.from([0, 1, 2, 3, 0, 255, 0]),
      'sub/deep.txt': 'deep\n',
    });
    // changes: a modification, a staged rename, a deletion, binary change, comma paths, untracked files
    write(ws, { 'a.txt': 'alpha\nbeta\n', 'x,y.txt': 'comma one changed\n', 'p,q.txt': 'comma two changed\n', 'img.bin': Buffer.from([0, 9, 9, 0, 1]), 'new dir/fresh file.txt': 'brand new\n' });
    git(ws, 'mv', 'old-name.txt', 'new-name.txt');
    await rm(path.join(ws, 'gone.txt'));
    // a nested repository inside the workspace
    makeRepo(path.join(ws, 'nested'), { 'n.txt': 'nested\n' });
    write(path.join(ws, 'nested'), { 'n.txt': 'nested changed\n' });
    // a mount that is not a repository, and one that is
    plain = await tempDir('git-plain-');
    write(plain, { 'readme.md': 'not a repo\n' });
    other = await tempDir('git-other-');
    makeRepo(other, { 'o.txt': 'other\n' });
    for (const [name, p] of [['plain', plain], ['other', other]]) {
      const res = await t.api('POST', '/api/mounts', { path: p, name });
      assert.ok(res.status < 300, JSON.stringify(res.body));
    }
  });
  after(async () => {
    await t.close();
    await rm(plain, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  });

  it('status parses staged renames, modifications, deletions, binary and untracked files with virtual paths', async () => {
    const { status, body } = await t.api('GET', '/api/git/status');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.branch, 'main');
    assert.equal(body.detached, false);
    assert.match(body.head, /^[0-9a-f]{40}$/);
    assert.deepEqual(body.staged, [{ path: 'new-name.txt', oldPath: 'old-name.txt', status: 'R' }]);
    const unstaged = Object.fromEntries(body.unstaged.map((e: any) => [e.path, e.status]));
    assert.deepEqual(unstaged, { 'a.txt': 'M', 'gone.txt': 'D', 'img.bin': 'M', 'p,q.txt': 'M', 'x,y.txt': 'M' });
    const untracked = body.untracked.map((e: any) => e.path).sort();
    assert.ok(untracked.includes('new dir/fresh file.txt'), JSON.stringify(untracked));
    assert.equal(body.clean, false);
    assert.equal(body.operation, null);
  });

  it('status of a mount uses its virtual prefix; a mount that is not a repository is a 404 sentence', async () => {
    write(other, { 'o.txt': 'other changed\n' });
    const ok = await t.api('GET', '/api/git/status?root=other');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.unstaged, [{ path: 'other/o.txt', status: 'M' }]);
    const nope = await t.api('GET', '/api/git/status?root=plain');
    assert.equal(nope.status, 404);
    assert.match(nope.body.error, /"plain" is not a git repository/);
    const unknown = await t.api('GET', '/api/git/status?root=nosuch');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /no mounted folder or repository folder is named "nosuch"/);
  });

  it('repos lists the workspace, nested repositories and repository mounts; a nested repository is a root of its own', async () => {
    const { body } = await t.api('GET', '/api/git/repos');
    const roots = body.repos.map((r: any) => r.root).sort();
    assert.deepEqual(roots, ['nested', 'other', 'workspace']);
    assert.equal(body.repos.find((r: any) => r.root === 'nested').nested, true);
    const one = await t.api('GET', '/api/git/repos?root=other');
    assert.deepEqual(one.body.repos, [{ root: 'other', rootName: 'other', path: 'other', nested: false }]);
    assert.equal((await t.api('GET', '/api/git/repos?root=nosuch')).status, 404);
    const nested = await t.api('GET', '/api/git/status?root=nested');
    assert.equal(nested.status, 200);
    assert.deepEqual(nested.body.unstaged, [{ path: 'nested/n.txt', status: 'M' }]);
  });

  it('tree-status is one map over every root and nested repository', async () => {
    const { body } = await t.api('GET', '/api/git/tree-status');
    assert.equal(body.entries['a.txt'], 'M');
    assert.equal(body.entries['new-name.txt'], 'R');
    assert.equal(body.entries['gone.txt'], 'D');
    assert.equal(body.entries['new dir/fresh file.txt'], '?');
    assert.equal(body.entries['nested/n.txt'], 'M');
    assert.equal(body.entries['other/o.txt'], 'M');
    assert.equal(body.truncated, false);
    const one = await t.api('GET', '/api/git/tree-status?root=other');
    assert.deepEqual(Object.keys(one.body.entries), ['other/o.txt']);
  });

  it('diff is the raw work-tree diff, staged=1 the index; binary files are summarised and listed', async () => {
    const wt = await t.api('GET', '/api/git/diff');
    assert.equal(wt.status, 200);
    assert.match(wt.body.diff, /^diff --git a\/a\.txt b\/a\.txt/m);
    assert.match(wt.body.diff, /\+beta/);
    assert.match(wt.body.diff, /deleted file mode/);
    assert.match(wt.body.diff, /Binary files a\/img\.bin and b\/img\.bin differ/);
    assert.deepEqual(wt.body.binary, ['img.bin']);
    assert.doesNotMatch(wt.body.diff, /new-name/);
    const staged = await t.api('GET', '/api/git/diff?staged=1');
    assert.match(staged.body.diff, /rename from old-name\.txt\nrename to new-name\.txt/);
    assert.doesNotMatch(staged.body.diff, /beta/);
    const mount = await t.api('GET', '/api/git/diff?root=other');
    assert.match(mount.body.diff, /^diff --git a\/other\/o\.txt b\/other\/o\.txt/m);
  });

  it('contextual-diff auto shows the staged changes when something is staged, else everything with untracked files as additions', async () => {
    const staged = await t.api('GET', '/api/git/contextual-diff');
    assert.equal(staged.body.mode, 'staged');
    assert.match(staged.body.diff, /rename to new-name\.txt/);
    const head = await t.api('GET', '/api/git/contextual-diff?mode=head');
    assert.equal(head.body.mode, 'head');
    assert.match(head.body.diff, /diff --git a\/new dir\/fresh file\.txt b\/new dir\/fresh file\.txt\nnew file mode/);
    assert.match(head.body.diff, /\+brand new/);
    // the user's index was not touched by the intent-to-add trick
    assert.match(git(ws, 'status', '--porcelain=v2', '-uall'), /^\? new dir\/fresh file\.txt$/m);
    const auto = await t.api('GET', '/api/git/contextual-diff?root=other');
    assert.equal(auto.body.mode, 'head');
    const bad = await t.api('GET', '/api/git/contextual-diff?mode=sideways');
    assert.equal(bad.status, 400);
  });

  it('file-diff shows one file, a rename with oldPath, and infers the root from a mount path', async () => {
    const one = await t.api('GET', `/api/git/file-diff?path=${q('a.txt')}&mode=unstaged`);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.path, 'a.txt');
    assert.match(one.body.diff, /\+beta/);
    assert.equal((one.body.diff.match(/^diff --git/gm) ?? []).length, 1);
    const ren = await t.api('GET', `/api/git/file-diff?path=${q('new-name.txt')}&oldPath=${q('old-name.txt')}&mode=staged`);
    assert.match(ren.body.diff, /rename from old-name\.txt/);
    const mount = await t.api('GET', `/api/git/file-diff?path=${q('other/o.txt')}`);
    assert.match(mount.body.diff, /\+other changed/);
    const escape = await t.api('GET', `/api/git/file-diff?path=${q('../etc/passwd')}`);
    assert.equal(escape.status, 400);
    const missing = await t.api('GET', '/api/git/file-diff');
    assert.equal(missing.status, 400);
  });

  it('files-diff takes paths= once per file and never splits a path at its comma', async () => {
    const res = await t.api('GET', `/api/git/files-diff?mode=unstaged&paths=${q('x,y.txt')}&paths=${q('p,q.txt')}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.files.map((f: any) => f.path), ['x,y.txt', 'p,q.txt']);
    assert.match(res.body.files[0].diff, /\+comma one changed/);
    assert.match(res.body.files[1].diff, /\+comma two changed/);
    const single = await t.api('GET', `/api/git/files-diff?mode=unstaged&paths=${q('x,y.txt')}`);
    assert.equal(single.body.files.length, 1);
  });

  it('a huge diff keeps whole files and lists the rest with a note', async () => {
    const big: Record<string, string> = {};
    const line = 'x'.repeat(199) + '\n';
    for (let i = 0; i < 8; i++) big[`big/f${i}.txt`] = line.repeat(2000); // 400 KB each, 3.2 MB in all
    write(other, big);
    const res = await t.api('GET', '/api/git/contextual-diff?root=other&mode=head');
    assert.equal(res.status, 200);
    assert.ok(res.body.omitted.length > 0 && res.body.omitted.length < 8, JSON.stringify(res.body.omitted?.length));
    assert.match(res.body.note, /left out/);
    assert.equal(res.body.omitted[0].added, 2000);
    const kept = res.body.diff.match(/^diff --git/gm).length;
    assert.equal(kept + res.body.omitted.length, 9); // 8 big files and o.txt
    assert.ok(res.body.diff.endsWith('\n'));
    await rm(path.join(other, 'big'), { recursive: true });
  });

  it('detached HEAD is reported as such', async () => {
    const head = git(other, 'rev-parse', 'HEAD').trim();
    git(other, 'checkout', '-q', '--detach', head);
    const { body } = await t.api('GET', '/api/git/status?root=other');
    assert.equal(body.detached, true);
    assert.equal(body.branch, null);
    assert.equal(body.head, head);
    git(other, 'checkout', '-q', 'main');
  });

  it('a merge conflict shows under conflicted with its two-letter code, and commit refuses with a sentence', async () => {
    const dir = path.join(other, '..', path.basename(other) + '-conflict');
    makeRepo(dir, { 'c.txt': 'base\n' });
    git(dir, 'checkout', '-q', '-b', 'side');
    write(dir, { 'c.txt': 'side\n' });
    git(dir, 'commit', '-q', '-am', 'side');
    git(dir, 'checkout', '-q', 'main');
    write(dir, { 'c.txt': 'main\n' });
    git(dir, 'commit', '-q', '-am', 'main');
    try {
      git(dir, 'merge', 'side');
    } catch {
      // the conflict is the point
    }
    await t.api('POST', '/api/mounts', { path: dir, name: 'conflict' });
    try {
      const { body } = await t.api('GET', '/api/git/status?root=conflict');
      assert.deepEqual(body.conflicted, [{ path: 'conflict/c.txt', status: 'U', conflict: 'UU' }]);
      assert.equal(body.operation, 'merge');
      const c = await t.api('POST', '/api/git/commit', { root: 'conflict', message: 'merge' });
      assert.equal(c.status, 409);
      assert.match(c.body.error, /unresolved merge conflicts|unmerged/);
    } finally {
      await t.api('DELETE', '/api/mounts/conflict');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('commit commits the staged changes only when something is staged, else everything; it answers the sha', async () => {
    const c = await t.api('POST', '/api/git/commit', { message: 'Rename the old file' });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.committed, 'staged');
    assert.equal(c.body.sha, git(ws, 'rev-parse', 'HEAD').trim());
    assert.equal(git(ws, 'log', '-1', '--format=%s%n%an').trim(), 'Rename the old file\nTest Person');
    assert.match(git(ws, 'status', '--porcelain'), / M a\.txt/); // unstaged changes stayed out
    const all = await t.api('POST', '/api/git/commit', { root: 'other', message: 'Everything' });
    assert.equal(all.body.committed, 'all');
    assert.equal(git(other, 'status', '--porcelain'), '');
    const again = await t.api('POST', '/api/git/commit', { root: 'other', message: 'Nothing' });
    assert.equal(again.status, 409);
    assert.match(again.body.error, /nothing to commit/);
    const empty = await t.api('POST', '/api/git/commit', { message: '' });
    assert.equal(empty.status, 400);
  });

  it('a repository before its first commit: no head, untracked files diff against the empty tree, the first commit works', async () => {
    const dir = path.join(other, '..', path.basename(other) + '-fresh');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'trunk');
    write(dir, { 'first.txt': 'first line\n' });
    await t.api('POST', '/api/mounts', { path: dir, name: 'fresh' });
    try {
      const st = await t.api('GET', '/api/git/status?root=fresh');
      assert.equal(st.status, 200, JSON.stringify(st.body));
      assert.equal(st.body.branch, 'trunk');
      assert.equal(st.body.head, null);
      assert.equal(st.body.detached, false);
      assert.deepEqual(st.body.untracked, [{ path: 'fresh/first.txt', status: '?' }]);
      const d = await t.api('GET', '/api/git/contextual-diff?root=fresh');
      assert.equal(d.body.mode, 'head');
      assert.match(d.body.diff, /new file mode 100644[\s\S]*\+first line/);
      const c = await t.api('POST', '/api/git/commit', { root: 'fresh', message: 'First' });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      assert.equal(git(dir, 'log', '--format=%s').trim(), 'First');
    } finally {
      await t.api('DELETE', '/api/mounts/fresh');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('commit without an identity answers how to set one', async () => {
    const saved = process.env.HOME;
    await isolateGitHome(false);
    try {
      write(other, { 'o.txt': 'needs an author\n' });
      const c = await t.api('POST', '/api/git/commit', { root: 'other', message: 'who am I' });
      assert.equal(c.status, 409);
      assert.match(c.body.error, /git config --global user\.name "Your Name"/);
      assert.match(c.body.error, /user\.email/);
    } finally {
      process.env.HOME = saved;
    }
  });

  it('never runs a hook of the repository', async () => {
    write(other, { '.git/hooks/pre-commit': '#!/bin/sh\ntouch "$(dirname "$0")/../../hook-ran"\n', 'o.txt': 'hooked\n' });
    const { chmodSync } = await import('node:fs');
    chmodSync(path.join(other, '.git/hooks/pre-commit'), 0o755);
    const c = await t.api('POST', '/api/git/commit', { root: 'other', message: 'no hooks' });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(existsSync(path.join(other, 'hook-ran')), false);
    assert.equal(readFileSync(path.join(other, 'o.txt'), 'utf8'), 'hooked\n');
  });
});
