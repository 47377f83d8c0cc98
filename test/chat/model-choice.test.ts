/**
 * Issue 40: a chat session's own provider and model. A message naming them picks them for the
 * session; later messages run on the pick (across a restart), PUT /api/chat/model changes it, and a
 * bad pick is a 400 sentence before anything runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startChat, type ChatHarness } from './harness.js';

describe('a session picks its provider and model', () => {
  let home: string;
  let h: ChatHarness;
  const configure = async () => {
    const providers = [
      { type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model' },
      { type: 'openai-compatible', name: 'second', baseUrl: h.model.baseUrl, model: 'second-model' },
    ];
    assert.equal((await h.t.api('PUT', '/api/config', { providers, defaultProvider: 'scripted' })).status, 200);
  };
  /** Sends one message and answers the model id the provider was asked for. */
  const turn = async (sessionId: string, extra: Record<string, unknown> = {}) => {
    h.model.script({ text: 'ok' });
    const seq = h.lastSeq();
    const sent = await h.send(sessionId, 'hello', extra);
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const end = await h.turnEnd(sessionId, seq);
    assert.equal(end.kind, 'run.completed', String(end.error));
    return h.model.requests.at(-1)!.body.model as string;
  };

  before(async () => {
    home = await tempDir();
    h = await startChat('openai-compatible', { home });
    await configure();
  });
  after(() => h?.close());

  it('a message naming a provider and model picks them for the session; the next ones run on the pick', async () => {
    assert.equal(await turn('pick', { provider: 'second', model: 'big-model' }), 'big-model');
    assert.equal(await turn('pick'), 'big-model', 'the session remembers its pick');
    assert.deepEqual((await h.t.api('GET', '/api/chat/pick')).body.modelChoice, { provider: 'second', model: 'big-model' });
    assert.equal(await turn('other'), 'scripted-model', 'another session runs on the default');
    assert.equal((await h.t.api('GET', '/api/chat/other')).body.modelChoice, undefined);
  });

  it('PUT /api/chat/model changes the pick; a provider alone runs its own model; null goes back to the default', async () => {
    const put = await h.t.api('PUT', '/api/chat/model', { sessionId: 'pick', provider: 'second' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body.modelChoice, { provider: 'second' });
    assert.equal(await turn('pick'), 'second-model');
    assert.equal((await h.t.api('PUT', '/api/chat/model', { sessionId: 'pick', provider: null, model: null })).status, 200);
    assert.equal(await turn('pick'), 'scripted-model');
    assert.equal((await h.t.api('PUT', '/api/chat/model', { sessionId: 'pick', provider: 'second', model: 'kept-model' })).status, 200);
  });

  it('refuses a bad pick with a sentence, before anything runs', async () => {
    const requests = h.model.requests.length;
    const unknown = await h.t.api('PUT', '/api/chat/model', { sessionId: 'pick', provider: 'nope' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error, 'unknown provider "nope"; configured providers: scripted, second');
    const spaced = await h.t.api('PUT', '/api/chat/model', { sessionId: 'pick', model: 'two words' });
    assert.equal(spaced.status, 400);
    assert.match(spaced.body.error, /^model must be a model id the provider serves, up to 200 characters without spaces/);
    const post = await h.send('pick', 'hi', { model: 'bad\nid' });
    assert.equal(post.status, 400);
    assert.match(post.body.error, /^model must be a model id/);
    const postUnknown = await h.send('fresh', 'hi', { provider: 'nope' });
    assert.equal(postUnknown.status, 400);
    assert.match(postUnknown.body.error, /unknown provider "nope"/);
    const noSession = await h.t.api('PUT', '/api/chat/model', { sessionId: 'never-made', provider: 'second' });
    assert.equal(noSession.status, 404);
    assert.equal(h.model.requests.length, requests, 'nothing reached a model');
    assert.deepEqual((await h.t.api('GET', '/api/chat/pick')).body.modelChoice, { provider: 'second', model: 'kept-model' }, 'a refused pick changes nothing');
  });

  it('the pick survives a restart', async () => {
    await h.close();
    h = await startChat('openai-compatible', { home });
    await configure();
    assert.equal(await turn('pick'), 'kept-model');
  });
});
