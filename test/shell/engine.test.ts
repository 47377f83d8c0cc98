import assert from 'node:assert/strict';
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { termSocket } from '../../src/http/sockets/term.js';
import { allowAllGate } from '../../src/tools/types.js';
import { collectEvents } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { backgroundCall, requested } from '../permissions/gate-support.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
  // These calls run unattended; let the gate allow arbitrary code so the tools themselves are tested.
  await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' });
});
after(() => t.close());

// These tests are about the tools, not the gate: calls go through a headless allow-all gate
// (seed 001 §5 rule 7), except where the hard denylist beneath the gate is the point.
const open = { gate: allowAllGate };
const ctx = () => ({ signal: new AbortController().signal, emit: (k: string, p?: Record<string, unknown>) => void t.engine.bus.emit(k, p), attended: false });

test('the shell, diagnostics and web tools are registered', () => {
  for (const name of ['run_shell', 'check_diagnostics', 'web_fetch', 'web_search']) assert.ok(t.engine.tools.get(name), name);
  assert.equal(t.engine.tools.get('web_fetch')!.readOnly, true);
});

test('run_shell through the registry: exit first, output, shell.exec on the bus', async () => {
  const events = await collectEvents(t.url);
  const out = await t.engine.tools.call({ callId: 'c1', name: 'run_shell', args: { command: 'echo hello; pwd; exit 4', cwd: '.' } }, ctx(), open);
  assert.equal(out.isError, false);
  // Inside the sandbox a login profile may complain first (pyenv cannot rehash in a read-only home).
  assert.match(out.text, /^exit 4\n(?:.*\n)*?hello\n/);
  assert.ok(out.text.includes(path.join(t.home, 'workspace')));
  const ev = await events.waitFor('shell.exec');
  assert.equal(ev.command, 'echo hello; pwd; exit 4');
  assert.equal(ev.cwd, '.');
  assert.equal(ev.exitCode, 4);
  events.close();
});

test('shell.exec on the bus carries the command with secret-shaped text masked', async () => {
  const events = await collectEvents(t.url);
  const secret = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ';
  await t.engine.tools.call({ callId: 'k1', name: 'run_shell', args: { command: `echo ${secret} >/dev/null` } }, ctx(), open);
  const ev = await events.waitFor((e) => e.kind === 'shell.exec' && String(e.command).startsWith('echo ghp_'));
  assert.ok(!String(ev.command).includes(secret), String(ev.command));
  assert.match(String(ev.command), /ghp_\*\*\*/);
  events.close();
});

test('run_shell refuses a cwd outside the fence with a sentence', async () => {
  const out = await t.engine.tools.call({ callId: 'c2', name: 'run_shell', args: { command: 'ls', cwd: '../..' } }, ctx(), open);
  assert.equal(out.isError, true);
  assert.match(out.text, /\.\./);
});

test('a mounted folder: ENGINE_MOUNTS names it and it can be the cwd', async () => {
  const folder = await tempDir('shell-mount-');
  try {
    const added = await t.api('POST', '/api/mounts', { path: folder, name: 'notes' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const out = await t.engine.tools.call(
      { callId: 'm1', name: 'run_shell', args: { command: 'echo "mounts=$ENGINE_MOUNTS"; echo "ceil=$GIT_CEILING_DIRECTORIES"; pwd', cwd: 'notes' } },
      ctx(),
      open,
    );
    assert.match(out.text, /^mounts=notes$/m);
    assert.match(out.text, new RegExp(`^ceil=${t.home}$`, 'm'));
    assert.match(out.text, new RegExp(`^${await realpath(folder)}$`, 'm'));
    const diag = await t.api('POST', '/api/diagnostics', { root: 'notes' });
    assert.equal(diag.body.checker, null);
  } finally {
    await t.api('DELETE', '/api/mounts/notes');
    await rm(folder, { recursive: true, force: true });
  }
});

test('the hard denylist refuses beneath any gate, and the unattended default applies to shell calls', async () => {
  const denied = await t.engine.tools.call({ callId: 'd1', name: 'run_shell', args: { command: 'rm -rf ./data' } }, ctx(), open);
  assert.equal(denied.isError, true);
  assert.match(denied.text, /recursive delete/);
  assert.equal((await t.api('PUT', '/api/permissions/defaults', { unattended: 'deny' })).status, 200);
  try {
    const unattended = await t.engine.tools.call({ callId: 'd2', name: 'run_shell', args: { command: 'ls' } }, ctx());
    assert.equal(unattended.isError, true);
    assert.match(unattended.text, /run_shell\(ls:\*\)/);
  } finally {
    await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' });
  }
});

test('POST /api/diagnostics: a TypeScript workspace with an error, then one with no checker', async () => {
  const ws = path.join(t.home, 'workspace');
  const none = await t.api('POST', '/api/diagnostics', { root: 'workspace' });
  assert.equal(none.status, 200);
  assert.equal(none.body.checker, null);
  assert.deepEqual(none.body.diagnostics, []);
  assert.match(none.body.summary, /No known checker for root "workspace"/);

  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src'] }));
  await writeFile(path.join(ws, 'src', 'main.ts'), 'const x: number = "no";\nexport {};\n');
  const res = await t.api('POST', '/api/diagnostics', { root: 'workspace' });
  assert.equal(res.status, 200);
  assert.equal(res.body.diagnostics.length, 1);
  assert.deepEqual(
    { ...res.body.diagnostics[0], message: undefined },
    { severity: 'error', file: 'src/main.ts', line: 1, col: 7, code: 'TS2322', message: undefined },
  );
  assert.match(res.body.summary, /1 error in root "workspace"/);

  const tool = await t.engine.tools.call({ callId: 'c3', name: 'check_diagnostics', args: {} }, ctx(), open);
  assert.match(tool.text, /^error src\/main\.ts:1:7 - Type 'string' is not assignable to type 'number'\. \(TS2322\)$/m);

  assert.equal((await t.api('POST', '/api/diagnostics', { root: 'nope' })).status, 404);
  assert.equal((await t.api('POST', '/api/diagnostics', { root: 5 })).status, 400);
});

test("check_diagnostics asks permission as code when the root's own tsc would run, not with the bundled one", async () => {
  const ws = path.join(t.home, 'workspace');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src'] }));
  await writeFile(path.join(ws, 'src', 'main.ts'), 'export const x: number = 1;\n');
  const events = await collectEvents(t.url);
  try {
    // The bundled compiler is the engine's own code: no prompt.
    const bundled = backgroundCall(t, 'check_diagnostics', {});
    const out = await bundled.outcome;
    assert.equal(out.isError, false, out.text);
    assert.match(out.text, /Clean: tsc \(bundled with the engine\)/);
    assert.ok(!events.events.some(requested(bundled.callId)));
    await bundled.done();

    // A compiler inside the workspace is workspace code: the `code` class, so a person is asked.
    await mkdir(path.join(ws, 'node_modules', '.bin'), { recursive: true });
    const own = path.join(ws, 'node_modules', '.bin', 'tsc');
    await writeFile(own, '#!/bin/sh\necho "src/main.ts(1,14): error TS9999: from the root\'s own compiler"\nexit 2\n', { mode: 0o755 });
    const owned = backgroundCall(t, 'check_diagnostics', {});
    const asked = await events.waitFor(requested(owned.callId), 30_000);
    assert.equal(asked.class, 'code');
    assert.equal(asked.key, 'check_diagnostics');
    const res = await t.api('POST', '/api/permissions/resolve', { runId: owned.run.id, callId: owned.callId, decision: 'allow', scope: 'once' });
    assert.equal(res.status, 200);
    const ownOut = await owned.outcome;
    assert.equal(ownOut.isError, false, ownOut.text);
    assert.match(ownOut.text, /tsc \(the root's node_modules\) found 1 error/);
    assert.match(ownOut.text, /^error src\/main\.ts:1:14 - from the root's own compiler \(TS9999\)$/m);
    await owned.done();
  } finally {
    events.close();
    await rm(path.join(ws, 'node_modules'), { recursive: true, force: true });
  }
});

test('web_fetch in the engine runs behind the real floor', async () => {
  const out = await t.engine.tools.call({ callId: 'c4', name: 'web_fetch', args: { url: `${t.url}/api/status` } }, ctx());
  assert.equal(out.isError, true);
  assert.match(out.text, /loopback/);
});

test('the terminal handler checks the loopback peer itself, not only the guard', () => {
  const handler = termSocket({ cwd: () => t.home, env: () => ({}) });
  const socket = new PassThrough();
  let written = '';
  socket.on('data', (c) => (written += c));
  handler.handle({ url: '/term?id=x&cols=80&rows=24', headers: {}, socket: { remoteAddress: '10.0.0.7' } } as any, socket, Buffer.alloc(0));
  assert.match(written, /^HTTP\/1\.1 403 Forbidden/);
  assert.match(written, /loopback peer/);
  assert.deepEqual(handler.sessions(), []);
  handler.close();
});
