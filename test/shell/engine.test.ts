import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { termSocket } from '../../src/http/sockets/term.js';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
  // These calls run unattended; let the gate allow arbitrary code so the tools themselves are tested.
  await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' });
});
after(() => t.close());

const ctx = () => ({ signal: new AbortController().signal, emit: (k: string, p?: Record<string, unknown>) => void t.engine.bus.emit(k, p), attended: false });

test('the shell, diagnostics and web tools are registered', () => {
  for (const name of ['run_shell', 'check_diagnostics', 'web_fetch', 'web_search']) assert.ok(t.engine.tools.get(name), name);
  assert.equal(t.engine.tools.get('web_fetch')!.readOnly, true);
});

test('run_shell through the registry: exit first, output, shell.exec on the bus', async () => {
  const events = await collectEvents(t.url);
  const out = await t.engine.tools.call({ callId: 'c1', name: 'run_shell', args: { command: 'echo hello; pwd; exit 4', cwd: '.' } }, ctx());
  assert.equal(out.isError, false);
  assert.match(out.text, /^exit 4\nhello\n/);
  assert.ok(out.text.includes(path.join(t.home, 'workspace')));
  const ev = await events.waitFor('shell.exec');
  assert.equal(ev.command, 'echo hello; pwd; exit 4');
  assert.equal(ev.cwd, '.');
  assert.equal(ev.exitCode, 4);
  events.close();
});

test('run_shell refuses a cwd outside the fence with a sentence', async () => {
  const out = await t.engine.tools.call({ callId: 'c2', name: 'run_shell', args: { command: 'ls', cwd: '../..' } }, ctx());
  assert.equal(out.isError, true);
  assert.match(out.text, /\.\./);
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

  const tool = await t.engine.tools.call({ callId: 'c3', name: 'check_diagnostics', args: {} }, ctx());
  assert.match(tool.text, /^error src\/main\.ts:1:7 - Type 'string' is not assignable to type 'number'\. \(TS2322\)$/m);

  assert.equal((await t.api('POST', '/api/diagnostics', { root: 'nope' })).status, 404);
  assert.equal((await t.api('POST', '/api/diagnostics', { root: 5 })).status, 400);
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
