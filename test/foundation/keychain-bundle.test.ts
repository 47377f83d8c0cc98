/**
 * The bundled engine (what `npm start` runs) can reach the OS keychain. It loads its code through a
 * vm.Script (for the V8 code cache), where a dynamic `import()` of a package throws; that once kept
 * every bundled engine on the encrypted file without a word. Whether a keychain answers depends on
 * the machine; whether the probe loads the addon does not: /proc/<pid>/maps shows it.
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { buildBundle, bundleDir, NO_ESBUILD } from '../support/bundle.js';
import { SERVING, spawnNode, type Spawned } from '../support/process.js';

const skip = NO_ESBUILD || (process.platform !== 'linux' ? 'reads /proc/<pid>/maps (Linux)' : false);

const procs: Spawned[] = [];
after(() => procs.forEach((p) => p.kill('SIGKILL')));

test('the bundled engine loads the keychain addon to probe it, and not on a home that uses the file', { skip }, async () => {
  const out = bundleDir('keychain');
  try {
    buildBundle(out);
    const addonLoaded = async (secrets: string | undefined) => {
      const home = await tempDir();
      const serve = spawnNode([path.join(out, 'main.js'), 'serve', '--no-supervisor'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: home, ENGINE_SECRETS: secrets, ENGINE_CACHE_DIR: path.join(home, 'cache') });
      procs.push(serve);
      const up = await serve.waitForLine(SERVING, { timeoutMs: 60_000 });
      // Secrets wait for the probe, so after this answer the addon is loaded or never will be.
      assert.equal((await fetch(`${up.match[1]}/api/secrets`)).status, 200);
      const maps = await readFile(`/proc/${serve.child.pid}/maps`, 'utf8');
      serve.kill('SIGTERM');
      await serve.exited;
      await rm(home, { recursive: true, force: true });
      return /keyring/.test(maps);
    };
    assert.equal(await addonLoaded(undefined), true, 'a fresh home probes the keychain through the addon');
    assert.equal(await addonLoaded('file'), false, 'a home on the file never loads it');
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
