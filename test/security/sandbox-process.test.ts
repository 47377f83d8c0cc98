/**
 * Process lifetime inside the sandbox, through the shell service's `exec` (the path the workflow
 * `command` node takes too): a timeout or a stop kills everything the command started, and the
 * sandbox's private /proc shows none of the engine's processes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createShellService, type ShellService } from '../../src/capabilities/shell/service.js';
import { Fence } from '../../src/kernel/fence.js';
import { createSandbox } from '../../src/sandbox/sandbox.js';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/sandbox/types.js';

let dir: string;
let shell: ShellService;

before(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sandbox-process-')));
  const home = path.join(dir, 'home');
  const workspace = path.join(home, 'workspace');
  await mkdir(workspace, { recursive: true });
  const sandbox = createSandbox({ settings: () => DEFAULT_SANDBOX_SETTINGS, engineHome: home, userHome: dir });
  shell = createShellService({ fence: new Fence(workspace, () => []), home, sandbox });
});
after(() => rm(dir, { recursive: true, force: true }));

/** Host processes whose command line holds `marker` (pgrep -f), excluding pgrep itself. */
function hostProcesses(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

async function gone(marker: string, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (hostProcesses(marker).length && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return hostProcesses(marker).length === 0;
}

test('exec runs sandboxed and says so', async () => {
  const r = await shell.exec({ command: 'echo hi > /etc/sandbox-probe; echo done' });
  assert.equal(r.sandboxed, true);
  assert.match(r.text, /Read-only file system/);
});

test('a timeout kills everything the command started, grandchildren included', async () => {
  const marker = `sandbox-timeout-${process.pid}`;
  const r = await shell.exec({ command: `sh -c 'sleep 301 & wait' ${marker}`, timeoutMs: 3000 });
  assert.equal(r.timedOut, true);
  assert.ok(await gone('sleep 301'), 'no sleep 301 is left on the host');
});

test('a stop kills everything the command started', async () => {
  const controller = new AbortController();
  const pending = shell.exec({ command: 'sleep 302 & sleep 303', signal: controller.signal });
  const end = Date.now() + 20_000;
  while (hostProcesses('sleep 303').length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  controller.abort();
  const r = await pending;
  assert.equal(r.aborted, true);
  assert.ok(await gone('sleep 30[23]'));
});

test('background processes are left running, still inside the sandbox, and the call does not wait for them', async () => {
  const quiet = await shell.exec({ command: 'sleep 304 > /dev/null 2>&1 & echo started' });
  assert.match(quiet.text, /started/);
  assert.equal(quiet.backgroundInSandbox, true);
  assert.match(quiet.text, /left background processes running in its sandbox/);
  const held = await shell.exec({ command: 'sleep 305 & echo started', timeoutMs: 240_000 });
  assert.equal(held.timedOut, false);
  assert.equal(held.exitCode, 0);
  assert.equal(held.backgroundInSandbox, true);
  // Nothing left behind: no note, and the sandbox is gone.
  const clean = await shell.exec({ command: 'echo alone' });
  assert.equal(clean.backgroundInSandbox, false);
  assert.doesNotMatch(clean.text, /background/);
  try {
    assert.equal(hostProcesses('^sleep 304$').length, 1, 'the quiet one still runs');
    assert.equal(hostProcesses('^sleep 305$').length, 1, 'the one holding the output still runs');
    // Still sandboxed: it sees the sandbox's /proc, not the host's.
    const ns = execFileSync('readlink', [`/proc/${hostProcesses('^sleep 304$')[0]}/ns/pid`], { encoding: 'utf8' });
    assert.notEqual(ns, execFileSync('readlink', ['/proc/self/ns/pid'], { encoding: 'utf8' }));
  } finally {
    for (const pid of [...hostProcesses('^sleep 304$'), ...hostProcesses('^sleep 305$')]) process.kill(Number(pid), 'SIGKILL');
  }
  assert.ok(await gone('sleep 30[45]'));
});

test('the exit code is the shell\'s, reported through the keeper', async () => {
  const r = await shell.exec({ command: 'exit 7' });
  assert.equal(r.exitCode, 7);
  assert.equal(r.sandboxed, true);
});

test("the sandbox's /proc shows only its own processes, not the engine", async () => {
  const r = await shell.exec({ command: `ls /proc | grep -c '^[0-9]'; test -e /proc/${process.pid}/environ && echo engine-visible || echo engine-hidden` });
  assert.match(r.text, /engine-hidden/);
});

test('global kernel settings are out of reach: /proc/sys is read-only even when the engine runs as root', async () => {
  // kernel.hostname is per-UTS-namespace (the sandbox has its own), so the attempt harms nothing
  // even where the cover were missing; core_pattern is the one that would matter and is never touched.
  const r = await shell.exec({ command: 'echo sandbox-probe > /proc/sys/kernel/hostname; grep -c " /proc/sys ro," /proc/self/mountinfo' });
  assert.match(r.text, /Read-only file system/);
  assert.match(r.text, /^1$/m);
});
