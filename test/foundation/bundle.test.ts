/**
 * `npm run build` bundles the CLI with esbuild (a faster start) and bin/engine.js runs the bundle.
 * This checks the bundle serves the same engine as the sources: same tools, a working socket; and
 * that its source is Latin-1 throughout (one byte a character in V8's memory).
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, tempDir } from '../support/engine.js';
import { buildBundle, bundleDir, NO_ESBUILD } from '../support/bundle.js';
import { SERVING, spawnNode } from '../support/process.js';

test('the bundled CLI serves the same engine as the sources', { skip: NO_ESBUILD }, async () => {
  const out = bundleDir('bundle');
  const home = await tempDir();
  const ref = await startTestEngine();
  buildBundle(out);
  // V8 keeps the bundle's source for the life of the process, one byte a character only while every
  // character is Latin-1: one `…` left raw (a String.raw esbuild cannot escape) doubles it (2.2 -> 4.5 MB).
  const wide = /[^\u0000-\u00ff]/.exec(await readFile(path.join(out, 'engine.cjs'), 'utf8'));
  assert.equal(wide, null, `engine.cjs holds ${JSON.stringify(wide?.[0])} near ${JSON.stringify(wide?.input.slice(Math.max(0, wide.index - 60), wide.index + 20))}; write it as an escape`);
  // Plain node (the spawn helper adds tsx, which the bundle does not need but tolerates).
  const serve = spawnNode([path.join(out, 'main.js'), 'serve'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: home, ENGINE_SECRETS: 'file', ENGINE_CACHE_DIR: path.join(home, 'code-cache') });
  try {
    const up = await serve.waitForLine(SERVING);
    const status = (await (await fetch(`${up.match[1]}/api/status`)).json()) as { tools: string[] };
    const expected = (await ref.api('GET', '/api/status')).body.tools as string[];
    assert.deepEqual([...status.tools].sort(), [...expected].sort());
    const events = await collectEvents(up.match[1]);
    await fetch(`${up.match[1]}/api/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"chatMaxTurns": 7}' });
    assert.equal(((await events.waitFor('settings.updated')).settings as { chatMaxTurns: number }).chatMaxTurns, 7);
    events.close();
    serve.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0);
  } finally {
    serve.kill('SIGKILL');
    await ref.close();
    await rm(out, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
});
