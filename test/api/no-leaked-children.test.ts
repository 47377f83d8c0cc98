/** Issue 10 item 8: arming the folder watcher leaves no defunct children, however often it is re-armed. */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';

/** This process's children as `pid comm state`, from /proc (the engine runs in-process here). */
async function children(): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const stat = await readFile(`/proc/${d}/stat`, 'utf8').catch(() => '');
    const end = stat.lastIndexOf(')');
    if (end < 0) continue;
    const [state, ppid] = stat.slice(end + 2).split(' ');
    if (Number(ppid) === process.pid) out.push(`${d} ${stat.slice(stat.indexOf('(') + 1, end)} ${state}`);
  }
  return out.sort();
}

test('ten mount and unmount cycles leave the engine with no new child process', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const outside = await tempDir('engine-mount-');
  const t = await startTestEngine(); // the watcher on (the default)
  try {
    const before = await children();
    assert.deepEqual(before.filter((c) => c.endsWith(' Z')), [], 'no zombie at start');
    for (let i = 0; i < 10; i++) {
      const dir = path.join(outside, `m${i}`);
      await mkdir(dir);
      const add = await t.api('POST', '/api/mounts', { path: dir, name: `m${i}` });
      assert.equal(add.status, 201, JSON.stringify(add.body));
      assert.equal((await t.api('DELETE', `/api/mounts/m${i}`)).status, 200);
    }
    assert.deepEqual(await children(), before);
  } finally {
    await t.close();
    await rm(outside, { recursive: true, force: true });
  }
});
