/**
 * Checkpoints through a real chat turn with the scripted model: the snapshot comes before the first
 * write, the run's changes (files and memory) show in mode=run, a revert and the revert of the revert
 * work, and the user's own repository (status, index bytes, stash, refs) is byte-identical throughout.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { git, gitBuf, isolateGitHome, makeRepo, write } from './helpers.js';

/** Everything of the user's repository that a checkpoint or revert must never change. */
function userRepoState(dir: string) {
  const env = { GIT_OPTIONAL_LOCKS: '0' }; // our own look must not refresh the index either
  const saved = process.env.GIT_OPTIONAL_LOCKS;
  process.env.GIT_OPTIONAL_LOCKS = env.GIT_OPTIONAL_LOCKS;
  try {
    return {
      status: gitBuf(dir, 'status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all').toString('base64'),
      index: readFileSync(path.join(dir, '.git', 'index')).toString('base64'),
      stash: git(dir, 'stash', 'list', '--format=%H %gs'),
      refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
      head: readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8'),
      packedRefs: existsSync(path.join(dir, '.git', 'packed-refs')) ? readFileSync(path.join(dir, '.git', 'packed-refs'), 'utf8') : null,
    };
  } finally {
    if (saved === undefined) delete process.env.GIT_OPTIONAL_LOCKS;
    else process.env.GIT_OPTIONAL_LOCKS = saved;
  }
}

describe('checkpoints', () => {
  let h: ChatHarness;
  let ws: string;
  let userState: ReturnType<typeof userRepoState>;
  let runId: string;
  let firstSha: string;

  before(async () => {
    await isolateGitHome();
    h = await startChat('openai-compatible');
    ws = path.join(h.t.home, 'workspace');
    makeRepo(ws, { 'app.ts': 'export const version = 1;\n', 'keep.txt': 'untouched\n', '.gitignore': 'build/\n' });
    // A stash entry, a staged change, an untracked file and an ignored file: all must survive.
    write(ws, { 'app.ts': 'export const version = 2; // stashed\n' });
    git(ws, 'stash', '-q');
    write(ws, { 'staged.txt': 'staged by the user\n', 'notes.txt': 'untracked\n', 'build/out.js': 'ignored output\n' });
    git(ws, 'add', 'staged.txt');
    git(ws, 'tag', 'v1');
    userState = userRepoState(ws);
  });
  after(async () => h?.close());
  /** The shadow repository of a root, to read a checkpoint's own content. */
  const shadowOf = (root: string) => {
    const shadows = path.join(h.t.home, 'checkpoints', 'shadows');
    return path.join(shadows, readdirSync(shadows).find((n) => n.startsWith(`${root}-`))!);
  };

  it('a chat turn keeps the checkpoint of each root it changed, taken before its first file-changing tool call, once', async () => {
    h.model.script(
      { toolCalls: [{ name: 'read_file', args: { path: 'app.ts' } }] },
      {
        toolCalls: [
          { name: 'write_file', args: { path: 'app.ts', content: 'export const version = 99;\n' } },
          { name: 'write_file', args: { path: 'added-by-agent.txt', content: 'new\n' } },
        ],
      },
      { toolCalls: [{ name: 'memory', args: { command: 'create', path: '/memories/shared/lesson.md', file_text: 'remember the version bump\n' } }] },
      { text: 'done' },
    );
    const seq = h.lastSeq();
    const sent = await h.send('cp-1', 'bump the version', { permissionMode: 'allow' });
    assert.ok(sent.status < 300, JSON.stringify(sent.body));
    const end = await h.turnEnd('cp-1', seq);
    assert.equal(end.kind, 'run.completed', JSON.stringify(end));
    runId = end.runId!;
    const events = h.events.events.filter((e) => e.runId === runId);
    const created = events.filter((e) => e.kind === 'checkpoint.created');
    assert.deepEqual(created.map((e) => e.root).sort(), ['@memory', 'workspace']);
    const firstWrite = events.find((e) => e.kind === 'tool.call' && e.tool === 'write_file')!;
    const readCall = events.find((e) => e.kind === 'tool.result' && e.tool === 'read_file')!;
    const memoryCall = events.find((e) => e.kind === 'tool.call' && e.tool === 'memory')!;
    for (const c of created) assert.ok(c.seq > readCall.seq, 'a read-only call does not checkpoint');
    // Each is announced once its root changed: the workspace by the first write, the memory folder by the memory call.
    const workspaceCp = created.find((e) => e.root === 'workspace')!;
    assert.ok(workspaceCp.seq > firstWrite.seq && workspaceCp.seq < events.find((e) => e.kind === 'tool.result' && e.callId === firstWrite.callId)!.seq);
    assert.ok(created.find((e) => e.root === '@memory')!.seq > memoryCall.seq);
    firstSha = workspaceCp.sha as string;
    // ...but holds the state from before the run's first write (the memory folder's too: taken at that moment).
    assert.equal(git(ws, '--git-dir', shadowOf('workspace'), 'show', `${firstSha}:app.ts`), 'export const version = 1;\n');
    assert.match(firstSha, /^[0-9a-f]{40}$/);
    assert.equal(readFileSync(path.join(ws, 'app.ts'), 'utf8'), 'export const version = 99;\n');
    const list = await h.t.api('GET', `/api/git/checkpoints?runId=${runId}`);
    assert.equal(list.body.checkpoints.length, 2);
    assert.deepEqual(userRepoState(ws).stash, userState.stash);
  });

  it('a turn that changed nothing makes no checkpoint; one that changed only the workspace makes one', async () => {
    h.model.script({ toolCalls: [{ name: 'run_shell', args: { command: 'ls' } }] }, { toolCalls: [{ name: 'write_file', args: { path: 'app.ts', content: 'export const version = 99;\n' } }] }, { text: 'nothing to do' });
    const seq = h.lastSeq();
    assert.ok((await h.send('cp-none', 'look around', { permissionMode: 'allow' })).status < 300);
    const end = await h.turnEnd('cp-none', seq);
    assert.equal(end.kind, 'run.completed', JSON.stringify(end));
    assert.equal(h.events.events.filter((e) => e.runId === end.runId && e.kind === 'checkpoint.created').length, 0);
    assert.deepEqual((await h.t.api('GET', `/api/git/checkpoints?runId=${end.runId}`)).body.checkpoints, []);
    const none = await h.t.api('POST', '/api/checkpoints/revert-run', { runId: end.runId });
    assert.equal(none.status, 404);
    assert.match(none.body.error, /has no checkpoint/);

    h.model.script({ toolCalls: [{ name: 'write_file', args: { path: 'other.txt', content: 'changed\n' } }] }, { text: 'wrote it' });
    const seq2 = h.lastSeq();
    assert.ok((await h.send('cp-none', 'write one file', { permissionMode: 'allow' })).status < 300);
    const end2 = await h.turnEnd('cp-none', seq2);
    const made = (await h.t.api('GET', `/api/git/checkpoints?runId=${end2.runId}`)).body.checkpoints;
    assert.deepEqual(made.map((c: { root: string }) => c.root), ['workspace']);
    // The pending snapshots of the unchanged roots are gone with the next snapshot's pruning, refs included.
    const { pending } = JSON.parse(readFileSync(path.join(h.t.home, 'checkpoints', 'index.json'), 'utf8')).checkpoints.reduce(
      (acc: { pending: number }, c: { pending?: boolean; runId: string }) => ({ pending: acc.pending + (c.pending && c.runId === end.runId ? 1 : 0) }),
      { pending: 0 },
    );
    assert.equal(pending, 0);
    await rm(path.join(ws, 'other.txt'));
  });

  it('mode=run shows what the run changed since its first checkpoint, memory writes included', async () => {
    const res = await h.t.api('GET', `/api/git/contextual-diff?mode=run&runId=${runId}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.roots.sort(), ['@memory', 'workspace']);
    assert.match(res.body.diff, /diff --git a\/app\.ts b\/app\.ts[\s\S]*-export const version = 1;\n\+export const version = 99;/);
    assert.match(res.body.diff, /diff --git a\/added-by-agent\.txt b\/added-by-agent\.txt\nnew file mode/);
    assert.match(res.body.diff, /diff --git a\/@memory\/shared\/lesson\.md b\/@memory\/shared\/lesson\.md[\s\S]*\+remember the version bump/);
    assert.doesNotMatch(res.body.diff, /staged\.txt|notes\.txt|build\/out\.js/, 'what the user had before the run is not the run\'s change');
    const one = await h.t.api('GET', `/api/git/file-diff?mode=run&runId=${runId}&path=${encodeURIComponent('@memory/shared/lesson.md')}`);
    assert.match(one.body.diff, /\+remember the version bump/);
    assert.doesNotMatch(one.body.diff, /app\.ts/);
    const since = await h.t.api('GET', `/api/git/contextual-diff?mode=checkpoint&sha=${firstSha}`);
    assert.equal(since.body.root, 'workspace');
    assert.match(since.body.diff, /\+export const version = 99;/);
    const unknown = await h.t.api('GET', '/api/git/contextual-diff?mode=run&runId=run-1-1');
    assert.equal(unknown.status, 404);
    // a run that only read has no checkpoint and no changes
    const reader = h.t.engine.runs.start({ source: 'test' });
    const none = await h.t.api('GET', `/api/git/contextual-diff?mode=run&runId=${reader.id}`);
    assert.equal(none.status, 200);
    assert.equal(none.body.diff, '');
    assert.match(none.body.note, /has no checkpoint/);
    await reader.finish('completed');
  });

  it('the user\'s repository is byte-identical after the checkpoints (only the files the agent wrote differ)', () => {
    const now = userRepoState(ws);
    assert.equal(now.index, userState.index);
    assert.equal(now.stash, userState.stash);
    assert.equal(now.refs, userState.refs);
    assert.equal(now.head, userState.head);
    assert.equal(now.packedRefs, userState.packedRefs);
  });

  it('revert rolls the root back, snapshotting first; reverting to that snapshot undoes the revert', async () => {
    const seq = h.lastSeq();
    const res = await h.t.api('POST', '/api/checkpoints/revert', { sha: firstSha });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.root, 'workspace');
    assert.deepEqual(
      [...res.body.changed].sort((a: any, b: any) => a.path.localeCompare(b.path)),
      [
        { path: 'added-by-agent.txt', change: 'removed' },
        { path: 'app.ts', change: 'restored' },
      ],
    );
    assert.equal(readFileSync(path.join(ws, 'app.ts'), 'utf8'), 'export const version = 1;\n');
    assert.equal(existsSync(path.join(ws, 'added-by-agent.txt')), false);
    assert.equal(readFileSync(path.join(ws, 'build/out.js'), 'utf8'), 'ignored output\n', 'ignored files are left alone');
    const undoEvent = h.events.events.find((e) => e.kind === 'checkpoint.created' && e.seq > seq);
    assert.equal(undoEvent?.sha, res.body.undo);
    // the whole user repository is exactly as it was before the run
    assert.deepEqual(userRepoState(ws), userState);

    const undo = await h.t.api('POST', '/api/checkpoints/revert', { sha: res.body.undo });
    assert.equal(undo.status, 200, JSON.stringify(undo.body));
    assert.equal(readFileSync(path.join(ws, 'app.ts'), 'utf8'), 'export const version = 99;\n');
    assert.equal(readFileSync(path.join(ws, 'added-by-agent.txt'), 'utf8'), 'new\n');
    // and back once more, by a short sha
    const back = await h.t.api('POST', '/api/checkpoints/revert', { sha: firstSha.slice(0, 10) });
    assert.equal(back.status, 200);
    assert.deepEqual(userRepoState(ws), userState);
  });

  it('revert refuses unknown and malformed shas with sentences', async () => {
    const bad = await h.t.api('POST', '/api/checkpoints/revert', { sha: 'nothex' });
    assert.equal(bad.status, 400);
    const unknown = await h.t.api('POST', '/api/checkpoints/revert', { sha: 'deadbeefdeadbeef' });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /no checkpoint deadbeefdeadbeef/);
  });

  it('the memory folder reverts like any root', async () => {
    const mem = h.t.engine.git.checkpoints.list({ runId }).find((c) => c.root === '@memory')!;
    const res = await h.t.api('POST', '/api/checkpoints/revert', { sha: mem.sha });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.changed, [{ path: '@memory/shared/lesson.md', change: 'removed' }]);
  });
});
