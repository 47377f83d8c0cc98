/** The permission gate inside chat: prompts in ask mode, switching to allow mid-turn, stopping a prompt. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startChat, WIRE_TYPES, type ChatHarness } from './harness.js';

for (const type of WIRE_TYPES) {
  describe(`chat permissions (${type})`, () => {
    let h: ChatHarness;
    before(async () => {
      h = await startChat(type);
    });
    after(() => h.close());

    it('asks in ask mode and runs the call once the prompt is allowed through /api/permissions/resolve', async () => {
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'make build' } }] }, { text: 'built' });
      const seq = h.lastSeq();
      await h.send('p-ask', 'build it', { permissionMode: 'ask' });
      const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'p-ask');
      assert.equal(asked.tool, 'test_danger');
      assert.ok(!h.trace.includes('ran:danger:make build'), 'the call waits for the answer');
      const res = await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow', scope: 'once' });
      assert.equal(res.status, 200);
      const end = await h.turnEnd('p-ask', seq);
      assert.equal(end.kind, 'run.completed');
      assert.ok(h.trace.includes('ran:danger:make build'));
      const result = h.events.events.find((e) => e.kind === 'tool.result' && e.runId === end.runId);
      assert.equal(result?.ok, true);
    });

    it('GET /api/chat/<id> says the turn waits on a person: waiting [{callId, tool, display}] until the prompt is answered', async () => {
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'make wait' } }] }, { text: 'done' });
      const seq = h.lastSeq();
      await h.send('p-wait', 'run it', { permissionMode: 'ask' });
      const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'p-wait');
      const short = await h.t.api('GET', '/api/chat/p-wait');
      assert.equal(short.body.busy, true);
      assert.deepEqual(short.body.waiting, [{ callId: asked.callId, tool: 'test_danger', display: asked.display }]);
      const full = await h.t.api('GET', '/api/chat/p-wait?view=full');
      assert.deepEqual(full.body.waiting, short.body.waiting);
      assert.equal((await h.t.api('GET', '/api/chat/p-ask')).body.waiting, undefined, "another session's prompt is not shown");
      await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow', scope: 'once' });
      await h.turnEnd('p-wait', seq);
      assert.equal((await h.t.api('GET', '/api/chat/p-wait')).body.waiting, undefined);
    });

    it('a denied prompt becomes a tool error the model reads, and the turn goes on', async () => {
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'rm -rf build' } }] }, { text: 'ok, I will not' });
      const seq = h.lastSeq();
      await h.send('p-ask', 'clean it');
      const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq);
      await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'deny', scope: 'once' });
      const end = await h.turnEnd('p-ask', seq);
      assert.equal(end.kind, 'run.completed');
      assert.ok(!h.trace.includes('ran:danger:rm -rf build'));
      assert.match(JSON.stringify(h.model.requests.at(-1)!.body), /Permission denied/);
    });

    it('switching the session to allow mid-turn releases the blocking prompt', async () => {
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'deploy' } }] }, { toolCalls: [{ name: 'test_danger', args: { command: 'deploy again' } }] }, { text: 'deployed twice' });
      const seq = h.lastSeq();
      await h.send('p-switch', 'deploy', { permissionMode: 'ask' });
      const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'p-switch');
      const mode = await h.t.api('PUT', '/api/chat/mode', { sessionId: 'p-switch', permissionMode: 'allow' });
      assert.equal(mode.status, 200);
      await h.events.waitFor((e) => e.kind === 'permission.resolved' && e.callId === asked.callId);
      const end = await h.turnEnd('p-switch', seq);
      assert.equal(end.kind, 'run.completed');
      assert.ok(h.trace.includes('ran:danger:deploy'));
      assert.ok(h.trace.includes('ran:danger:deploy again'));
      // The second call in allow mode never prompted.
      assert.equal(h.events.events.filter((e) => e.kind === 'permission.requested' && e.runId === end.runId).length, 1);
    });

    it('stopping the turn while a prompt waits ends the turn as stopped without running the call', async () => {
      h.model.script({ toolCalls: [{ name: 'test_danger', args: { command: 'format disk' } }] });
      const seq = h.lastSeq();
      await h.send('p-stop', 'format', { permissionMode: 'ask' });
      await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq && e.sessionId === 'p-stop');
      await h.t.api('POST', '/api/chat/stop', { sessionId: 'p-stop' });
      const end = await h.turnEnd('p-stop', seq);
      assert.equal(end.kind, 'run.stopped');
      assert.ok(h.events.events.some((e) => e.kind === 'permission.denied' && e.runId === end.runId));
      assert.ok(!h.trace.includes('ran:danger:format disk'));
      const pending = await h.t.api('GET', '/api/permissions/pending');
      assert.equal(pending.status, 200);
      assert.deepEqual(pending.body.pending, [], 'the stopped prompt no longer waits');
    });
  });
}
