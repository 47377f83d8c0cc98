/**
 * Issue 22 §1, the sandbox's side, through chat turns with the scripted model and a `make` rule:
 * a `.git` file pointing through a symlink out of the workspace makes the engine create nothing
 * there and never stops later commands; a repository's `.git` cannot be renamed away and copied back
 * writable; a missing config.worktree cannot be made; a new `commondir` is reported.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { tempDir } from '../support/engine.js';

let h: ChatHarness;
let ws: string;
let outside: string;

before(async () => {
  h = await startChat('openai-compatible');
  ws = h.t.engine.fence.root('workspace').path;
  outside = await realpath(await tempDir('sandbox-git-outside-'));
  execFileSync('git', ['init', '-q'], { cwd: ws });
  await writeFile(
    `${ws}/Makefile`,
    [
      'hostile:',
      `\tmkdir -p sub && ln -sfn ${outside} link && printf 'gitdir: ../link/evil\\n' > sub/.git`,
      'hello:',
      '\techo hello > hello.txt',
      'rename:',
      "\tmv .git .git-old && cp -a .git-old .git && git config core.fsmonitor 'touch fsmonitor-ran' || echo rename refused",
      'worktree-config:',
      "\tprintf '[core]\\n\\tfsmonitor = touch fsmonitor-ran\\n' > .git/config.worktree || echo worktree config refused",
      'commondir:',
      "\tcp -r .git ../copy.git 2>/dev/null || cp -r .git copy.git; printf '[core]\\n\\tfsmonitor = touch fsmonitor-ran\\n' >> copy.git/config; echo ../copy.git > .git/commondir",
    ].join('\n') + '\n',
  );
  assert.equal((await h.t.api('POST', '/api/permissions/rule', { key: 'run_shell(make:*)', decision: 'allow' })).status, 200);
});
after(async () => {
  await h.close();
  await rm(outside, { recursive: true, force: true });
});

/** One chat turn running `command`; the tool result the model was sent next. */
async function turn(session: string, command: string): Promise<string> {
  h.model.script({ toolCalls: [{ name: 'run_shell', args: { command } }] }, { text: 'done' });
  const seq = h.lastSeq();
  const asked = h.model.requests.length;
  assert.equal((await h.send(session, `run ${command}`)).status, 202);
  const end = await h.turnEnd(session, seq);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const messages = h.model.requests[asked + 1].body.messages as Array<{ role: string; content: unknown }>;
  return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content);
}

test('a .git file pointing out of the workspace: nothing is made outside, later commands run, the layout is logged', async () => {
  await turn('layout', 'make hostile');
  const out = await turn('layout', 'make hello');
  assert.match(out, /hello/);
  assert.ok(existsSync(`${ws}/hello.txt`), out);
  assert.deepEqual(await readdir(outside), [], 'the engine made something outside the workspace');
  assert.ok(h.t.logs.some((l) => /sub\/\.git points at .*link\/evil.*skipped/.test(l)), h.t.logs.join('\n'));
});

test(".git cannot be renamed away and copied back writable, and a missing config.worktree cannot be made", async () => {
  const rename = await turn('rename', 'make rename');
  assert.match(rename, /rename refused/);
  assert.doesNotMatch(await readFile(`${ws}/.git/config`, 'utf8'), /fsmonitor/);
  assert.ok(!existsSync(`${ws}/.git-old`));
  const wt = await turn('rename', 'make worktree-config');
  assert.match(wt, /worktree config refused/);
  assert.doesNotMatch(await readFile(`${ws}/.git/config.worktree`, 'utf8').catch(() => ''), /fsmonitor/);
});

test('a commondir pointing at a writable copy is reported after the command', async () => {
  const out = await turn('common', 'make commondir');
  assert.match(out, /changed the repository .*\.git so git there runs programs \(commondir: \.\.\/copy\.git.*config: core\.fsmonitor/, out);
});

test('a commit never writes through a .git file that leads out of the workspace', async () => {
  const elsewhere = await realpath(await tempDir('sandbox-git-elsewhere-'));
  try {
    execFileSync('git', ['init', '-q', '--bare', `${elsewhere}/g.git`]);
    const before = await readdir(`${elsewhere}/g.git/objects`);
    await symlink(elsewhere, `${ws}/away`);
    await mkdir(`${ws}/sub2`);
    await writeFile(`${ws}/sub2/.git`, 'gitdir: ../away/g.git\n');
    execFileSync('git', ['config', 'core.bare', 'false'], { cwd: `${elsewhere}/g.git` });
    await writeFile(`${ws}/sub2/f.txt`, 'x\n');
    // In the sandbox the target is not even visible (the host's /tmp is not); without one, the engine refuses.
    const confined = await h.t.api('POST', '/api/git/commit', { root: 'sub2', message: 'm' });
    assert.ok(confined.status >= 400, JSON.stringify(confined.body));
    assert.equal((await h.t.api('PUT', '/api/settings', { sandbox: { mode: 'off' } })).status, 200);
    try {
      const r = await h.t.api('POST', '/api/git/commit', { root: 'sub2', message: 'm' });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.match(r.body.error, /outside the workspace and mounts/);
    } finally {
      await h.t.api('PUT', '/api/settings', { sandbox: { mode: 'workspace-write' } });
    }
    assert.deepEqual(await readdir(`${elsewhere}/g.git/objects`), before);
  } finally {
    await rm(`${ws}/away`, { force: true });
    await rm(`${ws}/sub2`, { recursive: true, force: true });
    await rm(elsewhere, { recursive: true, force: true });
  }
});
