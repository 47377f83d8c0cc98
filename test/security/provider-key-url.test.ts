/**
 * Issue 9 §4: a stored provider key goes only to the URL it was stored with. Two loopback model
 * servers; the one the key was not stored for must never see it (nor any Authorization header).
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

const KEY = 'sk-stored-for-a-0123456789abcdef';

for (const type of ['openai-compatible', 'anthropic'] as const) {
  describe(`stored keys stay with their URL (${type})`, () => {
    let t: TestEngine;
    let a: ModelServer;
    let b: ModelServer;
    const sawKey = (s: ModelServer) => s.requests.some((r) => JSON.stringify(r.headers).includes(KEY));
    const sawAuth = (s: ModelServer) => s.requests.some((r) => r.headers.authorization !== undefined || r.headers['x-api-key'] !== undefined);

    before(async () => {
      a = await startModelServer();
      b = await startModelServer();
      t = await startTestEngine();
      const put = await t.api('PUT', '/api/config', { providers: [{ type, name: 'main', baseUrl: a.baseUrl, model: 'm', newKey: KEY }], defaultProvider: 'main' });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    });
    after(async () => {
      await t.close();
      await a.close();
      await b.close();
    });

    it('test-provider naming the stored provider with another baseUrl does not send the key there', async () => {
      b.script({ text: 'ok' });
      const r = await t.api('POST', '/api/test-provider', { type, name: 'main', baseUrl: b.baseUrl, model: 'm' });
      assert.equal(r.status, 200);
      assert.equal(r.body.ok, false);
      assert.match(r.body.error, /belongs to .* never sent to/);
      assert.ok(!r.body.error.includes(KEY));
      assert.equal(sawKey(b), false);
      assert.equal(sawAuth(b), false);
      // Other spellings of the other URL, and of a neighbour on the same host, are refused too.
      for (const baseUrl of [b.baseUrl + '/', b.baseUrl.replace('127.0.0.1', 'localhost'), a.baseUrl.replace('/v1', '/v2'), a.baseUrl + '/../v1x']) {
        const again = await t.api('POST', '/api/test-provider', { type, name: 'main', baseUrl, model: 'm' });
        assert.equal(again.body.ok, false, baseUrl);
      }
      assert.equal(sawKey(b), false);
    });

    it('the same request to the URL the key was stored for sends it (a trailing slash is the same URL)', async () => {
      a.script({ text: 'ok' }, { text: 'ok' });
      for (const baseUrl of [a.baseUrl, a.baseUrl + '/']) {
        const r = await t.api('POST', '/api/test-provider', { type, name: 'main', baseUrl, model: 'm' });
        assert.equal(r.body.ok, true, r.body.error);
      }
      assert.equal(sawKey(a), true);
    });

    it('a newKey for the other URL is used for that test only', async () => {
      b.script({ text: 'ok' });
      const r = await t.api('POST', '/api/test-provider', { type, name: 'main', baseUrl: b.baseUrl, model: 'm', newKey: 'sk-for-b-only-0000000000' });
      assert.equal(r.body.ok, true, r.body.error);
      assert.equal(sawKey(b), false);
      assert.ok(JSON.stringify(b.requests.at(-1)!.headers).includes('sk-for-b-only'));
    });

    it('moving baseUrl with PUT /api/config or by hand without sending the key again never sends it to the new URL', async () => {
      const events = await collectEvents(t.url);
      try {
        const before = b.requests.length;
        const put = await t.api('PUT', '/api/config', { providers: [{ type, name: 'main', baseUrl: b.baseUrl, model: 'm' }], defaultProvider: 'main' });
        assert.equal(put.status, 200);
        b.script({ text: 'hello' });
        const chat = await t.api('POST', '/api/chat', { sessionId: 'moved', message: 'hi' });
        if (chat.status === 200) {
          const end = await events.waitFor((e) => e.kind === 'run.failed' || e.kind === 'run.completed', 30_000);
          assert.equal(end.kind, 'run.failed');
          assert.match(String(end.error), /never sent to/);
        } else {
          assert.equal(chat.status, 400);
          assert.match(chat.body.error, /never sent to/);
        }
        assert.equal(b.requests.length, before, 'the other server got a request');
        assert.equal(sawKey(b), false);

        // By hand: the file says the key's provider now points at B.
        const file = path.join(t.home, 'engine.config.json');
        const json = JSON.parse(await readFile(file, 'utf8'));
        json.providers[0].baseUrl = b.baseUrl;
        json.providers[0].name = 'main';
        await writeFile(file, JSON.stringify(json));
        await t.engine.config.reload();
        await assert.rejects(t.engine.providers.resolve('main'), /never sent to/);
        assert.equal(sawKey(b), false);

        // Back to A: the key works again without being sent anew.
        await t.api('PUT', '/api/config', { providers: [{ type, name: 'main', baseUrl: a.baseUrl, model: 'm' }], defaultProvider: 'main' });
        a.script({ text: 'ok' });
        const ok = await t.api('POST', '/api/test-provider', { type, name: 'main', baseUrl: a.baseUrl, model: 'm' });
        assert.equal(ok.body.ok, true, ok.body.error);
      } finally {
        events.close();
      }
    });
  });
}

it('a key stored before bindings existed is bound to its configured URL on first use', async () => {
  const a = await startModelServer();
  const b = await startModelServer();
  const t = await startTestEngine();
  try {
    await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'old', baseUrl: a.baseUrl, model: 'm' }], defaultProvider: 'old' });
    // Stored straight into the secret store, as an older engine (or POST /api/secrets) would have.
    await t.api('POST', '/api/secrets', { name: 'provider.old.key', value: KEY });
    b.script({ text: 'ok' });
    const r = await t.api('POST', '/api/test-provider', { type: 'openai-compatible', name: 'old', baseUrl: b.baseUrl, model: 'm' });
    assert.equal(r.body.ok, false);
    assert.equal(b.requests.length, 0);
    a.script({ text: 'ok' });
    const ok = await t.api('POST', '/api/test-provider', { type: 'openai-compatible', name: 'old', baseUrl: a.baseUrl, model: 'm' });
    assert.equal(ok.body.ok, true, ok.body.error);
  } finally {
    await t.close();
    await a.close();
    await b.close();
  }
});
