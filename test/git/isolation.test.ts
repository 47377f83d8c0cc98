/**
 * Git never sees what it must not: the engine's own GIT_* environment, the engine home inside a
 * mounted folder (status, diffs, commits, checkpoints), and nested repositories never break a snapshot.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { isolateGitHome, makeRepo, write } from './helpers.js';

/** The test process's own environment without the bogus variables it sets for the engine. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e = { ...process.env };
  delete e.GIT_DIR;
  delete e.GIT_INDEX_FILE;
  delete e.GIT_WORK_TREE;
  return { ...e, ...extra };
}

describe('git isolation', () => {
  let t: TestEngine;
  let parent: string;
  let ws: string;
  const saved = { GIT_DIR: process.env.GIT_DIR, GIT_INDEX_FILE: process.env.GIT_INDEX_FILE, GIT_WORK_TREE: process.env.GIT_WORK_TREE };

  before(async () => {
    await isolateGitHome();
    // The home lies inside a folder that is itself a repository and gets mounted.
    parent = await tempDir('git-parent-');
    makeRepo(parent, { 'project.txt': 'v1\n', '.gitignore': '' });
    mkdirSync(path.join(parent, 'home'));
    t = await startTestEngine({ home: path.join(parent, 'home'), files: { watch: false } });
    ws = path.join(parent, 'home', 'workspace');
    makeRepo(ws, { 'w.txt': 'workspace\n' });
    const m = await t.api('POST', '/api/mounts', { path: parent, name: 'outer' });
    assert.ok(m.status < 300, JSON.stringify(m.body));
    write(parent, { 'project.txt': 'v2\n' });
    // Variables a user's shell may export: none may steer the engine's git commands.
    const bogus = await tempDir('git-bogus-');
    process.env.GIT_DIR = path.join(bogus, 'nowhere.git');
    process.env.GIT_INDEX_FILE = path.join(bogus, 'index');
    process.env.GIT_WORK_TREE = bogus;
  });
  after(async () => {
    Object.assign(process.env, saved);
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    await t.close();
    await rm(parent, { recursive: true, force: true });
  });

  it('the engine\'s own GIT_DIR, GIT_INDEX_FILE and GIT_WORK_TREE do not leak into its git commands', async () => {
    const res = await t.api('GET', '/api/git/status');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.branch, 'main');
    assert.equal(res.body.clean, true);
  });

  it('a mount holding the engine home never shows, diffs or commits the home', async () => {
    const st = await t.api('GET', '/api/git/status?root=outer');
    assert.equal(st.status, 200, JSON.stringify(st.body));
    const paths = [...st.body.unstaged, ...st.body.untracked].map((e: any) => e.path);
    assert.deepEqual(paths, ['outer/project.txt']);
    const d = await t.api('GET', '/api/git/contextual-diff?root=outer&mode=head');
    assert.doesNotMatch(d.body.diff, /outer\/home\//);
    const tree = await t.api('GET', '/api/git/tree-status?root=outer');
    assert.deepEqual(Object.keys(tree.body.entries), ['outer/project.txt']);
    const c = await t.api('POST', '/api/git/commit', { root: 'outer', message: 'project only' });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const committed = execFileSync('git', ['show', '--name-only', '--format=', 'HEAD'], { cwd: parent, encoding: 'utf8', env: env() });
    assert.deepEqual(committed.trim().split('\n'), ['project.txt']);
  });

  it('a checkpoint of that mount leaves the home out; a nested repository without a commit does not break it', async () => {
    mkdirSync(path.join(parent, 'empty-nested'));
    execFileSync('git', ['init', '-q', path.join(parent, 'empty-nested')], { env: env() });
    write(parent, { 'empty-nested/x.txt': 'x\n', 'loose.txt': 'loose\n', 'innerdir/i.txt': 'inner\n' });
    // a root inside this root has checkpoints of its own
    assert.ok((await t.api('POST', '/api/mounts', { path: path.join(parent, 'innerdir'), name: 'innerm' })).status < 300);
    const run = t.engine.runs.start({ source: 'test' });
    const made = await t.engine.git.checkpoints.snapshot({ runId: run.id, roots: ['outer'], reason: 'test' });
    assert.equal(made.length, 1);
    write(parent, { 'loose.txt': 'changed\n' });
    const changes = await t.engine.git.checkpoints.runChanges(run.id);
    assert.match(changes.diff, /a\/outer\/loose\.txt/);
    // list the checkpoint's tree straight from its shadow repository
    const cp = t.engine.git.checkpoints.list({ runId: run.id })[0];
    const shadows = path.join(parent, 'home', 'checkpoints', 'shadows');
    const dir = execFileSync('ls', [shadows], { encoding: 'utf8' }).split('\n').find((n) => n.startsWith('outer-'))!;
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', cp.sha], { encoding: 'utf8', env: env({ GIT_DIR: path.join(shadows, dir) }) });
    assert.doesNotMatch(files, /^home\//m);
    assert.doesNotMatch(files, /^innerdir\//m);
    await t.api('DELETE', '/api/mounts/innerm');
    assert.match(files, /^project\.txt$/m);
    assert.match(files, /^loose\.txt$/m);
    await run.finish('completed');
    assert.equal(readFileSync(path.join(parent, '.git', 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
  });

  it('a revert never writes or deletes through a folder an agent replaced with a symlink to outside the root', async () => {
    const victim = await tempDir('git-victim-');
    write(victim, { 'a.txt': 'victim a\n', 'keep.txt': 'victim keep\n' });
    write(ws, { 'sub/a.txt': 'ours\n' });
    const run = t.engine.runs.start({ source: 'test' });
    const [cp] = await t.engine.git.checkpoints.snapshot({ runId: run.id, roots: ['workspace'], reason: 'before' });
    await rm(path.join(ws, 'sub'), { recursive: true });
    symlinkSync(victim, path.join(ws, 'sub'));
    const res = await t.api('POST', '/api/checkpoints/revert', { sha: cp.sha });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(lstatSync(path.join(ws, 'sub')).isDirectory(), true, 'the link was replaced by the folder again');
    assert.equal(readFileSync(path.join(ws, 'sub/a.txt'), 'utf8'), 'ours\n');
    assert.equal(readFileSync(path.join(victim, 'a.txt'), 'utf8'), 'victim a\n');
    assert.equal(readFileSync(path.join(victim, 'keep.txt'), 'utf8'), 'victim keep\n');
    await run.finish('completed');
    await rm(victim, { recursive: true, force: true });
  });
});
