/** An Anthropic upstream behind the gateway: requests and answers translated to and from chat completions. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startGateway, type GatewayHarness } from './support.js';

describe('gateway: Anthropic upstream, translated', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGateway('anthropic');
  });
  after(async () => h?.close());

  it('answers a completion with text, usage and the system prompt moved where Anthropic wants it', async () => {
    h.model.script({ text: 'Bonjour', usage: { input: 20, output: 2 } });
    const answer = await h.client().chat.completions.create({
      model: 'default',
      max_tokens: 50,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    assert.equal(answer.object, 'chat.completion');
    assert.equal(answer.choices[0].message.content, 'Bonjour');
    assert.equal(answer.choices[0].finish_reason, 'stop');
    assert.equal(answer.usage?.prompt_tokens, 20);
    assert.equal(answer.usage?.completion_tokens, 2);
    const sent = h.model.requests.at(-1)!;
    assert.equal(sent.format, 'anthropic');
    assert.equal(sent.body.model, 'upstream-model');
    assert.equal(sent.body.max_tokens, 50);
    assert.deepEqual(sent.body.stop_sequences, ['END']);
    assert.match(JSON.stringify(sent.body.system), /Answer in French/);
    assert.equal(sent.headers['x-api-key'], 'sk-upstream-secret-4711');
  });

  it('streams chat.completion.chunk frames ending with [DONE], with the usage chunk when asked', async () => {
    h.model.script({ text: 'alpha beta gamma', usage: { input: 7, output: 3 } });
    const stream = await h.client().chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'go' }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'alpha beta gamma');
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk'));
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 7);
    assert.equal(chunks.at(-2)!.choices[0].finish_reason, 'stop');
  });

  it('returns tool calls to the caller and takes the tool result back (execution stays with the caller)', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
    h.model.script({ toolCalls: [{ name: 'lookup', args: { q: 'tides' }, id: 'toolu_1' }] });
    const stream = await h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'tides?' }], tools, stream: true });
    const calls: any[] = [];
    let finish: string | null = null;
    for await (const c of stream) {
      calls.push(...(c.choices[0]?.delta?.tool_calls ?? []));
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(calls[0].function.name, 'lookup');
    assert.deepEqual(JSON.parse(calls[0].function.arguments), { q: 'tides' });
    assert.equal(h.model.requests.at(-1)!.body.tools[0].name, 'lookup');

    h.model.script({ text: 'High tide at noon.' });
    const answer = await h.client().chat.completions.create({
      model: 'default',
      tools,
      messages: [
        { role: 'user', content: 'tides?' },
        { role: 'assistant', content: null, tool_calls: [{ id: calls[0].id, type: 'function', function: { name: 'lookup', arguments: calls[0].function.arguments } }] },
        { role: 'tool', tool_call_id: calls[0].id, content: 'noon' },
      ],
    });
    assert.equal(answer.choices[0].message.content, 'High tide at noon.');
    const sent = JSON.stringify(h.model.requests.at(-1)!.body.messages);
    assert.match(sent, /tool_result/);
    assert.match(sent, /noon/);
  });

  it('flattens content parts to text plus images', async () => {
    h.model.script({ text: 'a red pixel' });
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await h.client().chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } }] }],
    });
    const content = h.model.requests.at(-1)!.body.messages[0].content;
    assert.ok(content.some((p: any) => p.type === 'text' && p.text === 'What is this?'));
    assert.ok(content.some((p: any) => p.type === 'image' && p.source?.data === pixel));
    await assert.rejects(
      h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }),
      (err: unknown) => err instanceof OpenAI.BadRequestError && /input_audio/.test(err.message),
    );
  });

  it('maps an upstream refusal to its status in OpenAI shape', async () => {
    h.model.script({ error: 429 });
    await assert.rejects(h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => err instanceof OpenAI.RateLimitError);
  });
});
