/** The `openai` provider type (the OpenAI SDK's chat-completions client) against the scripted server. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { runAgent } from '../../src/agent/index.js';
import { Bus } from '../../src/kernel/bus.js';
import { anthropicBaseUrl, buildClient } from '../../src/providers/clients.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

let server: ModelServer;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

it('runs a tool step and a text step with usage over the openai type', async () => {
  const bus = new Bus();
  const usage: unknown[] = [];
  bus.subscribe((e) => e.kind === 'token.usage' && usage.push(e));
  const tools = new ToolRegistry();
  tools.register(defineTool({ name: 'echo', group: 'test', description: 'Echoes.', parameters: { type: 'object', properties: { v: { type: 'string' } } }, permission: 'other', run: async (a) => `echo ${String(a.v)}` }));
  server.script({ toolCalls: [{ name: 'echo', args: { v: 'x' } }], usage: { input: 10, output: 2, reasoning: 1 } }, { text: 'echoed', usage: { input: 20, output: 3, cached: 5 } });
  const model = await buildClient({ type: 'openai', name: 'oa', baseUrl: server.baseUrl, model: 'gpt-test' }, 'sk-oa');
  const result = await runAgent({
    model,
    messages: [{ role: 'user', content: 'go' }],
    tools,
    ctx: { signal: new AbortController().signal, emit: (k, p) => void bus.emit(k, p), attended: false },
    maxTurns: 3,
  });
  assert.equal(result.status, 'completed', result.error);
  assert.equal(result.text, 'echoed');
  assert.deepEqual(result.usage, { input: 30, output: 5, cached: 5, reasoning: 1 });
  assert.equal(server.requests[0].path, '/v1/chat/completions');
  assert.equal(server.requests[0].headers.authorization, 'Bearer sk-oa');
  assert.match(JSON.stringify(server.requests[1].body), /echo x/);
});

it('takes an Anthropic baseUrl with or without /v1', () => {
  assert.equal(anthropicBaseUrl('https://api.anthropic.com'), 'https://api.anthropic.com/v1');
  assert.equal(anthropicBaseUrl('https://api.anthropic.com/v1/'), 'https://api.anthropic.com/v1');
});
