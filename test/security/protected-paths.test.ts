/**
 * A model's write, edit or delete into a protected path (git internals in every spelling, hook
 * folders, editor and agent configuration, start-up files) asks a person first under its own key
 * `protected_path(<name>)`: an allow rule for the file tools does not cover it, an unattended run is
 * refused whatever its default, a chat in `allow` mode still asks. Real git makes the repositories.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backgroundCall, requested, startGateEngine } from '../permissions/gate-support.js';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { tempDir, type TestEngine } from '../support/engine.js';
import type { EventCollector } from '../support/events.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString();

let t: TestEngine;
let events: EventCollector;
let close: () => Promise<void>;
let ws: string;
let mountDir: string;

const read = (rel: string) => readFile(path.join(ws, rel), 'utf8').catch(() => undefined);

/** An unattended call; answers the tool's text and whether it failed. */
async function unattended(name: string, args: Record<string, unknown>) {
  const call = backgroundCall(t, name, args, { attended: false });
  const out = await call.outcome;
  await call.done();
  return out;
}

before(async () => {
  ({ t, events, close } = await startGateEngine());
  ws = path.join(await realpath(t.home), 'workspace');
  await mkdir(path.join(ws, 'repo'), { recursive: true });
  git(ws, 'init', '-q', 'repo');
  git(path.join(ws, 'repo'), 'commit', '-q', '--allow-empty', '-m', 'first');
  git(path.join(ws, 'repo'), 'worktree', 'add', '-q', '../linked');
  git(path.join(ws, 'repo'), 'config', 'core.hooksPath', 'tools/hooks');
  git(ws, 'init', '-q', '--bare', 'bare.git');
  await mkdir(path.join(ws, 'repo', '.git', 'hooks'), { recursive: true });
  await writeFile(path.join(ws, 'repo', '.git', 'hooks', 'old-hook'), '#!/bin/sh\n');
  await symlink(path.join(ws, 'repo', '.git'), path.join(ws, 'gitlink'));
  mountDir = await realpath(await tempDir('protected-mount-'));
  git(mountDir, 'init', '-q', '.');
  const m = await t.api('POST', '/api/mounts', { path: mountDir, name: 'proj' });
  assert.equal(m.status, 201, JSON.stringify(m.body));
});

after(async () => {
  await close();
  await rm(mountDir, { recursive: true, force: true });
});

describe('protected paths', () => {
  it('refuses an unattended write into git internals in every spelling, leaving the files as they were', async () => {
    const config = await read('repo/.git/config');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['write_file', { path: 'repo/.git/config', content: '[core]\n\tfsmonitor = touch pwned\n' }],
      ['write_file', { path: 'repo/.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' }],
      ['write_file', { path: './repo//.git/hooks/post-checkout', content: 'x' }],
      ['write_file', { path: 'repo/.GIT/config', content: 'x' }],
      ['write_file', { path: 'repo/.git./config', content: 'x' }],
      ['write_file', { path: 'repo/.g\u200cit/config', content: 'x' }],
      ['write_file', { path: 'repo/git~1/config', content: 'x' }],
      ['write_file', { path: 'gitlink/config', content: 'x' }],
      ['write_file', { path: 'linked/.git', content: 'gitdir: ../evil\n' }],
      ['write_file', { path: 'bare.git/config', content: 'x' }],
      ['write_file', { path: 'bare.git/hooks/post-update', content: 'x' }],
      ['write_file', { path: 'repo/tools/hooks/pre-commit', content: 'x' }],
      ['write_file', { path: 'proj/.git/config', content: 'x' }],
      ['write_file', { path: 'vendor/sub/.git/hooks/pre-push', content: 'x' }],
      ['edit_file', { path: 'repo/.git/config', old_string: '[core]', new_string: '[core]\n\tpager = touch pwned' }],
      ['multi_edit', { path: 'repo/.git/config', edits: [{ old_string: '[core]', new_string: '[core]\n\tsshCommand = touch pwned' }] }],
      ['delete_file', { path: 'repo/.git/hooks/old-hook' }],
    ];
    for (const [name, args] of cases) {
      const out = await unattended(name, args);
      assert.equal(out.isError, true, `${name} ${JSON.stringify(args.path)} must be refused: ${out.text}`);
      assert.match(out.text, /protected_path\(\.git\)/, `${name} ${args.path}`);
      assert.match(out.text, /Nobody is watching/);
    }
    assert.equal(await read('repo/.git/config'), config);
    assert.equal(await read('repo/.git/hooks/old-hook'), '#!/bin/sh\n');
    for (const made of ['repo/.git/hooks/pre-commit', 'repo/.GIT/config', 'repo/tools/hooks/pre-commit', 'bare.git/hooks/post-update', 'vendor/sub/.git/hooks/pre-push']) {
      assert.equal(await read(made), undefined, `${made} was not written`);
    }
    assert.match((await read('linked/.git'))!, /^gitdir: /);
  });

  it('asks when a write would turn a plain folder into a git dir', async () => {
    assert.equal((await unattended('write_file', { path: 'nb/objects/a', content: 'x' })).isError, false);
    assert.equal((await unattended('write_file', { path: 'nb/refs/a', content: 'x' })).isError, false);
    const out = await unattended('write_file', { path: 'nb/HEAD', content: 'ref: refs/heads/main\n' });
    assert.equal(out.isError, true, out.text);
    assert.equal(await read('nb/HEAD'), undefined);
  });

  it('guards hook folders, editor and agent configuration and start-up files under their own keys', async () => {
    const cases: Array<[string, string]> = [
      ['.husky/pre-commit', '.husky'],
      ['.githooks/pre-push', '.githooks'],
      ['.vscode/tasks.json', '.vscode'],
      ['.idea/workspace.xml', '.idea'],
      ['.claude/settings.json', '.claude'],
      ['.claude/settings.local.json', '.claude'],
      ['.codex/config.toml', '.codex'],
      ['.mcp.json', '.mcp.json'],
      ['.npmrc', '.npmrc'],
      ['.yarnrc.yml', '.yarnrc.yml'],
      ['proj/.bashrc', '.bashrc'],
      ['home/.profile', '.profile'],
      ['nested/.gitconfig', '.gitconfig'],
    ];
    for (const [p, name] of cases) {
      const out = await unattended('write_file', { path: p, content: 'echo pwned' });
      assert.equal(out.isError, true, `${p}: ${out.text}`);
      assert.ok(out.text.includes(`protected_path(${name})`), `${p}: ${out.text}`);
      assert.equal(await read(p), undefined);
    }
  });

  it('leaves the project itself alone: code, package.json, ignore files, skills and agents', async () => {
    for (const p of ['src/app.ts', 'package.json', 'Makefile', '.gitignore', '.gitattributes', '.gitmodules', '.envrc', '.claude/skills/x/SKILL.md', '.claude/agents/a.md', 'repo/src/x.ts', 'solo/HEAD', 'my.git.txt']) {
      const out = await unattended('write_file', { path: p, content: 'fine' });
      assert.equal(out.isError, false, `${p}: ${out.text}`);
      assert.equal(await read(p), 'fine');
    }
  });

  it('prompts attended under its own key, which an allow rule for write_file does not cover; deny leaves the file', async () => {
    assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'write_file', decision: 'allow' })).status, 200);
    assert.equal((await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
    try {
      const config = await read('repo/.git/config');
      const call = backgroundCall(t, 'write_file', { path: 'repo/.git/config', content: '[core]\n\tfsmonitor = touch pwned\n' });
      const asked = await events.waitFor(requested(call.callId));
      assert.equal(asked.key, 'protected_path(.git)');
      assert.equal(asked.class, 'code');
      assert.equal(asked.protectedPath, true);
      assert.match(String(asked.display), /fsmonitor = touch pwned/, 'the person sees what would be written');
      assert.match(String(asked.reason), /protected path/);
      const res = await t.api('POST', '/api/permissions/resolve', { runId: call.run.id, callId: call.callId, decision: 'deny', scope: 'once' });
      assert.equal(res.status, 200);
      const out = await call.outcome;
      await call.done();
      assert.equal(out.isError, true);
      assert.equal(await read('repo/.git/config'), config);
      // The unattended default `allow` does not reach protected paths either.
      assert.equal((await unattended('write_file', { path: 'repo/.git/hooks/pre-commit', content: 'x' })).isError, true);
    } finally {
      await t.api('DELETE', '/api/permissions/rule?key=write_file');
      await t.api('PUT', '/api/permissions/defaults', { unattended: 'deny' });
    }
  });

  it('"always" saves a rule for that key only: .git writes then run, other protected paths still ask', async () => {
    const call = backgroundCall(t, 'write_file', { path: 'repo/.git/description', content: 'allowed\n' });
    await events.waitFor(requested(call.callId));
    await t.api('POST', '/api/permissions/resolve', { runId: call.run.id, callId: call.callId, decision: 'allow', scope: 'always' });
    assert.equal((await call.outcome).isError, false);
    await call.done();
    assert.equal(await read('repo/.git/description'), 'allowed\n');
    const rules = (await t.api('GET', '/api/permissions')).body.rules as Array<{ key: string }>;
    assert.deepEqual(
      rules.map((r) => r.key),
      ['protected_path(.git)'],
    );
    assert.equal((await unattended('write_file', { path: 'repo/.git/description', content: 'again\n' })).isError, false);
    assert.equal((await unattended('write_file', { path: '.vscode/settings.json', content: '{}' })).isError, true);
    await t.api('DELETE', '/api/permissions/rule?key=' + encodeURIComponent('protected_path(.git)'));
  });

  it('a deny rule for the tool still denies a protected write', async () => {
    await t.api('POST', '/api/permissions/rule', { key: 'delete_file', decision: 'deny' });
    await t.api('POST', '/api/permissions/rule', { key: 'protected_path(.git)', decision: 'allow' });
    try {
      const out = await unattended('delete_file', { path: 'repo/.git/hooks/old-hook' });
      assert.equal(out.isError, true);
      assert.match(out.text, /by a saved rule/);
      assert.equal(await read('repo/.git/hooks/old-hook'), '#!/bin/sh\n');
    } finally {
      await t.api('DELETE', '/api/permissions/rule?key=delete_file');
      await t.api('DELETE', '/api/permissions/rule?key=' + encodeURIComponent('protected_path(.git)'));
    }
  });
});

describe('protected paths in a chat in allow mode (scripted model)', () => {
  let h: ChatHarness;
  before(async () => {
    h = await startChat('openai-compatible');
    const w = path.join(await realpath(h.t.home), 'workspace');
    git(w, 'init', '-q', 'repo');
  });
  after(() => h.close());

  it('still asks a person, and switching the mode to allow does not release the prompt', async () => {
    const hooks = path.join(await realpath(h.t.home), 'workspace', 'repo', '.git', 'hooks', 'pre-commit');
    h.model.script({ toolCalls: [{ name: 'write_file', args: { path: 'repo/.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' } }] }, { text: 'ok' });
    const seq = h.lastSeq();
    await h.send('prot', 'add a hook', { permissionMode: 'allow' });
    const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'prot');
    assert.equal(asked.key, 'protected_path(.git)');
    assert.equal((await h.t.api('PUT', '/api/chat/mode', { sessionId: 'prot', permissionMode: 'allow' })).status, 200);
    const pending = await h.t.api('GET', '/api/permissions/pending');
    assert.equal(pending.body.pending.length, 1, 'the prompt still waits for a person');
    await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'deny', scope: 'once' });
    const end = await h.turnEnd('prot', seq);
    assert.equal(end.kind, 'run.completed');
    await assert.rejects(readFile(hooks), 'the hook was not written');
    // A plain write in the same allow-mode chat runs without a prompt.
    h.model.script({ toolCalls: [{ name: 'write_file', args: { path: 'repo/notes.md', content: 'hi' } }] }, { text: 'done' });
    const seq2 = h.lastSeq();
    await h.send('prot', 'write notes');
    const end2 = await h.turnEnd('prot', seq2);
    assert.equal(end2.kind, 'run.completed');
    assert.ok(!h.events.events.some((e) => e.kind === 'permission.requested' && e.seq > seq2));
  });
});
