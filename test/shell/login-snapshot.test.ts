/**
 * Shells start clean and fast (issue 26): the login shell runs once (at start and when asked), its
 * environment is kept, and every command runs from it sourcing no profile or rc file, so a slow or
 * noisy profile costs once and never opens a result.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createLoginEnv } from '../../src/capabilities/shell/login-env.js';
import { createShellService } from '../../src/capabilities/shell/service.js';
import { Fence } from '../../src/kernel/fence.js';
import { startTestEngine } from '../support/engine.js';

let dir: string;
let profileHome: string;
let workspace: string;

before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'login-snap-')));
  profileHome = path.join(dir, 'profile-home');
  workspace = path.join(dir, 'workspace');
  await mkdir(profileHome, { recursive: true });
  await mkdir(workspace, { recursive: true });
});
after(() => rm(dir, { recursive: true, force: true }));

const profile = (mark: string) =>
  writeFile(path.join(profileHome, '.bash_profile'), `echo run >> "$HOME/profile-runs"\necho "pyenv: cannot rehash: shims isn't writable" >&2\nexport SNAPSHOT_MARK=${mark}\nexport PATH="$HOME/tools:$PATH"\n`);

test('commands run from one snapshot of the login shell, sourcing nothing; refresh reads it again', async () => {
  await profile('first');
  const logs: string[] = [];
  const loginEnv = createLoginEnv({ log: (l) => logs.push(l), home: profileHome, shell: 'bash' });
  const shell = createShellService({ fence: new Fence(workspace, () => []), home: dir, loginEnv });
  for (let i = 0; i < 3; i++) {
    const r = await shell.exec({ command: 'echo "mark=$SNAPSHOT_MARK"; echo "path=$PATH"; echo "home=$HOME"' });
    assert.equal(r.exitCode, 0, r.text);
    assert.match(r.text, /^exit 0\nmark=first\n/, 'the profile printed nothing into the result');
    assert.match(r.text, new RegExp(`path=${profileHome}/tools:`));
    assert.match(r.text, new RegExp(`home=${process.env.HOME}$`, 'm'), "commands keep the engine's HOME");
  }
  assert.equal((await readFile(path.join(profileHome, 'profile-runs'), 'utf8')).trim().split('\n').length, 1, 'the profile ran once for three commands');
  assert.ok(logs.some((l) => l.includes('cannot rehash')), 'the profile noise is logged once');

  await profile('second');
  const again = await shell.snapshot();
  assert.equal(again?.ok, true);
  assert.match((await shell.exec({ command: 'echo "mark=$SNAPSHOT_MARK"' })).text, /mark=second/);
  assert.equal((await readFile(path.join(profileHome, 'profile-runs'), 'utf8')).trim().split('\n').length, 2);
});

test('a login shell that hangs gives way to the engine environment after the timeout, with one log line', async () => {
  await writeFile(path.join(profileHome, '.bash_profile'), 'sleep 30\n');
  const logs: string[] = [];
  const loginEnv = createLoginEnv({ log: (l) => logs.push(l), home: profileHome, shell: 'bash', timeoutMs: 500 });
  const snap = await loginEnv.get();
  assert.match(snap.error ?? '', /took longer than/);
  assert.equal(snap.env.PATH, process.env.PATH);
  assert.equal(logs.length, 1, logs.join('\n'));
});

test('POST /api/shell/snapshot reads the login shell again and says what it found', async () => {
  const t = await startTestEngine();
  try {
    const res = await t.api('POST', '/api/shell/snapshot');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true);
    assert.ok(res.body.variables > 0);
    assert.match(res.body.shell, /sh$/);
  } finally {
    await t.close();
  }
});
