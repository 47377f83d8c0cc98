/**
 * The bundle's V8 code cache lives in the engine's cache folder (ENGINE_CACHE_DIR here), never
 * next to the install, and a cache folder that cannot be written is said once and costs nothing else.
 */
import assert from 'node:assert/strict';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { buildBundle, bundleDir, NO_ESBUILD } from '../support/bundle.js';
import { SERVING, spawnNode } from '../support/process.js';

const until = async (what: string, check: () => Promise<boolean>) => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
};

test('the code cache is written to the cache folder, not the install folder; a failed write is logged once', { skip: NO_ESBUILD }, async () => {
  const out = bundleDir('cache');
  const home = await tempDir();
  const cache = await tempDir();
  buildBundle(out);
  const env = { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: home, ENGINE_SECRETS: 'file' };
  const first = spawnNode([path.join(out, 'main.js'), 'serve'], { ...env, ENGINE_CACHE_DIR: cache });
  try {
    await first.waitForLine(SERVING);
    await until('the code cache file', async () => (await readdir(path.join(cache, 'code')).catch(() => [])).some((f) => /^engine-[0-9a-f]{16}\.cache$/.test(f)));
    assert.deepEqual((await readdir(out)).filter((f) => f.includes('.cache')), [], 'nothing is written next to the bundle');
    first.kill('SIGTERM');
    assert.equal((await first.exited).code, 0);

    // A cache folder that is a file: the engine still serves and says so once.
    const blocked = path.join(cache, 'not-a-folder');
    await writeFile(blocked, 'x');
    const second = spawnNode([path.join(out, 'main.js'), 'serve'], { ...env, ENGINE_CACHE_DIR: blocked });
    try {
      const up = await second.waitForLine(SERVING);
      const said = () => second.errLines.filter((l) => l.includes('could not write the code cache'));
      await until('the cache warning', async () => said().length > 0);
      assert.equal((await fetch(`${up.match[1]}/api/status`)).status, 200);
      assert.equal(said().length, 1);
      assert.match(said()[0], /ENGINE_CACHE_DIR/);
      second.kill('SIGTERM');
      assert.equal((await second.exited).code, 0);
    } finally {
      second.kill('SIGKILL');
    }
  } finally {
    first.kill('SIGKILL');
    await rm(out, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
});
