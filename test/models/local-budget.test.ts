/**
 * Issue 33: a small local model through the real worker. With a 2 048-token window the tool
 * definitions are counted by the model's own tokenizer (in the worker) and kept within a quarter of
 * the window, and the whole request fits the window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestEngine } from '../support/engine.js';
import type { EventCollector } from '../support/events.js';
import { engineWithLocalModel, type LocalModelEngine } from '../support/local-model.js';
import { writeTinyModel, TINY_REPLY } from '../support/tiny-model.js';

const REPO = 'acme/tiny-budget';

describe('models: a 2 048-token local model gets tools within its budget', () => {
  let local: LocalModelEngine;
  let t: TestEngine;
  let events: EventCollector;
  before(async () => {
    local = await engineWithLocalModel({ repo: REPO, write: writeTinyModel, prefix: 'models-budget-' });
    ({ t, events } = local);
    const put = await t.api('PUT', '/api/config', { providers: [{ type: 'local', name: 'tiny', model: REPO, contextWindow: 2048 }], defaultProvider: 'tiny' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  });
  after(async () => {
    await local?.close();
  });

  it('counts the tools with the worker tokenizer, sends at most 512 tokens of them, and the request fits 2 048', async () => {
    const seq = events.events.at(-1)?.seq ?? 0;
    const res = await t.api('POST', '/api/chat', { sessionId: 'tiny-1', message: 'hello' });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const status = await events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === 'tiny-1' && e.busy === true && e.seq > seq, 60_000);
    const end = await events.waitFor((e) => e.runId === status.runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 60_000);
    assert.equal(end.kind, 'run.completed', JSON.stringify(end));
    assert.equal(status.tokenizer, 'model', 'counted by the local model worker');
    assert.equal(status.toolBudget, 512);
    const toolTokens = Number(status.toolTokens);
    assert.ok(toolTokens > 0 && toolTokens <= 512, `tool tokens ${toolTokens}`);
    assert.match(String(status.note), /tool_search, which finds the other \d+/);
    const usage = events.events.find((e) => e.runId === status.runId && e.kind === 'token.usage')!;
    // The worker's own prompt count (system + message; this model's template leaves tools out) plus the tools it was handed.
    assert.ok(Number(usage.input) + toolTokens < 2048, `request ${usage.input} + ${toolTokens} tokens`);
    const reply = (await t.api('GET', '/api/chat/tiny-1')).body.messages.at(-1);
    assert.equal(reply.text, TINY_REPLY);
  });
});
