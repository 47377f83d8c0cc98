/** The real supervisor: `engine serve` spawned as a user would run it. */
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { ENGINE_PID, SERVING, spawnServe } from '../support/process.js';

const getJson = async (url: string) => (await fetch(url)).json() as Promise<any>;

test('POST /api/home restarts the engine against the new home; the mobile token is reused per home', async () => {
  const homeA = await tempDir();
  const homeB = await tempDir();
  const serve = spawnServe(homeA);
  try {
    const first = await serve.waitForLine(SERVING);
    const urlA = first.match[1];
    assert.equal(first.match[2], homeA);
    assert.deepEqual(await getJson(`${urlA}/api/home`), { path: homeA });
    const tokenA = JSON.parse(await readFile(path.join(homeA, 'mobile-token.json'), 'utf8')).token;
    const engineA = await serve.waitForLine(ENGINE_PID, { from: first.index });

    const moved = await fetch(`${urlA}/api/home`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: homeB }) });
    assert.deepEqual(await moved.json(), { ok: true, path: homeB, restarting: true });
    const second = await serve.waitForLine(SERVING, { from: first.index + 1 });
    assert.equal(second.match[2], homeB);
    assert.equal(second.match[3], first.match[3], 'the same supervisor');
    assert.notEqual((await serve.waitForLine(ENGINE_PID, { from: second.index })).match[1], engineA.match[1], 'a new engine process');
    assert.deepEqual(await getJson(`${second.match[1]}/api/home`), { path: homeB });

    // Back to the first home: the same token as before, not a new one.
    await fetch(`${second.match[1]}/api/home`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: homeA }) });
    const third = await serve.waitForLine(SERVING, { from: second.index + 1 });
    assert.equal(third.match[2], homeA);
    assert.equal(JSON.parse(await readFile(path.join(homeA, 'mobile-token.json'), 'utf8')).token, tokenA);

    serve.kill('SIGTERM');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
  } finally {
    serve.kill('SIGKILL');
    await rm(homeA, { recursive: true, force: true });
    await rm(homeB, { recursive: true, force: true });
  }
});

test('an unwritable home is refused at start with one clear line', async () => {
  const dir = await tempDir();
  // A path beneath a regular file cannot be created by anyone (root included).
  await writeFile(path.join(dir, 'a-file'), 'x');
  const serve = spawnServe(path.join(dir, 'a-file', 'home'));
  try {
    const { code } = await serve.exited;
    assert.equal(code, 78);
    const text = serve.errLines.filter((l) => l.trim());
    assert.equal(text.length, 1, text.join('\n'));
    assert.match(text[0], /^engine: engine home .* is not writable \(ENOTDIR\); set ENGINE_HOME/);
  } finally {
    serve.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('a crash loop backs off instead of spinning', async () => {
  const home = await tempDir();
  const serve = spawnServe(home);
  try {
    const delays: number[] = [];
    let from = 0;
    for (let i = 0; i < 3; i++) {
      const up = await serve.waitForLine(ENGINE_PID, { from });
      process.kill(Number(up.match[1]), 'SIGKILL');
      const down = await serve.waitForLine(/^engine: process exited \(SIGKILL\); restarting in (\d+) ms$/, { from: up.index + 1 });
      delays.push(Number(down.match[1]));
      from = down.index + 1;
    }
    assert.ok(delays[0] > 0 && delays[1] > delays[0] && delays[2] > delays[1], `delays grow: ${delays.join(', ')}`);
    await serve.waitForLine(SERVING, { from });
    serve.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0);
  } finally {
    serve.kill('SIGKILL');
    await rm(home, { recursive: true, force: true });
  }
});
