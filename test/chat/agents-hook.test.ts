/** The hook the agents capability plugs into: `agent` in POST /api/chat resolves through chat.setAgentResolver. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { notFound } from '../../src/kernel/errors.js';
import { startChat, WIRE_TYPES, type ChatHarness } from './harness.js';

for (const type of WIRE_TYPES) {
  describe(`chat with an agent (${type})`, () => {
    let h: ChatHarness;
    before(async () => {
      h = await startChat(type);
      h.t.engine.chat.setAgentResolver(async (name) => {
        if (name !== 'reviewer') throw notFound(`unknown agent "${name}"; known agents: reviewer`);
        return { name, system: 'You are the reviewer agent.', tools: ['test_look'], maxTurns: 2, settings: { temperature: 0.1, maxTokens: 77 } };
      });
    });
    after(() => h.close());

    it('uses the agent system prompt, allowlist, settings and maxTurns; refuses tools outside the allowlist', async () => {
      h.model.script(
        { toolCalls: [{ name: 'test_look', args: { path: 'a' } }, { name: 'test_put', args: { path: 'b' } }] },
        { toolCalls: [{ name: 'test_look', args: { path: 'c' } }] },
      );
      const seq = h.lastSeq();
      const res = await h.send('a-1', 'review this', { agent: 'reviewer' });
      assert.equal(res.status, 202);
      const end = await h.turnEnd('a-1', seq);
      assert.equal(end.kind, 'run.completed', String(end.error));
      assert.equal(end.reason, 'max_turns');
      const started = h.events.events.find((e) => e.kind === 'run.started' && e.runId === end.runId)!;
      assert.equal(started.agent, 'reviewer');
      const first = h.model.requests.at(-2)!.body;
      const shown = type === 'anthropic' ? first.tools.map((t: any) => t.name) : first.tools.map((t: any) => t.function.name);
      assert.deepEqual(shown, ['test_look']);
      assert.match(JSON.stringify(first), /You are the reviewer agent\./);
      assert.equal(first.max_tokens, 77);
      const refused = h.events.events.find((e) => e.kind === 'tool.result' && e.runId === end.runId && e.tool === 'test_put')!;
      assert.equal(refused.ok, false);
      assert.equal(refused.result, 'Tool "test_put" is not available to this agent (not in its allowlist)');
      assert.ok(!h.trace.includes('start:put:b'));
      const call = h.events.events.find((e) => e.kind === 'tool.call' && e.runId === end.runId)!;
      assert.equal(call.agent, 'reviewer');
      const status = await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 'a-1' && e.busy === false);
      assert.equal(status.outcome, 'max_turns');
    });

    it('an unknown agent is a 404 with the resolver sentence', async () => {
      const res = await h.send('a-2', 'hi', { agent: 'ghost' });
      assert.equal(res.status, 404);
      assert.match(res.body.error, /unknown agent "ghost"; known agents: reviewer/);
    });
  });
}
