/**
 * Issue 26, the CLI a newcomer meets: Ctrl-C ends with `engine: stopped`; `engine status` for a home
 * whose engine is not running says which home serves the port; the sentences name the command as
 * it can be typed here (`npx engine ...` when no `engine` on the PATH is this one).
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { SERVING, spawnNode, spawnServe } from '../support/process.js';

test('status names the home that serves the port; Ctrl-C prints engine: stopped', async () => {
  const homeA = await tempDir();
  const homeB = await tempDir();
  const serve = spawnServe(homeA, { PATH: '/usr/bin:/bin' });
  try {
    const first = await serve.waitForLine(SERVING);
    const port = new URL(first.match[1]).port;
    await serve.waitForLine(/stop everything with npx engine stop \(or kill \d+\)$/);
    const status = spawnNode(['src/main.ts', 'status'], { ENGINE_HOME: homeB, ENGINE_PORT: port, PATH: '/usr/bin:/bin' });
    assert.equal((await status.exited).code, 3);
    assert.deepEqual(status.lines.filter((l) => l), [`engine: not running for home ${homeB}; port ${port} is served by the engine for home ${homeA} (npx engine status --home ${homeA})`]);

    serve.kill('SIGINT');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
    assert.equal(serve.lines.filter((l) => l).at(-1), 'engine: stopped');
  } finally {
    serve.kill('SIGKILL');
    await rm(homeA, { recursive: true, force: true });
    await rm(homeB, { recursive: true, force: true });
  }
});

test('without a supervisor, Ctrl-C prints engine: stopped too', async () => {
  const home = await tempDir();
  const serve = spawnNode(['src/main.ts', 'serve', '--no-supervisor'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: home, ENGINE_SECRETS: 'file' });
  try {
    await serve.waitForLine(SERVING);
    serve.kill('SIGINT');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
    assert.equal(serve.lines.filter((l) => l).at(-1), 'engine: stopped');
  } finally {
    serve.kill('SIGKILL');
    await rm(home, { recursive: true, force: true });
  }
});
