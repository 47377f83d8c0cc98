/** Issue 10 item 12 and issue 33: the context window is learned from the server, and the tools a turn sends fit a quarter of it. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';

describe('context window', () => {
  let h: ChatHarness;
  before(async () => {
    h = await startChat('openai-compatible');
  });
  after(() => h.close());

  /** Points the provider at the same server again (a config change drops the cached client, so the window is asked anew). */
  const reconfigure = async (extra: Record<string, unknown> = {}) => {
    const r = await h.t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model', ...extra }], defaultProvider: 'scripted' });
    assert.equal(r.status, 200);
  };

  const turn = async (sessionId: string) => {
    h.model.script({ text: 'ok' });
    const seq = h.lastSeq();
    assert.equal((await h.send(sessionId, 'hi')).status, 202);
    const busy = await h.events.waitFor((e) => e.kind === 'chat.status' && e.sessionId === sessionId && e.busy === true && e.seq > seq);
    await h.turnEnd(sessionId, seq);
    return busy;
  };

  for (const [flavour, tokens] of [['ollama', 4096], ['lmstudio', 6000], ['llama.cpp', 2048]] as const) {
    it(`learns ${tokens} tokens from a ${flavour} server and keeps the tool definitions within a quarter of it`, async () => {
      h.model.advertise(flavour, tokens);
      await reconfigure();
      const busy = await turn(`s-${flavour.replace('.', '')}`);
      assert.equal(busy.contextWindow, tokens);
      assert.equal(busy.contextWindowSource, 'server');
      assert.ok((busy.toolTokens as number) <= Math.floor(tokens / 4), `toolTokens ${busy.toolTokens}`);
      assert.equal(busy.toolBudget, Math.floor(tokens / 4));
      assert.match(busy.note as string, new RegExp(`more than the ${Math.floor(tokens / 4)}-token budget \\(toolBudgetShare of this model's ${tokens}-token window\\); \\d+ are sent in short form with tool_search`));
      assert.equal(busy.warning, undefined);
      const full = await h.t.api('GET', `/api/chat/s-${flavour.replace('.', '')}?view=full`);
      assert.equal(full.body.window.contextWindow, tokens);
      assert.equal(full.body.window.note, busy.note);
    });
  }

  it('a large window learned from the server carries no warning; a configured window is not asked', async () => {
    h.model.advertise('ollama', 131072);
    await reconfigure();
    const big = await turn('s-big');
    assert.equal(big.contextWindow, 131072);
    assert.equal(big.warning, undefined);
    assert.equal(big.note, undefined);

    h.model.advertise('ollama', 1024);
    h.model.infoRequests.length = 0;
    await reconfigure({ contextWindow: 200000 });
    const set = await turn('s-set');
    assert.equal(set.contextWindow, 200000);
    assert.equal(set.contextWindowSource, 'config');
    assert.deepEqual(h.model.infoRequests, []);
  });

  it('a server that tells nothing keeps the default window', async () => {
    h.model.advertise(undefined);
    await reconfigure();
    const plain = await turn('s-plain');
    assert.equal(plain.contextWindowSource, 'default');
    assert.equal(plain.contextWindow, 128000);
  });
});
