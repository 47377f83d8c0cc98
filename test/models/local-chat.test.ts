/** Load a downloaded model into its worker process, chat with it (provider `local`, no key) through /api/chat and the gateway, stop, kill, unload. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { writeTinyModel, TINY_REPLY } from '../support/tiny-model.js';
import { startFakeHub, type FakeHub } from '../support/fake-hub.js';

const REPO = 'acme/tiny-chat';
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('models: the worker process and the local provider', () => {
  let dir: string;
  let hub: FakeHub;
  let t: TestEngine;
  let events: EventCollector;
  const turn = async (sessionId: string, message: string) => {
    const seq = events.events.at(-1)?.seq ?? 0;
    const res = await t.api('POST', '/api/chat', { sessionId, message });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const started = await events.waitFor((e) => e.kind === 'run.started' && e.sessionId === sessionId && e.seq > seq);
    return { runId: started.runId!, end: () => events.waitFor((e) => e.runId === started.runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 30_000) };
  };
  before(async () => {
    dir = await tempDir('models-local-');
    const model = writeTinyModel(path.join(dir, 'src', REPO));
    // A repo whose q4f16 file is not a model (its digest matches: the hub serves what it has) but whose fp32 is.
    const broken = writeTinyModel(path.join(dir, 'src', 'acme', 'broken-q4f16'), { dtypes: ['', '_q4f16'] });
    await writeFile(path.join(broken.dir, 'onnx', 'model_q4f16.onnx'), 'not an onnx graph');
    hub = await startFakeHub({ [REPO]: { dir: model.dir }, 'acme/broken-q4f16': { dir: broken.dir }, 'acme/gated': { dir: model.dir, gated: true } });
    process.env.HF_ENDPOINT = hub.url;
    // What the worker may and may not inherit from the engine's environment (checked in /proc below).
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-test-worker-env-0123456789abcdef', WORKBENCH_UNLISTED: 'x', ORT_HUB_TOKEN: 'plain', LC_WORKBENCH_TEST: 'kept' });
    t = await startTestEngine();
    events = await collectEvents(t.url);
    const dl = await t.api('POST', '/api/models/download', { repo: REPO });
    await events.waitFor((e) => e.kind === 'model.download.completed' && e.id === dl.body.id);
    const put = await t.api('PUT', '/api/config', { providers: [{ type: 'local', name: 'tiny', model: REPO }], defaultProvider: 'tiny' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
  });
  after(async () => {
    delete process.env.HF_ENDPOINT;
    for (const k of ['OPENAI_API_KEY', 'WORKBENCH_UNLISTED', 'ORT_HUB_TOKEN', 'LC_WORKBENCH_TEST']) delete process.env[k];
    events?.close();
    await t?.close();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads into a forked worker process (never the engine process) and reports it', async () => {
    assert.equal((await t.api('POST', '/api/models/load', { repo: 'acme/missing' })).status, 404);
    const res = await t.api('POST', '/api/models/load', { repo: REPO });
    assert.equal(res.status, 202);
    assert.equal((await events.waitFor((e) => e.kind === 'model.loading' && e.repo === REPO)).repo, REPO);
    const loaded = await events.waitFor((e) => e.kind === 'model.loaded' && e.repo === REPO, 30_000);
    assert.equal(loaded.dtype, 'q4f16');
    assert.notEqual(loaded.pid, process.pid);
    assert.ok(alive(Number(loaded.pid)));
    const status = await t.api('GET', '/api/models');
    assert.equal(status.body.loaded.repo, REPO);
    assert.equal(status.body.loaded.state, 'loaded');
    const resources = await t.api('GET', `/api/models/resources?repo=${REPO}`);
    assert.equal(resources.status, 200);
    assert.ok(resources.body.memory.totalBytes > 0);
    assert.ok(resources.body.cpu.cores >= 1);
    assert.equal(resources.body.model.fits, true);
  });

  it('gives the worker only the variables the runtime needs: no provider key, token or unlisted variable', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const pid = Number((await t.api('GET', '/api/models')).body.loaded.pid);
    const env = new Map((await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    assert.equal(env.get('PATH'), process.env.PATH);
    assert.equal(env.get('LC_WORKBENCH_TEST'), 'kept');
    for (const k of ['OPENAI_API_KEY', 'WORKBENCH_UNLISTED', 'ORT_HUB_TOKEN', 'HF_ENDPOINT']) assert.equal(env.has(k), false, `${k} reached the worker`);
    assert.deepEqual([...env.keys()].filter((k) => !/^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|TZ|TMPDIR|TMP|TEMP|LD_LIBRARY_PATH|ENGINE_MODEL_WORKER|NODE_CHANNEL_FD|NODE_CHANNEL_SERIALIZATION_MODE|(LC|ORT|ONNXRUNTIME|OMP|KMP|MKL|OPENBLAS|CUDA)_.*)$/.test(k)), []);
  });

  it('chats through /api/chat with provider local and no key: streamed token by token, real token usage', async () => {
    const { runId, end } = await turn('local-1', 'hello');
    const done = await end();
    assert.equal(done.kind, 'run.completed', JSON.stringify(done));
    const deltas = events.events.filter((e) => e.runId === runId && e.kind === 'chat.delta').map((e) => String(e.text));
    assert.equal(deltas.join(''), TINY_REPLY);
    assert.ok(deltas.length >= TINY_REPLY.length / 2, `streamed in ${deltas.length} pieces`);
    const usage = events.events.find((e) => e.runId === runId && e.kind === 'token.usage')!;
    assert.equal(usage.provider, 'tiny');
    assert.equal(usage.output, TINY_REPLY.length + 1, 'one token per letter plus the end token');
    assert.ok(Number(usage.input) > 0);
    const stats = await events.waitFor((e) => e.kind === 'model.stats' && e.repo === REPO);
    assert.ok(Number(stats.tokensPerSecond) > 0);
  });

  it('answers through the gateway with the local model, listed on /v1/models as engine-local', async () => {
    const port = (await t.api('GET', '/api/models')).body.gateway.port;
    const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 20_000 });
    const list = await client.models.list();
    const local = list.data.find((m) => m.id === REPO);
    assert.ok(local, `listed: ${list.data.map((m) => m.id).join(', ')}`);
    assert.equal(local.owned_by, 'engine-local');
    const answer = await client.chat.completions.create({ model: REPO, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(answer.choices[0].message.content, TINY_REPLY);
    assert.equal(answer.usage?.completion_tokens, TINY_REPLY.length + 1);
    const stream = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    let chunks = 0;
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      chunks++;
    }
    assert.equal(text, TINY_REPLY);
    assert.ok(chunks > 10);
  });

  it('lets an agent call a tool: the Hermes <tool_call> block becomes a real tool call', async () => {
    await writeFile(path.join(t.home, 'workspace', 'notes.txt'), 'remember the milk\n');
    const { runId, end } = await turn('local-tool', 'read my notes');
    const done = await end();
    assert.equal(done.kind, 'run.completed', JSON.stringify(done));
    const call = events.events.find((e) => e.runId === runId && e.kind === 'tool.call')!;
    assert.equal(call.tool, 'read_file');
    assert.deepEqual(call.args, { path: 'notes.txt' });
    const result = events.events.find((e) => e.runId === runId && e.kind === 'tool.result')!;
    assert.match(JSON.stringify(result), /remember the milk/);
    const reply = events.events.filter((e) => e.runId === runId && e.kind === 'chat.message').map((e) => e.message as any).at(-1);
    assert.equal(reply.text, TINY_REPLY, 'after the tool result the model answers');
    assert.doesNotMatch(events.events.filter((e) => e.runId === runId && e.kind === 'chat.delta').map((e) => String(e.text)).join(''), /tool_call/);
  });

  it('stops mid-generation between tokens', async () => {
    const { runId, end } = await turn('local-stop', 'count forever');
    await events.waitFor((e) => e.runId === runId && e.kind === 'chat.delta');
    assert.equal((await t.api('POST', '/api/chat/stop', { sessionId: 'local-stop' })).status, 202);
    const done = await end();
    assert.equal(done.kind, 'run.stopped');
    const text = events.events.filter((e) => e.runId === runId && e.kind === 'chat.delta').map((e) => String(e.text)).join('');
    assert.match(text, /^(0123456789)*[0-9]*$/);
    // The worker is free again: the next turn answers.
    const next = await turn('local-after-stop', 'hello');
    assert.equal((await next.end()).kind, 'run.completed');
  });

  it('reports a worker killed mid-generation and loads again on the next request', async () => {
    const pid = Number((await t.api('GET', '/api/models')).body.loaded.pid);
    const { runId, end } = await turn('local-kill', 'count forever');
    await events.waitFor((e) => e.runId === runId && e.kind === 'chat.delta');
    process.kill(pid, 'SIGKILL');
    const crashed = await events.waitFor((e) => e.kind === 'model.worker.crashed' && e.pid === pid);
    assert.equal(crashed.signal, 'SIGKILL');
    const done = await end();
    assert.equal(done.kind, 'run.failed');
    const seq = events.events.at(-1)!.seq;
    const next = await turn('local-after-kill', 'hello');
    assert.equal((await next.end()).kind, 'run.completed');
    const reloaded = events.events.find((e) => e.kind === 'model.loaded' && e.seq > seq)!;
    assert.notEqual(reloaded.pid, pid);
  });

  it('unloads: the worker process ends', async () => {
    const pid = Number((await t.api('GET', '/api/models')).body.loaded.pid);
    const res = await t.api('POST', '/api/models/unload');
    assert.equal(res.status, 200);
    assert.equal(res.body.unloaded, true);
    await events.waitFor((e) => e.kind === 'model.unloaded' && e.repo === REPO);
    assert.equal(alive(pid), false);
    assert.equal((await t.api('GET', '/api/models')).body.loaded, null);
    assert.equal((await t.api('POST', '/api/models/unload')).body.unloaded, false);
  });

  it('falls back to the next dtype when a session fails to load, and says so', async () => {
    for (const dtype of ['q4f16', 'fp32']) {
      const dl = await t.api('POST', '/api/models/download', { repo: 'acme/broken-q4f16', dtype });
      assert.equal(dl.status, 202);
      await events.waitFor((e) => e.kind === 'model.download.completed' && e.id === dl.body.id);
    }
    assert.equal((await t.api('POST', '/api/models/load', { repo: 'acme/broken-q4f16' })).status, 202);
    const loaded = await events.waitFor((e) => e.kind === 'model.loaded' && e.repo === 'acme/broken-q4f16', 30_000);
    assert.equal(loaded.dtype, 'fp32');
    assert.match(String(loaded.fellBack), /fell back to fp32: q4f16 failed/);
    assert.equal((await t.api('POST', '/api/models/unload')).body.unloaded, true);
  });

  it('sends the hf.token secret to the hub for a gated repo', async () => {
    const gated = await t.api('GET', '/api/models/hf-detail/acme/gated');
    assert.equal(gated.status, 403);
    assert.equal((await t.api('POST', '/api/secrets', { name: 'hf.token', value: hub.token })).status < 300, true);
    const ok = await t.api('GET', '/api/models/hf-detail/acme/gated');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.gated, true);
    assert.doesNotMatch(JSON.stringify(ok.body), new RegExp(hub.token));
  });
});
