/**
 * Issue 38 §2: the login environment never runs what a command could write. The person's home has
 * this machine's shape (`.profile` puts `~/bin` first on PATH, sources `.bashrc` and `~/.cargo/env`
 * and runs `mesg`; `.bashrc` runs `eval "$(pyenv init -)"`) and is mounted, so a sandboxed command
 * can write every file the profile sources or runs but `.profile` and `.bashrc` themselves. It
 * appends to `~/.cargo/env` and `~/.pyenv/bin/pyenv` and puts a `mesg` in `~/bin`; the next
 * snapshot (POST /api/shell/snapshot) runs them inside the sandbox, so the marker each writes
 * outside is never there. Where no sandbox can start, the profile does not run at all unless
 * commands themselves run unsandboxed without asking.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let dir: string;
let marks: string;

before(async () => {
  dir = await realpath(await tempDir('login-env-sandbox-'));
  marks = path.join(dir, 'outside-marks');
  await mkdir(marks);
});
after(() => rm(dir, { recursive: true, force: true }));

/** A home shaped like this machine's: what the profile sources and runs, each a file of its own. */
async function personHome(name: string): Promise<string> {
  const home = path.join(dir, name);
  await mkdir(path.join(home, '.cargo', 'bin'), { recursive: true });
  await mkdir(path.join(home, '.pyenv', 'bin'), { recursive: true });
  await mkdir(path.join(home, 'bin'));
  await writeFile(
    path.join(home, '.profile'),
    [
      '# ~/.profile: executed by Bourne-compatible login shells.',
      'if [ -d "$HOME/bin" ] ; then PATH="$HOME/bin:$PATH"; fi',
      'if [ "$BASH" ]; then',
      '  if [ -f ~/.bashrc ]; then',
      '    . ~/.bashrc',
      '  fi',
      'fi',
      'mesg n 2> /dev/null || true',
      '. "$HOME/.cargo/env"',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(home, '.bashrc'),
    ['export PYENV_ROOT="$HOME/.pyenv"', 'export PATH="$PYENV_ROOT/bin:$PYENV_ROOT/shims:$PATH"', 'eval "$(pyenv init -)"', ''].join('\n'),
  );
  await writeFile(path.join(home, '.cargo', 'env'), 'export PATH="$HOME/.cargo/bin:$PATH"\n');
  await writeFile(path.join(home, '.pyenv', 'bin', 'pyenv'), '#!/bin/sh\nif [ "$1" = init ]; then echo "export PYENV_SHELL=bash"; fi\n');
  await chmod(path.join(home, '.pyenv', 'bin', 'pyenv'), 0o755);
  return home;
}

/** run_shell through the registry past an allow-all gate: the sandbox is the point, not the prompt. */
async function sh(t: TestEngine, command: string): Promise<string> {
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'login' };
  return (await t.engine.tools.call({ callId: `login-${Math.random()}`, name: 'run_shell', args: { command } }, ctx, { gate: allowAllGate })).text;
}

/** What a sandboxed command appends to each file the profile sources or runs: a marker outside, a variable inside. */
const plantCommand = (home: string, engineHome: string) =>
  [
    `printf '\\ntouch ${marks}/cargo-env\\nexport PLANTED_CARGO=1 PLANTED_KEY="$(cat ${engineHome}/home-file 2>/dev/null)"\\n' >> ${home}/.cargo/env`,
    `printf 'touch ${marks}/pyenv\\n[ "$1" = init ] && echo "export PLANTED_PYENV=1"\\n' >> ${home}/.pyenv/bin/pyenv`,
    `printf '#!/bin/sh\\ntouch ${marks}/bin-mesg\\n' > ${home}/bin/mesg`,
    `chmod +x ${home}/bin/mesg`,
    'echo planted',
  ].join(' && ');

test('a sandboxed append to what the profile sources or runs runs nothing outside the sandbox on the next snapshot', async () => {
  const home = await personHome('mounted-home');
  const t = await startTestEngine({ sandbox: { userHome: home }, shellLoginHome: home });
  try {
    assert.equal((await t.api('GET', '/api/status')).body.sandbox.active, true, 'this test needs a working bwrap');
    await writeFile(path.join(t.home, 'home-file'), 'engine-home-content');
    // The person's home is mounted: commands can write in it (its start-up files aside).
    assert.equal((await t.api('POST', '/api/mounts', { path: home, name: 'home' })).status, 201);
    assert.match(await sh(t, plantCommand(home, t.home)), /^exit 0\nplanted/);
    // The appends landed (the test is not vacuous), and .profile / .bashrc stayed read-only.
    assert.match(await readFile(path.join(home, '.cargo', 'env'), 'utf8'), /PLANTED_CARGO/);
    assert.match(await readFile(path.join(home, '.pyenv', 'bin', 'pyenv'), 'utf8'), /PLANTED_PYENV/);
    assert.ok(existsSync(path.join(home, 'bin', 'mesg')));
    assert.match(await sh(t, `echo 'touch ${marks}/profile' >> ${home}/.profile`), /Read-only file system/);

    const snap = await t.api('POST', '/api/shell/snapshot');
    assert.equal(snap.status, 200, JSON.stringify(snap.body));
    assert.equal(snap.body.ok, true, JSON.stringify(snap.body));
    assert.deepEqual(await readdir(marks), [], 'nothing the commands wrote ran outside the sandbox');

    // The profile was read, planted lines included, but inside: the engine home was not there.
    const seen = await sh(t, 'echo "cargo=$PLANTED_CARGO pyenv=$PLANTED_PYENV shell=$PYENV_SHELL key=[$PLANTED_KEY]"; echo "$PATH"');
    assert.match(seen, /cargo=1 pyenv=1 shell=bash key=\[\]/);
    assert.ok(seen.includes(`${home}/.cargo/bin:`), seen);
  } finally {
    await t.close();
  }
});

test('where no sandbox can start, the profile does not run, and the snapshot says why; with commands unsandboxed anyway it does', async () => {
  const home = await personHome('unsandboxed-home');
  await writeFile(path.join(home, '.cargo', 'env'), `touch ${marks}/no-sandbox\nexport FROM_PROFILE=1\n`);
  const t = await startTestEngine({ sandbox: { bwrap: path.join(dir, 'no-such-bwrap'), userHome: home }, shellLoginHome: home });
  try {
    const snap = await t.api('POST', '/api/shell/snapshot');
    assert.equal(snap.status, 200, JSON.stringify(snap.body));
    assert.equal(snap.body.ok, false);
    assert.match(snap.body.error, /the login shell was not read: no sandbox can start here \(bubblewrap \(bwrap\) was not found.*\) and the profile may run files a command wrote/);
    assert.ok(!existsSync(path.join(marks, 'no-sandbox')), 'the profile did not run');
    assert.ok(t.logs.some((l) => l.includes('the login shell was not read')), t.logs.join('\n'));

    // `whenUnavailable: run`: commands run with the person's rights without asking; the profile gives them nothing more.
    assert.equal((await t.api('PUT', '/api/settings', { sandbox: { whenUnavailable: 'run' } })).status, 200);
    const again = await t.api('POST', '/api/shell/snapshot');
    assert.equal(again.body.ok, true, JSON.stringify(again.body));
    assert.ok(existsSync(path.join(marks, 'no-sandbox')));
    assert.match(await sh(t, 'echo "from=$FROM_PROFILE"'), /from=1/);
  } finally {
    await t.close();
  }
});
