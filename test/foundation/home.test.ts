import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';

test('GET /api/home; POST validates, answers, then asks for the restart', async () => {
  let asked: string | undefined;
  let resolveAsked!: () => void;
  const restarted = new Promise<void>((r) => (resolveAsked = r));
  const t = await startTestEngine({ onRestart: (h) => ((asked = h), resolveAsked()) });
  const other = await tempDir();
  try {
    assert.deepEqual((await t.api('GET', '/api/home')).body, { path: t.home });
    assert.equal((await t.api('POST', '/api/home', { path: 'relative/dir' })).status, 400);
    assert.equal((await t.api('POST', '/api/home', {})).status, 400);
    assert.equal((await t.api('POST', '/api/home', { path: '/proc/engine-home' })).status, 400);
    assert.equal(asked, undefined);
    const target = path.join(other, 'nested', 'home');
    const r = await t.api('POST', '/api/home', { path: target });
    assert.deepEqual(r.body, { ok: true, path: target, restarting: true });
    await restarted;
    assert.equal(asked, target);
  } finally {
    await t.close();
    await rm(other, { recursive: true, force: true });
  }
});

test('an engine without a supervisor refuses to move', async () => {
  const t = await startTestEngine();
  try {
    const r = await t.api('POST', '/api/home', { path: '/tmp/x' });
    assert.equal(r.status, 409);
  } finally {
    await t.close();
  }
});
