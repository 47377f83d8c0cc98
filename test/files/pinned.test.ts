/**
 * The pinned operations of src/capabilities/files/pinned.ts (and the fenced reader's proof of what it
 * opened, src/kernel/fenced-read.ts), with the swap made deterministically
 * between the check and the call: once with the kernel's /proc pins (Linux), once with the portable
 * proof (inode and path compared again) that macOS and Windows use.
 */
import assert from 'node:assert/strict';
import { lstat, mkdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { mkdtemp } from 'node:fs/promises';
import { EngineError } from '../../src/kernel/errors.js';
import { Fence, isInside } from '../../src/kernel/fence.js';
import { FencedReader, orThrow, pinning } from '../../src/kernel/fenced-read.js';
import { createPins } from '../../src/capabilities/files/pinned.js';

const kernel = pinning.proc;
let base: string;
let ws: string;
let outside: string;
const pins = createPins({ allows: (real) => isInside(real, ws) });

const status = (code: number) => (err: unknown) => {
  assert.ok(err instanceof EngineError, String(err));
  assert.equal(err.status, code, err.message);
  return true;
};

before(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'pinned-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
});
after(() => rm(base, { recursive: true, force: true }));
afterEach(() => {
  pinning.proc = kernel;
});

async function fresh() {
  await rm(ws, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
  await mkdir(path.join(ws, 'dir', 'sub'), { recursive: true });
  await mkdir(path.join(outside, 'sub'), { recursive: true });
  await writeFile(path.join(ws, 'dir', 'f.txt'), 'inside');
  await writeFile(path.join(ws, 'dir', 'sub', 'f.txt'), 'inside sub');
  await writeFile(path.join(outside, 'f.txt'), 'victim');
  await writeFile(path.join(outside, 'sub', 'f.txt'), 'victim sub');
}

/** Replaces the checked folder `dir` by a symlink to the victim, as a racing process would. */
async function swapDir() {
  await rename(path.join(ws, 'dir'), path.join(ws, 'aside'));
  await symlink(outside, path.join(ws, 'dir'));
}

const modes = kernel ? ['kernel pins', 'portable proof'] : ['portable proof'];
for (const mode of modes) {
  describe(mode, () => {
    const setMode = () => {
      pinning.proc = mode === 'kernel pins';
    };

    it('a folder or file swapped for a link after the check is refused, not followed', async () => {
      setMode();
      await fresh();
      // The fenced reader judged this file; the read opens it (after the swap) and proves where it is.
      const reader = new FencedReader(new Fence(ws, () => []));
      const judged = orThrow(await reader.stat('dir/f.txt'));
      await swapDir();
      await assert.rejects(pins.dir(path.join(ws, 'dir'), 'dir'), status(409)); // the last component is now a link
      await assert.rejects(pins.dir(path.join(ws, 'dir', 'sub'), 'dir/sub'), status(403)); // a parent leads outside
      const read = await reader.read(judged);
      assert.equal(read.ok, false);
      assert.equal(!read.ok && read.status, 403, JSON.stringify(read));
      await assert.rejects(pins.ensureDir(path.join(ws, 'dir', 'new'), 'dir/new'), status(409)); // stops at the swapped link
      await assert.rejects(lstat(path.join(outside, 'new')), 'nothing was made outside');
    });

    it('works relative to the pinned folder: reads, atomic writes, copies and deletes', async () => {
      setMode();
      await fresh();
      const d = await pins.ensureDir(path.join(ws, 'dir', 'a', 'b'), 'dir/a/b');
      try {
        await pins.writeAtomic(d, 'w.txt', 'written', 0o600, 'dir/a/b/w.txt');
      } finally {
        await d.close();
      }
      assert.equal(await readFile(path.join(ws, 'dir', 'a', 'b', 'w.txt'), 'utf8'), 'written');
      assert.equal((await lstat(path.join(ws, 'dir', 'a', 'b', 'w.txt'))).mode & 0o777, 0o600);
      const read = orThrow(await new FencedReader(new Fence(ws, () => [])).read('dir/f.txt'));
      assert.equal(read.bytes.toString('utf8'), 'inside');

      await symlink(outside, path.join(ws, 'dir', 'sub', 'out-link'));
      const root = await pins.dir(ws, '.');
      try {
        await pins.copyTree(root, 'dir', root, 'copy', 'dir');
        assert.equal(await readlink(path.join(ws, 'copy', 'sub', 'out-link')), outside, 'a link is copied as a link');
        assert.equal(await readFile(path.join(ws, 'copy', 'sub', 'f.txt'), 'utf8'), 'inside sub');
        await pins.removeTree(root, 'dir', 'dir');
      } finally {
        await root.close();
      }
      await assert.rejects(lstat(path.join(ws, 'dir')));
      assert.equal(await readFile(path.join(outside, 'sub', 'f.txt'), 'utf8'), 'victim sub', 'the link was removed, not followed');
    });

    it('a recursive delete meeting a link removes the link and never what it points to', async () => {
      setMode();
      await fresh();
      await rm(path.join(ws, 'dir', 'sub'), { recursive: true });
      await symlink(path.join(outside, 'sub'), path.join(ws, 'dir', 'sub'));
      const root = await pins.dir(ws, '.');
      try {
        await pins.removeTree(root, 'dir', 'dir');
      } finally {
        await root.close();
      }
      assert.equal(await readFile(path.join(outside, 'sub', 'f.txt'), 'utf8'), 'victim sub');
      assert.equal(await readFile(path.join(outside, 'f.txt'), 'utf8'), 'victim');
    });
  });
}
