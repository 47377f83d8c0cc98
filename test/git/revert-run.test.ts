/**
 * Issue 26: "revert this run" across its roots. A run that wrote into the workspace and a mount is
 * rolled back everywhere at once, each root with its own undo checkpoint.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { allowAllGate } from '../../src/tools/types.js';
import { startTestEngine, tempDir } from '../support/engine.js';
import { isolateGitHome } from './helpers.js';

test('one call reverts every root a run changed; a live run and an unknown run are refused', async () => {
  await isolateGitHome();
  const t = await startTestEngine();
  const mount = path.join(await tempDir('revert-run-'), 'lib');
  await mkdir(mount, { recursive: true });
  try {
    const ws = path.join(t.home, 'workspace');
    await writeFile(path.join(ws, 'app.ts'), 'v1\n');
    await writeFile(path.join(mount, 'lib.ts'), 'lib v1\n');
    assert.equal((await t.api('POST', '/api/mounts', { path: mount, name: 'lib' })).status, 201);

    const run = t.engine.runs.start({ source: 'test' });
    const ctx = { signal: run.signal, emit: run.emit, runId: run.id, attended: false };
    for (const [callId, p, content] of [['w1', 'app.ts', 'v2\n'], ['w2', 'lib/lib.ts', 'lib v2\n'], ['w3', 'lib/new.ts', 'added\n']]) {
      const out = await t.engine.tools.call({ callId, name: 'write_file', args: { path: p, content } }, ctx, { gate: allowAllGate });
      assert.equal(out.isError, false, out.text);
    }
    const live = await t.api('POST', '/api/checkpoints/revert-run', { runId: run.id });
    assert.equal(live.status, 409);
    assert.match(live.body.error, /still running; stop it first/);
    await run.finish('completed');

    const res = await t.api('POST', '/api/checkpoints/revert-run', { runId: run.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // Only the roots the run changed: the memory folder it never touched has no checkpoint to go back to.
    assert.deepEqual(res.body.roots.map((r: { root: string }) => r.root).sort(), ['lib', 'workspace']);
    assert.equal(await readFile(path.join(ws, 'app.ts'), 'utf8'), 'v1\n');
    assert.equal(await readFile(path.join(mount, 'lib.ts'), 'utf8'), 'lib v1\n');
    await assert.rejects(readFile(path.join(mount, 'new.ts')), 'a file the run added is removed');
    const lib = res.body.roots.find((r: { root: string }) => r.root === 'lib');
    assert.deepEqual(lib.changed.map((c: { path: string; change: string }) => `${c.change} ${c.path}`).sort(), ['removed lib/new.ts', 'restored lib/lib.ts']);

    // Each root's undo checkpoint brings the run's work back.
    assert.equal((await t.api('POST', '/api/checkpoints/revert', { sha: lib.undo })).status, 200);
    assert.equal(await readFile(path.join(mount, 'lib.ts'), 'utf8'), 'lib v2\n');

    const unknown = await t.api('POST', '/api/checkpoints/revert-run', { runId: 'run-1-1' });
    assert.equal(unknown.status, 404);
  } finally {
    await t.close();
    await rm(path.dirname(mount), { recursive: true, force: true });
  }
});
