/** Issue 10 items 3-6: failed turns are visible, unknown sessions are 404, one stop behaviour, a removed provider's key goes. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { startTestEngine } from '../support/engine.js';
import { startModelServer } from '../support/model-server.js';

describe('chat', () => {
  let h: ChatHarness;
  before(async () => {
    h = await startChat('openai-compatible');
  });
  after(() => h.close());

  it('a turn whose provider is unreachable shows its outcome and error in GET /api/chat/<id>, and logs one line', async () => {
    const gone = await startModelServer();
    const url = gone.baseUrl;
    await gone.close(); // nothing listens there now
    const put = await h.t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'm' }, { type: 'openai-compatible', name: 'nowhere', baseUrl: url, model: 'm' }], defaultProvider: 'scripted' });
    assert.equal(put.status, 200);
    const seq = h.lastSeq();
    assert.equal((await h.send('s-fail', 'hello?', { provider: 'nowhere' })).status, 202);
    assert.equal((await h.turnEnd('s-fail', seq)).kind, 'run.failed');
    await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-fail' && e.busy === false);
    const r = await h.t.api('GET', '/api/chat/s-fail');
    assert.equal(r.status, 200);
    assert.equal(r.body.busy, false);
    assert.equal(r.body.lastTurn.status, 'failed');
    assert.match(r.body.lastTurn.error, /\S/);
    const [user] = r.body.messages;
    assert.equal(user.text, 'hello?');
    assert.equal(user.status, 'failed');
    assert.equal(user.error, r.body.lastTurn.error);
    const lines = h.t.logs.filter((l) => l.includes(r.body.lastTurn.runId));
    assert.equal(lines.length, 1, h.t.logs.join('\n'));
    assert.match(lines[0], /^chat: turn run-\S+ in session s-fail failed: /);
  });

  it('unknown session ids are 404 on every route but the one that starts a turn, and nothing is created', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/api/chat/nobody', undefined],
      ['GET', '/api/chat/nobody?view=full', undefined],
      ['PUT', '/api/chat/nobody', { title: 'x' }],
      ['PUT', '/api/chat/mode', { sessionId: 'nobody', permissionMode: 'allow' }],
      ['POST', '/api/chat/stop', { sessionId: 'nobody' }],
      ['PUT', '/api/chat/queue', { sessionId: 'nobody', id: 'q-1', message: 'x' }],
      ['DELETE', '/api/chat/queue?session=nobody&id=q-1', undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await h.t.api(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /no chat session "nobody"/);
    }
    const list = await h.t.api('GET', '/api/chat');
    assert.ok(!list.body.sessions.some((s: { id: string }) => s.id === 'nobody'));
  });

  it('stopping a turn through POST /api/runs/<id>/stop holds the queue as POST /api/chat/stop does', async () => {
    h.model.script({ text: 'busy', hang: true });
    const seq = h.lastSeq();
    await h.send('s-runstop', 'first');
    const started = await h.events.waitFor((e) => e.kind === 'run.started' && e.sessionId === 's-runstop' && e.seq > seq);
    await h.events.waitFor((e) => e.kind === 'chat.delta' && e.sessionId === 's-runstop' && e.seq > seq);
    const q = await h.send('s-runstop', 'queued behind');
    assert.equal(q.body.queued, true);
    const before = h.model.requests.length;
    assert.equal((await h.t.api('POST', `/api/runs/${started.runId}/stop`)).status, 202);
    const removed = await h.events.waitFor((e) => e.kind === 'chat.queue.removed' && e.id === q.body.id);
    assert.equal(removed.reason, 'stopped');
    assert.equal(removed.message, 'queued behind');
    await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 's-runstop' && e.busy === false);
    const full = await h.t.api('GET', '/api/chat/s-runstop?view=full');
    assert.deepEqual(full.body.queued, []);
    assert.equal(full.body.lastTurn.status, 'stopped');
    assert.equal(h.model.requests.length, before, 'no turn started for the queued message');
    assert.ok(!h.events.events.some((e) => e.kind === 'run.started' && e.sessionId === 's-runstop' && e.seq > removed.seq));
  });
});

describe('config', () => {
  it("replacing a provider removes its key from the secret store", async () => {
    const t = await startTestEngine({ files: { watch: false } });
    try {
      const one = await t.api('PUT', '/api/config', { providers: [{ type: 'openai', name: 'first', model: 'm', newKey: 'sk-first-123456' }], defaultProvider: 'first' });
      assert.equal(one.status, 200);
      assert.ok((await t.api('GET', '/api/secrets')).body.names.includes('provider.first.key'));
      const two = await t.api('PUT', '/api/config', { providers: [{ type: 'openai', name: 'second', model: 'm', newKey: 'sk-second-123456' }], defaultProvider: 'second' });
      assert.equal(two.status, 200);
      const names = (await t.api('GET', '/api/secrets')).body.names;
      assert.ok(!names.includes('provider.first.key'), names.join(', '));
      assert.ok(names.includes('provider.second.key'));
      assert.equal(await t.engine.secrets.get('provider.first.key'), undefined);
    } finally {
      await t.close();
    }
  });
});
