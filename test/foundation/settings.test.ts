import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../src/capabilities/settings/types.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

test('settings start at the documented defaults', async () => {
  const { status, body } = await t.api('GET', '/api/settings');
  assert.equal(status, 200);
  assert.deepEqual(body, DEFAULT_SETTINGS);
});

test('a partial PUT merges, persists and survives a restart', async () => {
  const put = await t.api('PUT', '/api/settings', { chatMaxTurns: 12, completions: { enabled: false } });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body, { chatMaxTurns: 12, compactFraction: DEFAULT_SETTINGS.compactFraction, toolBudgetShare: DEFAULT_SETTINGS.toolBudgetShare, completions: { enabled: false, provider: null }, sandbox: DEFAULT_SETTINGS.sandbox, push: { subject: null } });
  const onDisk = JSON.parse(await readFile(path.join(t.home, 'settings.json'), 'utf8'));
  assert.equal(onDisk.chatMaxTurns, 12);
  const again = await startTestEngine({ home: t.home });
  try {
    assert.deepEqual((await again.api('GET', '/api/settings')).body, put.body);
  } finally {
    await again.close();
  }
});

test('bad values are 400 sentences and change nothing', async () => {
  const before = (await t.api('GET', '/api/settings')).body;
  for (const bad of [{ chatMaxTurns: 0 }, { chatMaxTurns: 2.5 }, { compactFraction: 2 }, { compactFraction: 'x' }, { toolBudgetShare: 0 }, { toolBudgetShare: 1 }, { completions: { enabled: 'yes' } }, { completions: { nope: 1 } }, { colour: 'red' }, [1], { sandbox: { mode: 'full' } }, { sandbox: { network: 'yes' } }, { sandbox: { whenUnavailable: 'maybe' } }, { sandbox: { nope: 1 } }, { sandbox: 'off' }, { push: { subject: 'https://localhost' } }, { push: { nope: 1 } }, { push: 'on' }]) {
    const { status, body } = await t.api('PUT', '/api/settings', bad);
    assert.equal(status, 400, JSON.stringify(bad));
    assert.match(body.error, /must|no setting|no field|unknown field|send a JSON object|refuse/);
  }
  assert.deepEqual((await t.api('GET', '/api/settings')).body, before);
});
