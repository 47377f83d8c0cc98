/** The one agent loop against the scripted model server, over both wire formats. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAgent, type RunAgentOptions } from '../../src/agent/index.js';
import { Bus, type EngineEvent } from '../../src/kernel/bus.js';
import { buildClient } from '../../src/providers/clients.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

async function setup(server: ModelServer, type: 'openai-compatible' | 'anthropic') {
  const bus = new Bus();
  const events: EngineEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const tools = new ToolRegistry();
  let running = 0;
  let peak = 0;
  const look = defineTool<{ path: string }>({
    name: 'look',
    group: 'test',
    readOnly: true,
    description: 'Reads a thing.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    permission: 'other',
    run: async ({ path }) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 30));
      running--;
      return `contents of ${path}`;
    },
  });
  const put = defineTool<{ path: string }>({
    name: 'put',
    group: 'test',
    description: 'Writes a thing.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    permission: 'other',
    run: async ({ path }) => `wrote ${path}`,
  });
  const secret = defineTool({ name: 'secret', group: 'test', description: 'Hidden.', parameters: { type: 'object', properties: {} }, permission: 'other', run: async () => 'should not run' });
  tools.register(look, put, secret);
  const model = await buildClient({ type, name: type, baseUrl: server.baseUrl, model: 'scripted' }, 'k');
  const controller = new AbortController();
  const ctx = { signal: controller.signal, emit: (k: string, p = {}) => void bus.emit(k, { ...p, runId: 'run-1-1' }), runId: 'run-1-1', attended: false };
  /** One loop over a one-message conversation; `opts` overrides any option. */
  const run = (opts: Partial<RunAgentOptions> = {}) => runAgent({ model, messages: [{ role: 'user', content: 'hi' }], tools, ctx, maxTurns: 3, ...opts });
  return { bus, events, tools, model, ctx, controller, run, peak: () => peak };
}

for (const type of ['openai-compatible', 'anthropic'] as const) {
  describe(`agent loop (${type})`, () => {
    let server: ModelServer;
    before(async () => {
      server = await startModelServer();
    });
    after(() => server.close());

    it('runs parallel read-only calls, a write call, a garbled call and an allowlisted refusal, then answers', async () => {
      const s = await setup(server, type);
      server.script(
        {
          toolCalls: [
            { name: 'look', args: { path: 'a' } },
            { name: 'look', args: { path: 'b' } },
            { name: 'look', args: { path: 'c' } },
            { name: 'put', args: { path: 'd' } },
            { name: 'nope', args: {} },
            { name: 'look', args: '{"path": ' },
            { name: 'secret', args: {} },
          ],
          usage: { input: 100, output: 20, cached: 30, reasoning: type === 'anthropic' ? 0 : 5 },
        },
        { text: 'All done.', usage: { input: 200, output: 10, cached: 100 } },
      );
      const before = server.requests.length;
      const deltas: string[] = [];
      const result = await s.run({
        system: 'You are a test.',
        messages: [{ role: 'user', content: 'go' }],
        allowlist: new Set(['look', 'put']),
        maxTurns: 5,
        onDelta: (t) => deltas.push(t),
      });
      assert.equal(result.status, 'completed', result.error);
      assert.equal(result.text, 'All done.');
      assert.equal(deltas.join(''), 'All done.');
      assert.equal(s.peak(), 3, 'three read-only calls ran together');
      const results = s.events.filter((e) => e.kind === 'tool.result');
      assert.equal(results.length, 7);
      // The tool results went back to the model in call order.
      const toolMsg = result.added.find((m) => m.role === 'tool')!;
      const texts = (toolMsg.content as any[]).map((p) => p.output.value as string);
      assert.deepEqual(texts.slice(0, 4), ['contents of a', 'contents of b', 'contents of c', 'wrote d']);
      assert.match(texts[4], /Unknown tool "nope"/);
      assert.match(texts[5], /Invalid arguments for tool "look"/);
      assert.equal(texts[6], 'Tool "secret" is not available to this agent (not in its allowlist)');
      // The model was shown only the allowlist.
      const req = server.requests[before];
      const shown = type === 'anthropic' ? req.body.tools.map((t: any) => t.name) : req.body.tools.map((t: any) => t.function.name);
      assert.deepEqual(shown.sort(), ['look', 'put']);
      // Usage per step, summed.
      const usage = s.events.filter((e) => e.kind === 'token.usage');
      assert.equal(usage.length, 2);
      assert.deepEqual(result.usage, { input: 300, output: 30, cached: 130, reasoning: type === 'anthropic' ? 0 : 5 });
      // The second request carried the tool results.
      assert.equal(server.requests.length, before + 2);
    });

    it('retries a 429 then succeeds, emitting model.retry', async () => {
      const s = await setup(server, type);
      server.script({ error: 429, headers: { 'retry-after-ms': '5' }, body: { error: { message: 'slow down' } } }, { text: 'fine' });
      const result = await s.run();
      assert.equal(result.status, 'completed', result.error);
      assert.equal(result.text, 'fine');
      const retry = s.events.find((e) => e.kind === 'model.retry');
      assert.ok(retry);
      assert.equal(retry.status, 429);
      assert.equal(retry.runId, 'run-1-1');
    });

    it('retries a 503 and a dropped connection, then succeeds', async () => {
      const s = await setup(server, type);
      server.script({ error: 503, headers: { 'retry-after-ms': '5' } }, { reset: true }, { text: 'third time lucky' });
      const result = await s.run();
      assert.equal(result.status, 'completed', result.error);
      assert.equal(result.text, 'third time lucky');
      const retries = s.events.filter((e) => e.kind === 'model.retry');
      assert.equal(retries.length, 2);
      assert.equal(retries[0].status, 503);
      assert.equal(retries[1].status, undefined);
    });

    it('retries an overloaded error sent inside a 200 stream; a non-transient one fails with its sentence', async () => {
      const s = await setup(server, type);
      server.script({ streamError: { message: 'Overloaded' } }, { text: 'recovered' });
      const ok = await s.run();
      assert.equal(ok.status, 'completed', ok.error);
      assert.equal(ok.text, 'recovered');
      assert.equal(s.events.filter((e) => e.kind === 'model.retry').length, 1);
      server.script({ streamError: { message: 'prompt is too long', type: 'invalid_request_error' } });
      const bad = await s.run();
      assert.equal(bad.status, 'failed');
      assert.match(bad.error!, /provider "[\w-]+" failed mid-answer \(invalid_request_error\): prompt is too long/);
      assert.equal(s.events.filter((e) => e.kind === 'model.retry').length, 1);
    });

    it('fails with the provider sentence on a 400', async () => {
      const s = await setup(server, type);
      server.script({ error: 400, body: type === 'anthropic' ? { type: 'error', error: { type: 'invalid_request_error', message: 'model not found' } } : { error: { message: 'model not found' } } });
      const result = await s.run();
      assert.equal(result.status, 'failed');
      assert.match(result.error!, /answered 400: model not found/);
      assert.equal(s.events.filter((e) => e.kind === 'model.retry').length, 0);
    });

    it('stops during streaming, keeping the partial text', async () => {
      const s = await setup(server, type);
      server.script({ text: 'partial answer', hang: true });
      let seen = '';
      const result = await s.run({
        onDelta: (t) => {
          seen += t;
          if (seen === 'partial answer') s.controller.abort();
        },
      });
      assert.equal(result.status, 'stopped');
      assert.equal(result.text, 'partial answer');
      assert.equal(result.added.length, 1);
    });

    it('stops at maxTurns', async () => {
      const s = await setup(server, type);
      server.script({ toolCalls: [{ name: 'put', args: { path: 'x' } }] }, { toolCalls: [{ name: 'put', args: { path: 'y' } }] });
      const result = await s.run({ maxTurns: 2 });
      assert.equal(result.status, 'max_turns');
      assert.equal(result.turns, 2);
    });

    it('streams reasoning and passes generation settings through to the provider', async () => {
      const s = await setup(server, type);
      server.script({ reasoning: 'thinking hard', text: 'answer' });
      let reasoning = '';
      const result = await s.run({
        maxTurns: 2,
        settings: { temperature: 0.3, topP: 0.9, maxTokens: 321, seed: 7, effort: 'high', extraBody: { custom_flag: true } },
        onReasoning: (t) => (reasoning += t),
      });
      assert.equal(result.status, 'completed', result.error);
      assert.equal(reasoning, 'thinking hard');
      const body = server.requests.at(-1)!.body;
      assert.equal(body.custom_flag, true);
      assert.equal(body.max_tokens, 321);
      if (type === 'openai-compatible') {
        assert.equal(body.temperature, 0.3);
        assert.equal(body.top_p, 0.9);
        assert.equal(body.seed, 7);
        assert.equal(body.reasoning_effort, 'high');
      }
    });

    it('compacts older turns when the context passes the fraction', async () => {
      const s = await setup(server, type);
      const long = 'word '.repeat(400);
      const history = [
        { role: 'user' as const, content: `first ${long}` },
        { role: 'assistant' as const, content: [{ type: 'text' as const, text: `answer ${long}` }] },
        { role: 'user' as const, content: `second ${long}` },
        { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'ok' }] },
        { role: 'user' as const, content: 'third' },
      ];
      server.script({ text: 'SUMMARY of first' }, { text: 'answered third' });
      const before = server.requests.length;
      let info: any;
      const result = await s.run({
        messages: history,
        compaction: { fraction: 0.5, window: 1000 },
        onCompacted: (i) => (info = i),
      });
      assert.equal(result.status, 'completed', result.error);
      assert.ok(info);
      assert.equal(info.replaced, 2);
      assert.match(JSON.stringify(result.messages[0]), /SUMMARY of first/);
      assert.equal(result.messages.length, 5 - 2 + 1 + 1);
      const last = server.requests.at(-1)!;
      assert.doesNotMatch(JSON.stringify(last.body), /first word/);
      assert.match(JSON.stringify(last.body), /SUMMARY of first/);
      assert.equal(server.requests.length, before + 2);
    });
  });
}
