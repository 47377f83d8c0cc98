/** The scripted model server speaks both wire formats well enough for the real AI SDK clients. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { startModelServer, type ModelServer } from '../support/model-server.js';

describe('scripted model server', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  after(() => server.close());

  const clients = () => ({
    openai: createOpenAICompatible({ name: 'scripted', baseURL: server.baseUrl, includeUsage: true })('m1'),
    anthropic: createAnthropic({ baseURL: server.baseUrl, apiKey: 'k' })('m2'),
  });

  for (const format of ['openai', 'anthropic'] as const) {
    it(`streams text, tool calls and usage in the ${format} format`, async () => {
      const model = clients()[format];
      server.script({ text: 'Hello there world', toolCalls: [{ name: 'look', args: { path: 'a.txt' } }], usage: { input: 40, output: 7, cached: 8 } });
      const result = streamText({
        model,
        prompt: 'hi',
        maxRetries: 0,
        tools: { look: tool({ description: 'look', inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } } }) }) },
      });
      let text = '';
      const calls: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') text += part.text;
        if (part.type === 'tool-call') calls.push({ name: part.toolName, input: part.input });
        if (part.type === 'error') throw part.error;
      }
      assert.equal(text, 'Hello there world');
      assert.deepEqual(calls, [{ name: 'look', input: { path: 'a.txt' } }]);
      const usage = await result.usage;
      assert.equal(usage.inputTokens, 40);
      assert.equal(usage.outputTokens, 7);
      assert.equal(usage.inputTokenDetails.cacheReadTokens, 8);
      const last = server.requests.at(-1)!;
      assert.equal(last.format, format);
      assert.equal(last.body.stream, true);
    });

    it(`answers a non-streaming request and an error status in the ${format} format`, async () => {
      const model = clients()[format];
      server.script({ text: 'pong' }, { error: 401, body: { error: { message: 'bad key' } } });
      const ok = await generateText({ model, prompt: 'ping', maxRetries: 0 });
      assert.equal(ok.text, 'pong');
      await assert.rejects(generateText({ model, prompt: 'ping', maxRetries: 0 }), /bad key|401|Unauthorized/i);
    });
  }
});
