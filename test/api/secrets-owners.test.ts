/**
 * GET /api/secrets says what uses each secret the engine keeps for itself (`usedBy`), so a page can
 * list them without a Delete that would break the feature; a person's own secrets carry no owner.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TOKEN_SECRET } from '../../src/capabilities/browser/service.js';
import { EMBEDDINGS_SECRET, providerSecretName } from '../../src/capabilities/config/types.js';
import { GATEWAY_KEY_SECRET } from '../../src/capabilities/gateway/key.js';
import { tokenSecretName } from '../../src/capabilities/mcp/config.js';
import { oauthSecretNames } from '../../src/capabilities/mcp/oauth.js';
import { secretOwner } from '../../src/capabilities/secrets/owners.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';

test('every name the engine keeps a secret under has an owner; a person’s own names have none', () => {
  for (const name of [TOKEN_SECRET, GATEWAY_KEY_SECRET, EMBEDDINGS_SECRET, providerSecretName('local'), tokenSecretName('github'), oauthSecretNames('linear').tokens, oauthSecretNames('linear').client, 'db:shop:password', 'db:shop:url', 'push:vapid-private-key']) {
    assert.ok(secretOwner(name), name);
  }
  assert.match(secretOwner(providerSecretName('local'))!, /provider "local"/);
  assert.match(secretOwner('db:shop:password')!, /connection "shop"/);
  for (const name of ['github.token', 'shop.key', 'provider-key', 'browser.token']) assert.equal(secretOwner(name), undefined, name);
});

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(async () => t.close());

test('GET /api/secrets answers usedBy for the engine’s own secrets only', async () => {
  assert.equal((await t.api('GET', '/api/browser')).status, 200); // mints the pairing token
  assert.equal((await t.api('POST', '/api/secrets', { name: 'github.token', value: 'ghp_x' })).status, 200);
  const list = (await t.api('GET', '/api/secrets')).body;
  assert.ok(list.names.includes('browser.pairing-token') && list.names.includes('github.token'));
  assert.match(list.usedBy['browser.pairing-token'], /browser extension/);
  assert.equal(list.usedBy['github.token'], undefined);
});
