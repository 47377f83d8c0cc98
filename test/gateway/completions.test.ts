/** POST /v1/chat/completions and GET /v1/models through the official OpenAI SDK, against an OpenAI-compatible upstream. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { collectEvents } from '../support/events.js';
import { until } from '../support/patience.js';
import { startGateway, type GatewayHarness } from './support.js';

describe('gateway: OpenAI-compatible upstream, streamed through', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGateway();
  });
  after(async () => h?.close());

  it('lists every provider and default on /v1/models', async () => {
    const page = await h.client().models.list();
    const ids = page.data.map((m) => m.id);
    assert.deepEqual(ids.sort(), ['default', 'scripted']);
    for (const m of page.data) {
      assert.equal(m.object, 'model');
      assert.equal(typeof m.created, 'number');
      assert.equal(typeof m.owned_by, 'string');
    }
  });

  it('answers a non-streaming completion with the upstream model, key and usage; bills an auxiliary run', async () => {
    const events = await collectEvents(h.t.url);
    h.model.script({ text: 'Hello from upstream', usage: { input: 12, output: 3 } });
    const answer = await h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, seed: 7 });
    assert.equal(answer.choices[0].message.content, 'Hello from upstream');
    assert.equal(answer.usage?.prompt_tokens, 12);
    assert.equal(answer.usage?.completion_tokens, 3);
    const sent = h.model.requests.at(-1)!;
    assert.equal(sent.body.model, 'upstream-model');
    assert.equal(sent.body.temperature, 0.2);
    assert.equal(sent.body.seed, 7);
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret-4711');

    const done = await events.waitFor((e) => e.kind === 'run.completed' && e.source === 'gateway');
    events.close();
    const runs = await h.t.api('GET', '/api/runs');
    const run = runs.body.runs?.find?.((r: any) => r.runId === done.runId) ?? runs.body.find?.((r: any) => r.runId === done.runId);
    assert.ok(run, 'the completion is a run in the ledger');
    assert.equal(run.source, 'gateway');
    assert.equal(run.caller, '127.0.0.1');
    assert.equal(run.usage.input, 12);
    // Its events are in the gateway's shared run log, read back as this run's own (and only its own).
    const logged = await h.t.api('GET', `/api/runs/${done.runId}/events`);
    assert.deepEqual(logged.body.events.map((e: any) => e.kind), ['run.started', 'token.usage', 'run.completed']);
    assert.ok(logged.body.events.every((e: any) => e.runId === done.runId));
    assert.equal(logged.body.events[1].input, 12);
    const report = await h.t.api('GET', '/api/report');
    assert.match(JSON.stringify(report.body), /gateway/);
    assert.doesNotMatch(JSON.stringify(runs.body) + JSON.stringify(report.body), /sk-upstream-secret-4711/);
  });

  it('streams chunks ending with [DONE]; no usage chunk unless asked, one before [DONE] when asked', async () => {
    h.model.script({ text: 'one two three', usage: { input: 5, output: 3 } });
    const plain = await h.client().chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'count' }], stream: true });
    let text = '';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of plain) {
      chunks.push(c);
      text += c.choices[0]?.delta?.content ?? '';
    }
    assert.equal(text, 'one two three');
    assert.ok(chunks.every((c) => c.choices.length > 0), 'no usage-only chunk the caller did not ask for');
    assert.equal(h.model.requests.at(-1)!.body.stream_options?.include_usage, true, 'usage is asked upstream so the run can be billed');

    h.model.script({ text: 'four five', usage: { input: 6, output: 2 } });
    const withUsage = await h.client().chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'more' }], stream: true, stream_options: { include_usage: true } });
    const all: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of withUsage) all.push(c);
    const last = all.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 6);
    assert.equal(last.usage?.completion_tokens, 2);
    // Both streams were billed from the usage the upstream sent (asked for by the gateway, or by the caller).
    let billed: any[] = [];
    for (let i = 0; i < 100; i++) {
      billed = ((await h.t.api('GET', '/api/runs')).body.runs as any[]).filter((r) => r.source === 'gateway' && r.status === 'completed' && [5, 6].includes(r.usage.input));
      if (billed.length >= 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(billed.map((r) => r.usage.input).sort(), [5, 6]);
  });

  it('relays a long answer of many frames whole, read by read, with and without the usage chunk', async () => {
    // 300 frames of 1 000 characters arrive in many socket reads, gathered per read on the way:
    // every frame must come out whole and in order, and the usage chunk cut only when not asked for.
    const text = Array.from({ length: 300 }, (_, i) => String(i).padStart(4, '0') + 'x'.repeat(996)).join('');
    for (const include_usage of [false, true]) {
      h.model.script({ text, chunkChars: 1000, usage: { input: 900 + Number(include_usage), output: 300 } });
      const stream = await h.client().chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'long' }], stream: true, ...(include_usage ? { stream_options: { include_usage } } : {}) });
      const pieces: string[] = [];
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const c of stream) {
        if (c.choices[0]?.delta?.content) pieces.push(c.choices[0].delta.content);
        if (c.usage) usage = c.usage;
      }
      assert.equal(pieces.length, 300, 'one chunk per upstream frame');
      assert.equal(pieces.join(''), text);
      assert.equal(usage?.prompt_tokens, include_usage ? 901 : undefined);
    }
  });

  it('passes tool definitions through and returns tool calls to the caller (a full round trip)', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    h.model.script({ toolCalls: [{ name: 'get_weather', args: { city: 'Oslo' }, id: 'call_w1' }] });
    const first = await h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools, tool_choice: 'auto' });
    const call = first.choices[0].message.tool_calls?.[0];
    assert.ok(call && call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Oslo' });
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(h.model.requests.at(-1)!.body.tools, tools);

    h.model.script({ text: 'It is sunny in Oslo.' });
    const second = await h.client().chat.completions.create({
      model: 'default',
      tools,
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny"}' },
      ],
    });
    assert.equal(second.choices[0].message.content, 'It is sunny in Oslo.');
    const sent = h.model.requests.at(-1)!.body.messages;
    assert.equal(sent.at(-1).role, 'tool');
    assert.equal(sent.at(-1).tool_call_id, 'call_w1');
  });

  it('passes stop sequences and the other sampling fields through', async () => {
    h.model.script({ text: 'ok' });
    await h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'x' }], stop: ['END', '###'], max_tokens: 33, top_p: 0.9, presence_penalty: 0.1, frequency_penalty: 0.2 });
    const body = h.model.requests.at(-1)!.body;
    assert.deepEqual(body.stop, ['END', '###']);
    assert.equal(body.max_tokens, 33);
    assert.equal(body.top_p, 0.9);
    assert.equal(body.presence_penalty, 0.1);
    assert.equal(body.frequency_penalty, 0.2);
  });

  it('surfaces an upstream 429 and 500 in OpenAI error shape, the key masked, no stack', async () => {
    h.model.script({ error: 429, body: { error: { message: 'slow down', type: 'rate_limit_exceeded', code: 'rate_limit' } } });
    await assert.rejects(h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.RateLimitError);
      assert.equal(err.status, 429);
      assert.match(err.message, /slow down/);
      return true;
    });
    h.model.script({ error: 500, body: { error: { message: 'boom with key sk-upstream-secret-4711 inside' } } });
    await assert.rejects(h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.InternalServerError);
      assert.doesNotMatch(err.message, /sk-upstream-secret-4711/);
      assert.doesNotMatch(err.message, /at .*\.ts:\d+/);
      return true;
    });
  });

  it('refuses bad requests with a sentence: unknown model, no messages, bad JSON', async () => {
    await assert.rejects(h.client().chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.match(err.message, /model "nope" is not served here/);
      return true;
    });
    await assert.rejects(h.client().chat.completions.create({ model: 'default', messages: [] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match(err.message, /messages must be a non-empty array/);
      return true;
    });
    const raw = await fetch(`http://127.0.0.1:${h.port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    assert.equal(raw.status, 400);
    const body = await raw.json();
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /not valid JSON/);
  });

  it('aborts the upstream at once when the client disconnects mid-stream; the run ends stopped', async () => {
    const events = await collectEvents(h.t.url);
    h.model.script({ text: 'first words', hang: true });
    const controller = new AbortController();
    const stream = await h.client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'long' }], stream: true }, { signal: controller.signal });
    let got = '';
    try {
      for await (const c of stream) {
        got += c.choices[0]?.delta?.content ?? '';
        if (got.includes('first')) controller.abort();
      }
    } catch {
      // The SDK may end the iteration or throw its abort error: either way the caller is gone.
    }
    assert.match(got, /first/);
    await events.waitFor((e) => e.kind === 'run.stopped' && e.source === 'gateway');
    events.close();
    await until('the upstream request to be let go', () => h.model.hanging() === 0);
    assert.equal(h.model.hanging(), 0, 'the upstream connection was closed');
  });
});
