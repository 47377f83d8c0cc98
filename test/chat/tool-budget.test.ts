/**
 * Issue 33: the tool-prompt budget. With the scripted model and windows of 2 048 to 32 768 tokens,
 * the tool block of every captured request stays within a quarter of the window (counted with the
 * same cl100k BPE the engine uses), core tools first; tool_search brings tools in for the turn;
 * MCP tools cost nothing until found; the allowlist still refuses; at 32 768 nothing changes.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { startChat, type ChatHarness } from './harness.js';
import { stdio, waitForMcp } from '../mcp/support.js';

const enc = new Tiktoken(cl100k);
const tokens = (value: unknown) => enc.encode(JSON.stringify(value), [], []).length;
const names = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);
const MANY = path.join(path.dirname(fileURLToPath(import.meta.url)), '../mcp/fixtures/many-tools-server.mjs');
const CORE = ['read_file', 'edit_file', 'write_file', 'list_dir', 'grep', 'run_shell'];

describe('tool-prompt budget', () => {
  let h: ChatHarness;
  let n = 0;
  before(async () => {
    h = await startChat('openai-compatible');
    assert.equal((await h.t.api('PUT', '/api/work/eng', {})).status, 200);
  });
  after(() => h.close());

  const setWindow = async (contextWindow: number) => {
    const r = await h.t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model', contextWindow }], defaultProvider: 'scripted' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  /** One turn; answers the requests it made and its end event. */
  const turn = async (message: string, extra: Record<string, unknown> = {}) => {
    const sessionId = `b-${++n}`;
    const before = h.model.requests.length;
    const seq = h.lastSeq();
    const sent = await h.send(sessionId, message, extra);
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const end = await h.turnEnd(sessionId, seq);
    const status = h.events.events.find((e) => e.kind === 'chat.status' && e.sessionId === sessionId && e.busy === true && e.seq > seq);
    return { sessionId, end, status, requests: h.model.requests.slice(before), seq };
  };

  for (const window of [2048, 4096, 8192]) {
    it(`at ${window} tokens the tool block stays within a quarter of the window, core tools first, tool_search offered`, async () => {
      await setWindow(window);
      h.model.script({ text: 'ok' });
      const { end, status, requests } = await turn('hello');
      assert.equal(end.kind, 'run.completed', String(end.error));
      const body = requests[0].body;
      const budget = window / 4;
      assert.ok(tokens(body.tools) <= budget, `tool block ${tokens(body.tools)} tokens > ${budget}`);
      const sent = names(body);
      assert.ok(sent.includes('tool_search'), `tool_search is offered: ${sent}`);
      const core = sent.slice(0, sent.indexOf('tool_search'));
      assert.deepEqual(core, CORE.slice(0, core.length), 'the core comes first, in its order');
      if (window >= 4096) assert.deepEqual(core, CORE, 'the whole default core fits');
      // Compact form: the first sentence of the description, a parameter that names itself loses its description.
      const read = body.tools.find((t: any) => t.function.name === 'read_file')?.function;
      if (read) {
        assert.doesNotMatch(read.description, /\.\s+\S/, 'one sentence');
        assert.equal(read.parameters.properties.path.description, undefined);
      }
      const search = body.tools.find((t: any) => t.function.name === 'tool_search').function;
      assert.match(search.description, /Other tools: .*(work|workflow)/);
      assert.equal(status?.toolBudget, budget);
      assert.ok((status?.toolTokens as number) <= budget);
      assert.equal(status?.tokenizer, 'cl100k');
      assert.match(String(status?.note), /tool_search, which finds the other \d+/);
      assert.equal(status?.warning, undefined);
    });
  }

  it('at 32 768 tokens the request is the one sent without a budget: every tool in full, no tool_search', async () => {
    await setWindow(128_000);
    h.model.script({ text: 'ok' });
    const big = await turn('same words');
    await setWindow(32_768);
    h.model.script({ text: 'ok' });
    const at32k = await turn('same words');
    assert.equal(JSON.stringify(at32k.requests[0].body), JSON.stringify(big.requests[0].body), 'byte-identical request');
    const listed = (await h.t.api('GET', '/api/tools')).body as Array<{ name: string; available: boolean }>;
    const every = listed.filter((t) => t.available && !['tool_search', 'vault'].includes(t.name)).map((t) => t.name);
    assert.deepEqual(names(at32k.requests[0].body), every);
    assert.equal(at32k.status?.note, undefined);
    assert.ok(tokens(at32k.requests[0].body.tools) > 4096, 'the full block is the ~5 500 tokens of today');
  });

  it('tool_search {query: "work item"} puts work_create and work_update in the next request in full, and work_create runs', async () => {
    // 8 192: room for the five work tools the query finds, in full, beside the core.
    await setWindow(8192);
    h.model.script(
      { toolCalls: [{ name: 'tool_search', args: { query: 'work item' } }] },
      { toolCalls: [{ name: 'work_create', args: { project: 'eng', kind: 'task', title: 'Budget the tools' } }] },
      { text: 'created' },
    );
    const { end, requests, seq } = await turn('file a task');
    assert.equal(end.kind, 'run.completed', String(end.error));
    assert.equal(requests.length, 3);
    assert.ok(!names(requests[0].body).includes('work_create'), 'not sent before it was found');
    const found = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'tool_search' && e.seq > seq);
    assert.equal(found?.ok, true, String(found?.result));
    assert.match(String(found?.result), /work_create/);
    const full = (await h.t.api('GET', '/api/tools')).body as Array<{ name: string; description: string }>;
    for (const request of requests.slice(1)) {
      for (const name of ['work_create', 'work_update']) {
        const sent = request.body.tools.find((t: any) => t.function.name === name)?.function;
        assert.ok(sent, `${name} is in the request after the search`);
        assert.equal(sent.description, full.find((t) => t.name === name)!.description, `${name} is sent in full`);
        assert.ok(sent.parameters.properties.title || name === 'work_update');
      }
      assert.ok(tokens(request.body.tools) <= 2048, `still within the budget: ${tokens(request.body.tools)}`);
    }
    const created = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'work_create' && e.seq > seq);
    assert.equal(created?.ok, true, String(created?.result));
    assert.match(String(created?.result), /created ENG-\d+|created [A-Z]+-\d+/);
  });

  it('at 4 096 what tool_search finds is sent in full while it fits, the rest in short form, and stays for the turn', async () => {
    await setWindow(4096);
    h.model.script(
      { toolCalls: [{ name: 'tool_search', args: { query: 'work item' } }] },
      { toolCalls: [{ name: 'work_create', args: { project: 'eng', kind: 'task', title: 'Small window' } }] },
      { text: 'created' },
    );
    const { end, requests, seq } = await turn('file a task');
    assert.equal(end.kind, 'run.completed', String(end.error));
    for (const request of requests.slice(1)) {
      const sent = names(request.body);
      for (const name of ['work_list', 'work_get', 'work_create', 'work_update', 'work_comment']) assert.ok(sent.includes(name), `${name} stays for the turn: ${sent}`);
      assert.ok(tokens(request.body.tools) <= 1024, `within the budget: ${tokens(request.body.tools)}`);
    }
    const created = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'work_create' && e.seq > seq);
    assert.equal(created?.ok, true, String(created?.result));
  });

  it('an agent: tool_search finds only its tools, a call outside its allowlist is refused as before', async () => {
    await setWindow(2048);
    const allow = ['read_file', 'list_dir', 'glob', 'grep', 'write_file', 'edit_file', 'multi_edit', 'web_fetch', 'run_shell', 'check_diagnostics'];
    const put = await h.t.api('PUT', '/api/agents/small', { description: 'Small', system: 'You are small.', tools: allow });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    h.model.script(
      { toolCalls: [{ name: 'tool_search', args: { query: 'work item' } }] },
      { toolCalls: [{ name: 'work_create', args: { project: 'eng', kind: 'task', title: 'Not mine' } }] },
      { text: 'refused' },
    );
    const { end, requests, seq } = await turn('file a task', { agent: 'small' });
    assert.equal(end.kind, 'run.completed', String(end.error));
    const sent = names(requests[0].body);
    assert.ok(sent.includes('tool_search'));
    assert.ok(sent.every((name) => name === 'tool_search' || allow.includes(name)), `only allowed tools: ${sent}`);
    assert.equal(sent[0], 'read_file', 'the core is the allowlist, in its order');
    const search = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'tool_search' && e.seq > seq);
    assert.doesNotMatch(String(search?.result), /work_/);
    const refused = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'work_create' && e.seq > seq);
    assert.equal(refused?.ok, false);
    assert.equal(refused?.result, 'Tool "work_create" is not available to this agent (not in its allowlist)');
  });

  it('an MCP server with 60 tools costs no prompt until searched; what tool_search finds runs', async () => {
    await setWindow(4096);
    h.model.script({ text: 'ok' });
    const without = await turn('hello');
    await h.t.api('PUT', '/api/mcp', { servers: { stock: stdio(MANY) } });
    await waitForMcp(h.t, (v) => v.status?.stock?.state === 'connected' && v.status.stock.tools.length === 60, 'stock');
    h.model.script(
      { toolCalls: [{ name: 'tool_search', args: { query: 'warehouse stock cold shelf' } }] },
      { toolCalls: [{ name: 'stock_inventory_4', args: { sku: 'SKU-1' } }] },
      { text: 'counted' },
    );
    const withMcp = await turn('how many are in the cold room?', { permissionMode: 'allow' });
    assert.equal(withMcp.end.kind, 'run.completed', String(withMcp.end.error));
    const first = withMcp.requests[0].body;
    assert.ok(!names(first).some((name) => name.startsWith('stock_')), 'no MCP definition before the search');
    const extra = tokens(first.tools) - tokens(without.requests[0].body.tools);
    assert.ok(extra <= 12, `60 MCP tools cost ${extra} tokens (one "60 tools of MCP server stock" entry)`);
    assert.match(first.tools.find((t: any) => t.function.name === 'tool_search').function.description, /60 tools of MCP server stock/);
    assert.ok(names(withMcp.requests[1].body).includes('stock_inventory_4'), 'found: sent in full on the next step');
    const ran = h.events.events.find((e) => e.kind === 'tool.result' && e.tool === 'stock_inventory_4' && e.seq > withMcp.seq);
    assert.equal(ran?.ok, true, String(ran?.result));
    assert.match(String(ran?.result), /counted 4 SKU-1/);
    await h.t.api('PUT', '/api/mcp', { servers: {} });
  });

  it('a message that cannot fit the window is refused with a sentence, never sent to be cut', async () => {
    await setWindow(2048);
    const before = h.model.requests.length;
    const { end, sessionId } = await turn('word '.repeat(2000));
    assert.equal(end.kind, 'run.failed');
    assert.equal(h.model.requests.length, before, 'nothing was sent');
    const got = await h.t.api('GET', `/api/chat/${sessionId}`);
    assert.match(got.body.lastTurn.error, /would not fit the model's 2048-token context window .* start a new session or send a shorter message/);
  });

  it('toolBudgetShare is a setting with a clear refusal; a share that holds every tool sends them all', async () => {
    const bad = await h.t.api('PUT', '/api/settings', { toolBudgetShare: 2 });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /toolBudgetShare must be a number from 0.05 to 0.9/);
    const good = await h.t.api('PUT', '/api/settings', { toolBudgetShare: 0.9 });
    assert.equal(good.status, 200);
    assert.equal(good.body.toolBudgetShare, 0.9);
    await setWindow(8192);
    h.model.script({ text: 'ok' });
    const { requests, status } = await turn('hello');
    assert.equal(status?.toolBudget, Math.floor(0.9 * 8192));
    assert.ok(!names(requests[0].body).includes('tool_search'), 'everything fits: no tool_search');
    assert.ok(tokens(requests[0].body.tools) > 2048, 'every tool in full');
    await h.t.api('PUT', '/api/settings', { toolBudgetShare: 0.25 });
  });
});
