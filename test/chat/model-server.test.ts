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

    it(`speaks the raw ${format} stream as the API does`, async () => {
      const step = { text: 'hi', usage: { input: 12, output: 3 } };
      server.script(...(format === 'openai' ? [step, step] : [step]));
      const route = format === 'openai' ? '/chat/completions' : '/messages';
      const raw = async (extra: Record<string, unknown>) => {
        const res = await fetch(server.baseUrl + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'x' }], ...extra }) });
        assert.equal(res.headers.get('content-type'), 'text/event-stream');
        return res.text();
      };
      if (format === 'openai') {
        // The usage chunk comes only when the request asks for it, as OpenAI does.
        const plain = await raw({});
        assert.doesNotMatch(plain, /"usage"/);
        assert.match(plain, /"logprobs":null/);
        assert.ok(plain.endsWith('data: [DONE]\n\n'));
        const withUsage = await raw({ stream_options: { include_usage: true } });
        assert.match(withUsage, /"choices":\[\],"usage":\{"prompt_tokens":12,"completion_tokens":3/);
      } else {
        const text = await raw({});
        const kinds = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
        assert.deepEqual(kinds, ['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
        for (const block of text.trim().split('\n\n')) {
          const [ev, data] = block.split('\n');
          assert.equal(JSON.parse(data.slice('data: '.length)).type, ev.slice('event: '.length), 'data.type repeats the event name');
        }
        assert.match(text, /"usage":\{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":3\}/);
      }
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
