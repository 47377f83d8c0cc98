import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { clipOutput, runCommand } from '../../src/capabilities/shell/run-command.js';
import { createShellService, type ShellService } from '../../src/capabilities/shell/service.js';
import { Fence } from '../../src/kernel/fence.js';
import { hardDenied, shellPermission } from '../../src/permissions/shell-policy.js';
import { alive, waitGone } from './helpers.js';

const fenceOver = (workspace: string, mounts: Record<string, string> = {}) =>
  new Fence(workspace, () => Object.entries(mounts).map(([name, p]) => ({ name, path: p, kind: 'mount' as const })));

let dir: string;
let workspace: string;
let docs: string;
let home: string;
let shell: ShellService;

before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'shell-test-')));
  home = path.join(dir, 'home');
  workspace = path.join(home, 'workspace');
  docs = path.join(dir, 'docs');
  await mkdir(path.join(workspace, 'sub'), { recursive: true });
  await mkdir(docs, { recursive: true });
  await symlink(os.tmpdir(), path.join(workspace, 'escape'));
  shell = createShellService({ fence: fenceOver(workspace, { docs, 'we,ird': docs }), home });
});
after(() => rm(dir, { recursive: true, force: true }));

test('exit code first, then combined stdout and stderr', async () => {
  const r = await shell.exec({ command: 'echo out; echo err 1>&2; exit 3' });
  assert.equal(r.exitCode, 3);
  assert.match(r.text, /^exit 3\n/);
  assert.match(r.text, /out/);
  assert.match(r.text, /err/);
});

test('secret-shaped variables are scrubbed, as seen from inside the shell', async () => {
  const planted = { FOO_TOKEN: 't1', my_secret_x: 's1', DB_PASSWORD: 'p1', OPENAI_API_KEY: 'k1', AWS_CREDENTIALS: 'c1', PLAIN_VALUE: 'visible' };
  Object.assign(process.env, planted);
  try {
    const r = await shell.exec({ command: 'env' });
    for (const name of Object.keys(planted).filter((n) => n !== 'PLAIN_VALUE')) assert.doesNotMatch(r.text, new RegExp(`^${name}=`, 'm'), name);
    assert.match(r.text, /^PLAIN_VALUE=visible$/m);
  } finally {
    for (const name of Object.keys(planted)) delete process.env[name];
  }
});

test('GIT_CEILING_DIRECTORIES is the home and ENGINE_MOUNTS names the mounts', async () => {
  const r = await shell.exec({ command: 'echo "ceil=$GIT_CEILING_DIRECTORIES"; echo "mounts=$ENGINE_MOUNTS"' });
  assert.match(r.text, new RegExp(`^ceil=${home}$`, 'm'));
  assert.match(r.text, /^mounts=docs,we%2Cird$/m);
});

test('cwd: "." is the workspace root, folders and mounts resolve inside the fence', async () => {
  assert.match((await shell.exec({ command: 'pwd', cwd: '.' })).text, new RegExp(`^${workspace}$`, 'm'));
  assert.match((await shell.exec({ command: 'pwd', cwd: 'sub' })).text, new RegExp(`^${path.join(workspace, 'sub')}$`, 'm'));
  assert.match((await shell.exec({ command: 'pwd', cwd: 'docs' })).text, new RegExp(`^${docs}$`, 'm'));
});

test('cwd outside the fence is refused before anything runs', async () => {
  await assert.rejects(shell.exec({ command: 'touch ran', cwd: '../..' }), /climb out/);
  await assert.rejects(shell.exec({ command: 'touch ran', cwd: '/tmp' }), /absolute/);
  await assert.rejects(shell.exec({ command: 'touch ran', cwd: 'escape' }), /outside/);
  await assert.rejects(shell.exec({ command: 'touch ran', cwd: 'missing' }), /not a directory/);
});

test('output keeps the head and the tail with the gap named', async () => {
  // 15 000 lines of "line N" is well over 20 000 characters and under the 200 000 read bound.
  const r = await shell.exec({ command: 'for i in $(seq 1 15000); do echo "line $i"; done' });
  assert.match(r.text, /^exit 0\nline 1\nline 2\n/);
  assert.match(r.text, /line 15000$/);
  assert.equal(r.readStopped, false);
  const gap = /\[\.\.\. (\d+) characters omitted: kept the first 8000 and the last 12000 of (\d+) \.\.\.\]/.exec(r.text);
  assert.ok(gap, 'the gap is named');
  assert.equal(Number(gap[1]) + 20_000, Number(gap[2]));
  assert.doesNotMatch(r.text, /^line 7000$/m);
  assert.equal(clipOutput('abc', 8000, 12000), 'abc');
});

test('nothing past 200 000 characters is read, and the result says so', async () => {
  const r = await shell.exec({ command: 'yes 0123456789 | head -c 1000000; echo; echo END' });
  assert.equal(r.readStopped, true);
  assert.equal(r.charsRead, 200_000);
  assert.match(r.text, /output reading stopped at 200000 characters/);
  assert.doesNotMatch(r.text, /END/);
});

test('a timeout kills the whole process group, grandchildren included', async () => {
  // The sleep is a grandchild: bash -> sh -> sleep.
  const r = await shell.exec({ command: `sh -c 'sleep 300 & echo "bg=$!"; wait'`, timeoutMs: 5000 });
  assert.equal(r.timedOut, true);
  assert.match(r.text, /^exit \d+ \(timed out after 5 s; the process group was killed\)/);
  const pid = Number(/bg=(\d+)/.exec(r.text)?.[1]);
  assert.ok(pid > 0);
  assert.ok(await waitGone(pid), `background sleep ${pid} is gone`);
});

test('a background process holding the output does not hold the call; it is left running', async () => {
  // Far from the timeout: the call must end because the shell exited, not because time ran out.
  const r = await shell.exec({ command: 'sleep 300 & echo "bg=$!"; echo done', timeoutMs: 240_000 });
  const pid = Number(/bg=(\d+)/.exec(r.text)?.[1]);
  try {
    assert.equal(r.timedOut, false);
    assert.equal(r.exitCode, 0);
    assert.equal(r.backgroundHeld, true);
    assert.match(r.text, /^exit 0\n\[the shell exited but a background process it started still holds the output; it was left running/);
    assert.match(r.text, /bg=\d+\ndone/);
    assert.ok(pid > 0 && alive(pid), 'the background process keeps running after a normal exit');
  } finally {
    if (pid > 0) process.kill(pid, 'SIGKILL');
  }
  // A background process with its output elsewhere holds nothing: no note.
  const quiet = await shell.exec({ command: 'sleep 300 > /dev/null 2>&1 & echo "bg=$!"' });
  const quietPid = Number(/bg=(\d+)/.exec(quiet.text)?.[1]);
  try {
    assert.equal(quiet.backgroundHeld, false);
    assert.doesNotMatch(quiet.text, /background process/);
  } finally {
    if (quietPid > 0) process.kill(quietPid, 'SIGKILL');
  }
});

test('an abort kills the whole process group', async () => {
  const controller = new AbortController();
  const events: Array<{ kind: string; payload: any }> = [];
  const pidFile = path.join(workspace, 'bg.pid');
  const pending = shell.exec({
    command: `sleep 300 & echo "bg=$!"; echo $! > ${pidFile}; sleep 300`,
    signal: controller.signal,
    emit: (kind, payload) => events.push({ kind, payload }),
  });
  // Abort once the background child exists (its pid file is written), not after a fixed sleep.
  const end = Date.now() + 20_000;
  while (!(await readFile(pidFile, 'utf8').catch(() => '')).trim() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  controller.abort();
  const r = await pending;
  assert.equal(r.aborted, true);
  assert.match(r.text, /^exit \d+ \(stopped; the process group was killed\)/);
  const pid = Number(/bg=(\d+)/.exec(r.text)?.[1]);
  assert.ok(pid > 0, r.text);
  assert.ok(await waitGone(pid));
  assert.equal(events.filter((e) => e.kind !== 'shell.output')[0].kind, 'shell.exec');
});

test('shell.exec carries the masked command, cwd, exit code and duration', async () => {
  const events: Array<{ kind: string; payload: any }> = [];
  const masked = createShellService({ fence: fenceOver(workspace), home, mask: (t) => t.replace(/hunter2/g, '****') });
  await masked.exec({ command: 'echo hunter2', cwd: 'sub', emit: (kind, payload) => events.push({ kind, payload }) });
  // The live output went out first, masked like the result.
  assert.deepEqual(events.filter((e) => e.kind === 'shell.output').map((e) => e.payload.text), ['****\n']);
  events.splice(0, events.length, ...events.filter((e) => e.kind !== 'shell.output'));
  assert.equal(events.length, 1);
  assert.equal(events[0].kind, 'shell.exec');
  assert.equal(events[0].payload.command, 'echo ****');
  assert.equal(events[0].payload.cwd, 'sub');
  assert.equal(events[0].payload.exitCode, 0);
  assert.equal(typeof events[0].payload.durationMs, 'number');
});

test('the hard denylist is enforced in the spawn path and surfaces in the permission request', async () => {
  const denied = createShellService({
    fence: fenceOver(workspace),
    home,
    hardDenied: (c) => (/rm -rf/.test(c) ? 'recursive delete refused' : undefined),
  });
  await assert.rejects(denied.exec({ command: 'rm -rf sub' }), /recursive delete refused/);
  assert.deepEqual(await denied.permission('ls'), { class: 'code', key: 'run_shell' });
  assert.equal((await denied.permission('rm -rf /')).hardDeny, 'recursive delete refused');
  await assert.rejects(runCommand({ command: 'rm -rf x', cwd: workspace, env: {}, hardDenied: () => 'no' }), /no/);

  // With the shell policy, its request carries the refusal from its own parse: the permission check
  // does not ask the denylist a second time, the spawn path still does.
  const asked: string[] = [];
  const policed = createShellService({ fence: fenceOver(workspace), home, permission: shellPermission, hardDenied: (c) => (asked.push(c), hardDenied(c)) });
  assert.match((await policed.permission('rm -rf /')).hardDeny ?? '', /recursive delete/);
  assert.equal((await policed.permission('ls')).hardDeny, undefined);
  assert.deepEqual(asked, []);
  await assert.rejects(policed.exec({ command: 'rm -rf sub' }), /recursive delete/);
  assert.deepEqual(asked, ['rm -rf sub']);
});

test('exec waits for what the denylist reads with (the bash grammar loads on first use) before judging', async () => {
  let ready = false;
  const judged: boolean[] = [];
  const service = createShellService({
    fence: fenceOver(workspace),
    home,
    denylistReady: () => new Promise<void>((resolve) => setTimeout(() => ((ready = true), resolve()), 20)),
    hardDenied: () => (judged.push(ready), undefined),
  });
  const result = await service.exec({ command: 'true' });
  assert.equal(result.exitCode, 0);
  assert.deepEqual(judged, [true], 'the denylist ran once, after its grammar was ready');
});
