/** POST /api/test-provider, hot swap of providers on PUT /api/config, and compaction in a long session. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { startChat, WIRE_TYPES, type ChatHarness } from './harness.js';

for (const type of WIRE_TYPES) {
  describe(`providers (${type})`, () => {
    let h: ChatHarness;
    let other: ModelServer;
    before(async () => {
      h = await startChat(type, { contextWindow: 1000 });
      other = await startModelServer();
    });
    after(async () => {
      await h.close();
      await other.close();
    });

    it('test-provider performs a real completion and reports failures as ok:false with status 200', async () => {
      h.model.script({ text: 'ok' });
      const good = await h.t.api('POST', '/api/test-provider', { type, baseUrl: h.model.baseUrl, model: 'probe-model', newKey: 'sk-probe' });
      assert.equal(good.status, 200);
      assert.equal(good.body.ok, true, good.body.error);
      assert.equal(good.body.reply, 'ok');
      assert.equal(typeof good.body.latencyMs, 'number');
      const req = h.model.requests.at(-1)!;
      assert.equal(req.body.model, 'probe-model');
      assert.notEqual(req.body.stream, true);
      if (type === 'anthropic') assert.equal(req.headers['x-api-key'], 'sk-probe');
      else assert.equal(req.headers.authorization, 'Bearer sk-probe');
      assert.doesNotMatch(JSON.stringify(good.body), /sk-probe/);

      // The stored key is used when no newKey is sent.
      h.model.script({ text: 'ok' });
      const stored = await h.t.api('POST', '/api/test-provider', { type, baseUrl: h.model.baseUrl, model: 'm', name: 'scripted' });
      assert.equal(stored.body.ok, true);
      const header = type === 'anthropic' ? h.model.requests.at(-1)!.headers['x-api-key'] : h.model.requests.at(-1)!.headers.authorization;
      assert.match(String(header), /sk-test-key-123/);

      h.model.script({ error: 401, body: type === 'anthropic' ? { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } : { error: { message: 'Incorrect API key provided' } } });
      const bad = await h.t.api('POST', '/api/test-provider', { type, baseUrl: h.model.baseUrl, model: 'm', newKey: 'wrong' });
      assert.equal(bad.status, 200);
      assert.equal(bad.body.ok, false);
      assert.match(bad.body.error, /401: (invalid x-api-key|Incorrect API key provided)/);

      const unreachable = await h.t.api('POST', '/api/test-provider', { type, baseUrl: 'http://127.0.0.1:1/v1', model: 'm' });
      assert.equal(unreachable.status, 200);
      assert.equal(unreachable.body.ok, false);
      assert.match(unreachable.body.error, /could not be reached|failed/);
      const parts = unreachable.body.error.split(': ');
      assert.equal(new Set(parts).size, parts.length, `the cause is said once: ${unreachable.body.error}`);

      const invalid = await h.t.api('POST', '/api/test-provider', { type: 'mystery', model: 'm' });
      assert.equal(invalid.status, 200);
      assert.equal(invalid.body.ok, false);
      assert.match(invalid.body.error, /type must be one of/);
    });

    it('hot-swaps providers: the turn in flight finishes on its client, the next turn uses the new one', async () => {
      // The turn's first step calls a tool and takes a while; meanwhile the config moves to another
      // server (with a key of its own: a stored key never follows its provider to another URL).
      h.model.script({ text: 'working', delayMs: 150, chunkChars: 2, toolCalls: [{ name: 'test_put', args: { path: 'p' } }] }, { text: 'finished on the old client' });
      other.script({ text: 'hello from the new client' });
      const seq = h.lastSeq();
      await h.send('s-swap', 'start');
      await h.events.waitFor((e) => e.kind === 'chat.delta' && e.sessionId === 's-swap' && e.seq > seq);
      const put = await h.t.api('PUT', '/api/config', { providers: [{ type, name: 'scripted', baseUrl: other.baseUrl, model: 'new-model', newKey: 'sk-other-key' }], defaultProvider: 'scripted' });
      assert.equal(put.status, 200);
      const end = await h.turnEnd('s-swap', seq);
      assert.equal(end.kind, 'run.completed', String(end.error));
      assert.equal(other.requests.length, 0, 'the turn in flight stayed on its client');
      const seq2 = h.lastSeq();
      await h.send('s-swap', 'again');
      const end2 = await h.turnEnd('s-swap', seq2);
      assert.equal(end2.kind, 'run.completed', String(end2.error));
      assert.equal(other.requests.length, 1);
      assert.equal(other.requests[0].body.model, 'new-model');
      // Put the scripted server back for the next test.
      await h.t.api('PUT', '/api/config', { providers: [{ type, name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model', contextWindow: 1000, newKey: 'sk-test-key-123' }], defaultProvider: 'scripted' });
    });

    it('compacts a long session: older turns summarised into one message, recent turns kept whole', async () => {
      // ~1 300 tokens each against a 4 000-token window whose tool definitions take up to 1 000 (the budget):
      // two turns fit without a cut, the third passes compactFraction and the first turn is summarised.
      await h.t.api('PUT', '/api/config', { providers: [{ type, name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model', contextWindow: 4000 }], defaultProvider: 'scripted' });
      const long = (c: string) => `${c} `.repeat(2600);
      h.model.script({ text: 'reply one' }, { text: 'reply two' }, { text: 'SUMMARY: the user sent a and b' }, { text: 'reply three' });
      for (const [i, c] of ['a', 'b'].entries()) {
        const seq = h.lastSeq();
        await h.send('s-long', `${i === 0 ? 'first' : 'second'} ${long(c)}`);
        assert.equal((await h.turnEnd('s-long', seq)).kind, 'run.completed');
      }
      const seq = h.lastSeq();
      const before = h.model.requests.length;
      await h.send('s-long', 'third, short');
      const end = await h.turnEnd('s-long', seq);
      assert.equal(end.kind, 'run.completed', String(end.error));
      const compacted = h.events.events.find((e) => e.kind === 'chat.compacted' && e.runId === end.runId);
      assert.ok(compacted, 'chat.compacted was emitted');
      assert.equal(compacted.replaced, 2);
      assert.equal(h.model.requests.length, before + 2);
      const summaryRequest = JSON.stringify(h.model.requests[before].body);
      assert.match(summaryRequest, /first a a a/);
      const last = JSON.stringify(h.model.requests.at(-1)!.body);
      assert.doesNotMatch(last, /first a a a/);
      assert.match(last, /SUMMARY: the user sent a and b/);
      assert.match(last, /second b b b/);
      assert.match(last, /third, short/);
      assert.ok(h.events.events.some((e) => e.kind === 'chat.context' && e.runId === end.runId));
      // The whole transcript is still on disk and in the full view; the model view starts at the summary.
      const full = await h.t.api('GET', '/api/chat/s-long?view=full');
      assert.equal(full.body.messages.length, 6);
      assert.ok(full.body.transcript.some((r: any) => r.type === 'compaction'));
    });
  });
}
