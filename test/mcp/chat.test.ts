/** MCP tools from chat: the scripted model calls a real server's tool; the gate treats it as "unknown effect". */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { connected, EVERYTHING, stdio, waitForMcp } from './support.js';

describe('mcp tools in chat', () => {
  let h: ChatHarness;
  before(async () => {
    h = await startChat('openai-compatible');
    await h.t.api('PUT', '/api/mcp', { servers: { everything: stdio(EVERYTHING, 'stdio') } });
    await waitForMcp(h.t, connected('everything'), 'everything');
  });
  after(() => h?.close());

  it('shows the model the server tool, prompts under its full name, and returns the result to the model', async () => {
    h.model.script({ toolCalls: [{ name: 'everything_echo', args: { message: 'from the model' } }] }, { text: 'echoed' });
    const seq = h.lastSeq();
    await h.send('m-1', 'echo something', { permissionMode: 'ask' });
    const asked = await h.events.waitFor((e) => e.kind === 'permission.requested' && e.seq > seq);
    assert.equal(asked.tool, 'everything_echo');
    assert.equal(asked.key, 'everything_echo');
    const offered = h.model.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
    assert.ok(offered.includes('everything_echo'), 'the model was shown the MCP tool');
    await h.t.api('POST', '/api/permissions/resolve', { runId: asked.runId, callId: asked.callId, decision: 'allow', scope: 'always' });
    const end = await h.turnEnd('m-1', seq);
    assert.equal(end.kind, 'run.completed');
    const toolMessage = h.model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    assert.match(String(toolMessage.content), /from the model/);
    const rules = (await h.t.api('GET', '/api/permissions')).body.rules as Array<{ key: string; decision: string }>;
    assert.ok(rules.some((r) => r.key === 'everything_echo' && r.decision === 'allow'), 'the always-rule keys on the full name');
  });
});
