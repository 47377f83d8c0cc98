/**
 * POST /api/pick-folder with a fake `zenity` first on PATH: the chosen folder, a canceled dialog, a
 * picker that fails, no display, no picker installed, and one picker at a time.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { until } from '../support/patience.js';

let t: TestEngine;
let bin: string;
const saved = { PATH: process.env.PATH, DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };

/** A fake zenity: records its arguments, then runs `body`. */
async function fakeZenity(body: string): Promise<void> {
  await writeFile(path.join(bin, 'zenity'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${bin}/args"\n${body}\n`);
  await chmod(path.join(bin, 'zenity'), 0o755);
}

before(async () => {
  bin = path.join(await tempDir('fake-picker-'), 'bin');
  await mkdir(bin, { recursive: true });
  t = await startTestEngine();
});
beforeEach(() => {
  // The route reads the engine process's environment (this process: the engine runs in it).
  process.env.PATH = `${bin}${path.delimiter}${saved.PATH}`;
  process.env.DISPLAY = ':99';
  delete process.env.WAYLAND_DISPLAY;
});
after(async () => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  await t.close();
  await rm(path.dirname(bin), { recursive: true, force: true });
});

test('answers the folder chosen in the picker, which was asked for a directory', { skip: process.platform !== 'linux' && 'zenity is the Linux picker' }, async () => {
  await fakeZenity(`echo "/home/someone/projects/my app/"`);
  const r = await t.api('POST', '/api/pick-folder');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { path: '/home/someone/projects/my app' });
  const args = (await readFile(path.join(bin, 'args'), 'utf8')).split('\n');
  assert.ok(args.includes('--file-selection') && args.includes('--directory'), args.join(' '));
});

test('a closed dialog is {canceled: true}', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  await fakeZenity('exit 1');
  const r = await t.api('POST', '/api/pick-folder');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { canceled: true });
});

test('a picker that fails answers a sentence with its reason', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  await fakeZenity('echo "cannot open display" >&2; exit 5');
  const r = await t.api('POST', '/api/pick-folder');
  assert.equal(r.status, 409);
  assert.match(r.body.error, /zenity failed \(cannot open display\); type the folder path to mount instead/);
});

test('no display: {canceled: true} with a sentence saying so (seed 000 §4.1), and no picker started', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  await fakeZenity(`echo started > "${bin}/ran"; echo /tmp`);
  delete process.env.DISPLAY;
  const r = await t.api('POST', '/api/pick-folder');
  assert.equal(r.status, 200);
  assert.equal(r.body.canceled, true);
  assert.match(r.body.reason, /^no display to show a folder picker on/);
  await assert.rejects(readFile(path.join(bin, 'ran')));
});

test('no picker installed: {canceled: true} with a sentence naming what to install', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  process.env.PATH = bin + '-empty';
  const r = await t.api('POST', '/api/pick-folder');
  assert.equal(r.status, 200);
  assert.equal(r.body.canceled, true);
  assert.match(r.body.reason, /no folder picker is installed \(install zenity or kdialog\)/);
});

test('one picker at a time', { skip: process.platform !== 'linux' && 'Linux only' }, async () => {
  // The picker stays open until the test closes it: the second request comes while it is open for sure.
  await rm(path.join(bin, 'args'), { force: true });
  await fakeZenity(`while [ ! -f "${bin}/close" ]; do sleep 0.05; done; echo /srv/data`);
  const first = t.api('POST', '/api/pick-folder');
  await until('the first picker to open', () => existsSync(path.join(bin, 'args')));
  try {
    const second = await t.api('POST', '/api/pick-folder');
    assert.equal(second.status, 409);
    assert.match(second.body.error, /already open/);
  } finally {
    await writeFile(path.join(bin, 'close'), '');
  }
  assert.deepEqual((await first).body, { path: '/srv/data' });
});
