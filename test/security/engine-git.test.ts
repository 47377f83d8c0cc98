/**
 * Issue 22 §1 end to end: a model, through chat turns and a narrow shell rule, plants programs in
 * git's configuration (a nested repository's clean filter; the workspace repository's fsmonitor,
 * filters, diff drivers, hooks and signing program, after stepping around the read-only binds with
 * a `commondir` pointing at a writable copy), then the engine runs its own git: checkpoints, status, tree-status,
 * diffs, commit, suggest-message. Every planted program would leave a marker in a folder outside
 * every root; none may appear.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { tempDir } from '../support/engine.js';

let h: ChatHarness;
let ws: string;
let out: string;

before(async () => {
  h = await startChat('openai-compatible');
  ws = h.t.engine.fence.root('workspace').path;
  out = await realpath(await tempDir('engine-git-out-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q');
  git('config', 'user.name', 'p');
  git('config', 'user.email', 'p@p');
  await writeFile(`${ws}/a.txt`, 'one\n');
  git('add', '-A');
  git('-c', 'user.name=p', '-c', 'user.email=p@p', 'commit', '-qm', 'first');
  // The script a model wrote earlier, run through a Makefile; the person allowed `make` with a rule.
  await writeFile(`${ws}/Makefile`, 'nested edit repo:\n\tsh plant.sh $@\n');
  const mark = (name: string) => `touch ${out}/${name}; cat`;
  await writeFile(
    `${ws}/plant.sh`,
    [
      'set -e',
      'if [ "$1" = nested ]; then',
      '  mkdir -p nested && cd nested && git init -q',
      "  echo '* filter=evil' > .gitattributes && echo abc > f.txt",
      '  git -c filter.evil.clean=cat add -A && git -c filter.evil.clean=cat -c user.name=m -c user.email=m@m commit -qm n',
      `  git config filter.evil.clean '${mark('nested-clean')}'`,
      'elif [ "$1" = edit ]; then',
      '  echo xyz > nested/f.txt',
      'elif [ "$1" = repo ]; then',
      // .git cannot be renamed inside the sandbox, and its config and hooks are read-only, but a new
      // commondir can point git at a writable copy: git then reads config and hooks from there.
      '  cp -a .git .gitcopy && echo ../.gitcopy > .git/commondir',
      `  git config core.fsmonitor '${mark('fsmonitor')}'`,
      `  git config filter.x.clean '${mark('clean')}' && git config filter.x.smudge '${mark('smudge')}' && git config filter.x.required true`,
      `  git config diff.x.textconv '${mark('textconv')}' && git config diff.x.command '${mark('diff-command')}'`,
      `  git config diff.external '${mark('diff-external')}'`,
      `  git config commit.gpgSign true && git config gpg.program '${mark('gpg')}'`,
      `  git config core.hooksPath hooks2 && mkdir -p hooks2 && printf '#!/bin/sh\\ntouch ${out}/hook\\n' > hooks2/pre-commit && cp hooks2/pre-commit hooks2/post-commit && chmod +x hooks2/*`,
      `  printf '#!/bin/sh\\ntouch ${out}/hook2\\n' > .gitcopy/hooks/post-commit && chmod +x .gitcopy/hooks/post-commit`,
      `  printf '[filter "y"]\\n\\tclean = ${mark('included')}\\n' > inc.cfg && git config include.path ../inc.cfg`,
      "  printf '*.txt filter=x diff=x\\n*.md filter=y\\n' > .gitattributes",
      '  echo two > a.txt && echo note > b.md',
      'fi',
    ].join('\n') + '\n',
  );
  assert.equal((await h.t.api('POST', '/api/permissions/rule', { key: 'run_shell(make:*)', decision: 'allow' })).status, 200);
});
after(async () => {
  await h.close();
  await rm(out, { recursive: true, force: true });
});

/** One chat turn in which the model runs `command` (allowed by the rule) and then answers. */
async function turn(session: string, command: string): Promise<void> {
  h.model.script({ toolCalls: [{ name: 'run_shell', args: { command } }] }, { text: 'done' });
  const seq = h.lastSeq();
  assert.equal((await h.send(session, `run ${command}`)).status, 202);
  const end = await h.turnEnd(session, seq);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
}

const markers = () => readdir(out);

test("a nested repository's clean filter never runs on a checkpoint (same-size edit, later checkpoint)", async () => {
  await turn('nest', 'make nested');
  await turn('nest', 'make edit');
  // Every turn that runs a command checkpoints first; this one asks the shadow about the edited nested repo.
  await turn('nest', 'make edit');
  const run = h.t.engine.runs.start({ source: 'test' });
  await h.t.engine.git.checkpoints.snapshot({ runId: run.id, reason: 'test' });
  await run.finish('completed');
  assert.deepEqual(await markers(), []);
});

/** Every git route the engine serves on the workspace repository (repos, a commit and both model passes included). */
async function everyRoute(message: string): Promise<void> {
  await writeFile(`${ws}/a.txt`, `${message}\n`);
  for (const route of ['/api/git/repos', '/api/git/status', '/api/git/tree-status', '/api/git/diff', '/api/git/diff?staged=1', '/api/git/contextual-diff?mode=head', '/api/git/contextual-diff?mode=unstaged', '/api/git/file-diff?path=a.txt&mode=head']) {
    const r = await h.t.api('GET', route);
    assert.equal(r.status, 200, `${route}: ${JSON.stringify(r.body)}`);
  }
  h.model.script({ text: 'Update a.txt' });
  const suggested = await h.t.api('POST', '/api/git/suggest-message', {});
  assert.equal(suggested.status, 200, JSON.stringify(suggested.body));
  h.model.script({ text: 'Looks fine.' });
  const reviewed = await h.t.api('POST', '/api/git/review', {});
  assert.equal(reviewed.status, 200, JSON.stringify(reviewed.body));
  const commit = await h.t.api('POST', '/api/git/commit', { message });
  assert.equal(commit.status, 200, JSON.stringify(commit.body));
}

test('status, tree-status, diffs, commit, suggest-message and review never run a program the repository names', async () => {
  await turn('repo', 'make repo');
  // The planting worked: git run by hand in that repository runs the fsmonitor and the filter.
  execFileSync('git', ['status', '--porcelain'], { cwd: ws, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  assert.ok((await markers()).includes('fsmonitor'), 'the fixture did not plant a working fsmonitor');
  await rm(out, { recursive: true });
  await mkdir(out);

  // With the sandbox active, engine-side git runs inside it, and the settings are neutralised too.
  await everyRoute('second');
  assert.deepEqual(await markers(), []);
  // Without a sandbox, the command line alone must hold.
  assert.equal((await h.t.api('PUT', '/api/settings', { sandbox: { mode: 'off' } })).status, 200);
  try {
    await everyRoute('third');
  } finally {
    await h.t.api('PUT', '/api/settings', { sandbox: { mode: 'workspace-write' } });
  }
  assert.deepEqual(await markers(), []);
});
