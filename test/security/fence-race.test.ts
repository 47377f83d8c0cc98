/**
 * The fence against a time-of-check/time-of-use race: a separate process swaps symlinks between an
 * inside target and an outside victim as fast as it can, while the engine reads, writes, edits,
 * renames, copies, makes folders and deletes through the real routes and tools. The victim folder
 * (a temp folder outside the engine home) must never be read, written or deleted: its unique text
 * never appears in an answer or in a workspace file, and its tree is byte-for-byte unchanged.
 *
 * Bounded: ROUNDS rounds of every operation, and no round starts after BUDGET_MS.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

const ROUNDS = 150;
const BUDGET_MS = 45_000;
const VICTIM = `VICTIM-${randomUUID()}`;

let t: TestEngine;
let ws: string;
let outside: string;
let swapper: ChildProcess | undefined;

/** The swapping loop, run in its own process so it races the engine's event loop for real. */
const SWAPPER = `
const fs = require('node:fs');
const path = require('node:path');
const [ws, outside] = process.argv.slice(1);
const flips = [
  ['flip', path.join(ws, 'in', 'secret.txt'), path.join(outside, 'secret.txt')],
  ['flipdir', path.join(ws, 'in', 'dir'), path.join(outside, 'dir')],
];
let n = 0;
const swapTo = (link, target) => {
  const tmp = path.join(ws, '.swap-' + link);
  try { fs.rmSync(tmp, { force: true }); fs.symlinkSync(target, tmp); fs.renameSync(tmp, path.join(ws, link)); } catch {}
};
// A folder deep inside a tree being deleted turns into a link to the victim and back.
const walk = path.join(ws, 'walk');
const sw = path.join(walk, 'sw');
const aside = path.join(walk, 'aside');
const flipWalk = () => {
  try {
    const st = fs.lstatSync(sw);
    if (st.isDirectory()) { fs.renameSync(sw, aside); fs.symlinkSync(path.join(outside, 'walkvictim'), sw); }
    else { fs.unlinkSync(sw); fs.renameSync(aside, sw); }
  } catch {
    try { fs.mkdirSync(sw, { recursive: true }); fs.writeFileSync(path.join(sw, 'f.txt'), 'inside'); } catch {}
  }
};
for (;;) {
  n++;
  for (const [link, a, b] of flips) swapTo(link, n % 2 ? a : b);
  flipWalk();
}
`;

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string, rel: string) => {
    for (const name of (await readdir(d)).sort()) {
      const p = path.join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(p);
      if (st.isSymbolicLink()) out[r] = `link:${await readlink(p)}`;
      else if (st.isDirectory()) {
        out[r] = 'dir';
        await walk(p, r);
      } else out[r] = await readFile(p, 'utf8');
    }
  };
  await walk(dir, '');
  return out;
}

async function seedOutside() {
  await mkdir(path.join(outside, 'dir', 'keep'), { recursive: true });
  await mkdir(path.join(outside, 'walkvictim'), { recursive: true });
  await writeFile(path.join(outside, 'secret.txt'), `${VICTIM} file`);
  await writeFile(path.join(outside, 'dir', 'secret.txt'), `${VICTIM} dir file`);
  await writeFile(path.join(outside, 'dir', 'secret2.txt'), `${VICTIM} dir file 2`);
  await writeFile(path.join(outside, 'dir', 'keep', 'k.txt'), `${VICTIM} kept`);
  await writeFile(path.join(outside, 'dir', 'keep', `${VICTIM}.txt`), 'a name that must not be listed');
  await writeFile(path.join(outside, 'walkvictim', 'f.txt'), `${VICTIM} walk`);
}

/** The inside twins of the victim's files, so every operation is valid when the links point inside. */
async function seedInside() {
  await mkdir(path.join(ws, 'in', 'dir', 'keep'), { recursive: true });
  await writeFile(path.join(ws, 'in', 'secret.txt'), 'inside text');
  await writeFile(path.join(ws, 'in', 'dir', 'secret.txt'), 'inside dir text');
  await writeFile(path.join(ws, 'in', 'dir', 'secret2.txt'), 'inside dir text 2');
  await writeFile(path.join(ws, 'in', 'dir', 'keep', 'k.txt'), 'inside kept');
  await writeFile(path.join(ws, 'in', 'mover.txt'), 'mover');
}

before(async () => {
  t = await startTestEngine();
  ws = path.join(await realpath(t.home), 'workspace');
  outside = await realpath(await tempDir('fence-victim-'));
  await seedOutside();
  await seedInside();
  // Seeded once: from then on the swapper alone re-creates it (the test never writes through it).
  await mkdir(path.join(ws, 'walk', 'sw'), { recursive: true });
  await writeFile(path.join(ws, 'walk', 'sw', 'f.txt'), 'inside');
  await symlink(path.join(ws, 'in', 'secret.txt'), path.join(ws, 'flip'));
  await symlink(path.join(ws, 'in', 'dir'), path.join(ws, 'flipdir'));
});

after(async () => {
  swapper?.kill('SIGKILL');
  await t.close();
  await rm(outside, { recursive: true, force: true });
});

test('a symlink swapped between check and use never lets an operation read, write or delete outside', async () => {
  const before = await snapshot(outside);
  swapper = spawn(process.execPath, ['-e', SWAPPER, ws, outside], { stdio: 'ignore' });
  const leaks: Record<string, number> = {};
  const tries: Record<string, number> = {};
  const leak = (kind: string, yes: boolean) => {
    tries[kind] = (tries[kind] ?? 0) + 1;
    if (yes) leaks[kind] = (leaks[kind] ?? 0) + 1;
  };
  let served = 0;
  const seen = (kind: string, text: unknown) => {
    const s = typeof text === 'string' ? text : JSON.stringify(text);
    leak(kind, s.includes(VICTIM));
    if (s.includes('inside')) served++; // the race refuses some calls, never all: reads still work
  };
  let callSeq = 0;
  const tool = async (name: string, args: Record<string, unknown>) => {
    const out = await t.engine.tools.call({ callId: `race-${++callSeq}`, name, args }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
    return out.text;
  };
  const outsideChanged = async () => JSON.stringify(await snapshot(outside)) !== JSON.stringify(before);
  const restoreOutside = async () => {
    await rm(path.join(outside, 'dir'), { recursive: true, force: true });
    await rm(path.join(outside, 'walkvictim'), { recursive: true, force: true });
    await seedOutside();
  };
  /** A write-side operation: did it change the victim? Restores it so the next round starts clean. */
  const harmed = async (kind: string) => {
    const changed = await outsideChanged();
    leak(kind, changed);
    if (changed) await restoreOutside();
  };

  const started = Date.now();
  let rounds = 0;
  for (let i = 0; i < ROUNDS && Date.now() - started < BUDGET_MS; i++, rounds++) {
    await seedInside();
    seen('read route', (await t.api('GET', '/api/files/flip')).body);
    seen('raw read route', (await t.api('GET', '/api/files/flip?raw=1')).body);
    seen('read through a folder link', (await t.api('GET', '/api/files/flipdir/secret.txt')).body);
    seen('read_file tool', await tool('read_file', { path: 'flip' }));
    seen('list_dir tool', await tool('list_dir', { path: 'flipdir/keep' }));
    seen('grep tool through a folder link', await tool('grep', { pattern: 'text|file|kept', path: 'flipdir' }));
    seen('grep tool through a file link', await tool('grep', { pattern: 'text|file', path: 'flip' }));

    await t.api('PUT', '/api/files/flip', { content: `w${i}` });
    await harmed('write route');
    await tool('write_file', { path: `flipdir/new-${i}.txt`, content: 'new' });
    await harmed('write_file tool');
    await tool('edit_file', { path: 'flipdir/secret.txt', old_string: 'text', new_string: 'TEXT' });
    await harmed('edit_file tool');
    await t.api('POST', '/api/files-op', { op: 'mkdir', path: `flipdir/made-${i}` });
    await harmed('mkdir');

    await t.api('POST', '/api/files-op', { op: 'copy', path: 'flip', to: `copies/f-${i}` });
    await t.api('POST', '/api/files-op', { op: 'copy', path: 'flipdir', to: `copies/d-${i}` });
    await harmed('copy');
    await t.api('POST', '/api/files-op', { op: 'rename', path: 'flipdir/secret.txt', to: `moved/from-${i}.txt` });
    await harmed('rename out of a folder link');
    await t.api('POST', '/api/files-op', { op: 'rename', path: 'in/mover.txt', to: `flipdir/moved-${i}.txt` });
    await harmed('rename into a folder link');

    await tool('delete_file', { path: 'flipdir/secret2.txt' });
    await harmed('delete_file tool');
    await t.api('POST', '/api/files-op', { op: 'delete', path: 'flipdir/keep' });
    await harmed('recursive delete through a folder link');
    await t.api('POST', '/api/files-op', { op: 'delete', path: 'walk' });
    await harmed('recursive delete with a folder swapped mid-walk');
  }
  swapper.kill('SIGKILL');
  await new Promise((r) => swapper!.once('exit', r));

  // Anything copied or moved into the workspace must hold none of the victim's text.
  const inside = await snapshot(ws);
  for (const [rel, content] of Object.entries(inside)) leak('copied or moved into the workspace', content.includes(VICTIM) && !rel.startsWith('flip'));

  const report = Object.keys(tries)
    .map((k) => `${k}: ${leaks[k] ?? 0}/${tries[k]}`)
    .join('; ');
  console.log(`fence race, ${rounds} rounds, ${served} reads served the inside file: ${report}`);
  assert.ok(rounds > 0);
  assert.ok(served > 0, 'reads through a link that points inside most of the time are served');
  assert.deepEqual(leaks, {}, `the fence lost the race: ${report}`);
  assert.deepEqual(await snapshot(outside), before, 'the victim folder is unchanged');
});
