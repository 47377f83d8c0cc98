/** Hub search and detail, downloads with progress, cancel, resume after a killed engine, sha mismatch, delete: against the fake hub. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { collectEvents } from '../support/events.js';
import { ENGINE_PID, SERVING, spawnServe } from '../support/process.js';
import { writeTinyModel, type TinyModel } from '../support/tiny-model.js';
import { startFakeHub, type FakeHub } from '../support/fake-hub.js';

const REPO = 'acme/tiny-chat';
const WEIGHTS = 'onnx/model_q4f16.onnx';

async function until(check: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('models: hub client and downloads', () => {
  let dir: string;
  let model: TinyModel;
  let hub: FakeHub;
  let t: TestEngine;
  const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
  before(async () => {
    dir = await tempDir('models-hub-');
    model = writeTinyModel(path.join(dir, 'src', REPO));
    hub = await startFakeHub({ [REPO]: { dir: model.dir, downloads: 1234 }, 'acme/gated-chat': { dir: model.dir, gated: true } });
    process.env.HF_ENDPOINT = hub.url;
    t = await startTestEngine();
  });
  after(async () => {
    delete process.env.HF_ENDPOINT;
    await t?.close();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('searches the hub at HF_ENDPOINT and describes a repo: files, dtypes, gated, fit', async () => {
    const found = await t.api('GET', '/api/models/hf-search?q=tiny');
    assert.equal(found.status, 200);
    assert.equal(found.body.endpoint, hub.url);
    const hit = found.body.models.find((m: any) => m.repo === REPO);
    assert.equal(hit.downloads, 1234);
    const search = hub.requests.find((r) => r.url.startsWith('/api/models?'))!;
    assert.match(search.url, /filter=onnx/);
    assert.match(search.url, /pipeline_tag=text-generation/);
    assert.equal((await t.api('GET', '/api/models/hf-search')).status, 400);

    const detail = await t.api('GET', `/api/models/hf-detail/${REPO}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.gated, false);
    assert.deepEqual(detail.body.dtypes.map((d: any) => d.dtype).sort(), ['fp32', 'q4', 'q4f16', 'q8']);
    const q4f16 = detail.body.dtypes.find((d: any) => d.dtype === 'q4f16');
    assert.equal(q4f16.bytes, model.files[WEIGHTS].size);
    assert.equal(q4f16.fits, true);
    assert.equal(detail.body.files.find((f: any) => f.name === WEIGHTS).sha256, model.files[WEIGHTS].sha256);

    const gated = await t.api('GET', '/api/models/hf-detail/acme/gated-chat');
    assert.equal(gated.status, 403);
    assert.match(gated.body.error, /hf\.token/);
    assert.equal((await t.api('GET', '/api/models/hf-detail/acme/nope')).status, 404);
  });

  it('downloads only the files the dtype needs, with progress, pinned to the commit, then lists and deletes it', async () => {
    const events = await collectEvents(t.url);
    hub.setRate(400_000);
    const started = await t.api('POST', '/api/models/download', { repo: REPO });
    hub.setRate(0);
    assert.equal(started.status, 202);
    assert.equal(started.body.ok, true);
    assert.deepEqual(started.body.files.sort(), ['config.json', 'generation_config.json', WEIGHTS, 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json'].sort());
    const done = await events.waitFor((e) => e.kind === 'model.download.completed' && e.id === started.body.id);
    assert.equal(done.bytes, done.total);
    const progress = events.events.filter((e) => e.kind === 'model.download.progress' && e.id === started.body.id);
    assert.ok(progress.length >= 1);
    assert.ok(progress.every((e) => typeof e.bytes === 'number' && e.total === done.total));
    events.close();
    const folder = path.join(t.home, 'models', 'acme', 'tiny-chat');
    assert.equal(sha(path.join(folder, WEIGHTS)), model.files[WEIGHTS].sha256);
    assert.equal(existsSync(path.join(folder, 'onnx', 'model.onnx')), false, 'other dtypes are not fetched');
    const commit = started.body.commit;
    const fileGets = hub.requests.filter((r) => r.url.includes('/resolve/'));
    assert.ok(fileGets.every((r) => r.url.includes(`/resolve/${commit}/`)), 'every file comes from the pinned commit');

    const listed = await t.api('GET', '/api/models');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.gateway);
    const local = listed.body.models.find((m: any) => m.repo === REPO);
    assert.deepEqual(local.dtypes, ['q4f16']);
    assert.equal(local.commit, commit);
    assert.equal(listed.body.downloads.find((d: any) => d.id === started.body.id).state, 'completed');

    const bad = await t.api('POST', '/api/models/download', { repo: REPO, dtype: 'fp16' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /no fp16 weights; pick one of/);

    assert.equal((await t.api('DELETE', `/api/models/${REPO}`)).status, 200);
    assert.equal(existsSync(folder), false);
    assert.equal((await t.api('DELETE', `/api/models/${REPO}`)).status, 404);
  });

  it('cancels a running download and removes its partial files', async () => {
    const events = await collectEvents(t.url);
    hub.setRate(20_000);
    const started = await t.api('POST', '/api/models/download', { repo: REPO, dtype: 'q4' });
    const partial = path.join(t.home, 'models', 'acme', 'tiny-chat', 'onnx', 'model_q4.onnx.incomplete');
    await until(() => existsSync(partial) && statSync(partial).size > 0, 'a partial file');
    assert.equal((await t.api('POST', '/api/models/download', { repo: REPO })).status, 409, 'one download per repo at a time');
    const canceled = await t.api('DELETE', `/api/models/download/${started.body.id}`);
    hub.setRate(0);
    assert.equal(canceled.status, 200);
    await events.waitFor((e) => e.kind === 'model.download.canceled' && e.id === started.body.id);
    assert.equal(existsSync(partial), false);
    assert.equal((await t.api('DELETE', `/api/models/download/${started.body.id}`)).status, 409);
    assert.equal((await t.api('DELETE', '/api/models/download/nope')).status, 404);
    events.close();
  });

  it('refuses a file whose bytes do not match the sha256 the hub declared', async () => {
    const events = await collectEvents(t.url);
    const bytes = Buffer.from(readFileSync(path.join(model.dir, 'onnx', 'model.onnx')));
    bytes[bytes.length - 1] ^= 0xff;
    hub.corrupt(REPO, 'onnx/model.onnx', bytes);
    const started = await t.api('POST', '/api/models/download', { repo: REPO, dtype: 'fp32' });
    const failed = await events.waitFor((e) => e.kind === 'model.download.failed' && e.id === started.body.id);
    assert.match(String(failed.error), /failed verification: its sha256 is/);
    const folder = path.join(t.home, 'models', 'acme', 'tiny-chat', 'onnx');
    assert.equal(existsSync(path.join(folder, 'model.onnx')), false);
    assert.equal(existsSync(path.join(folder, 'model.onnx.incomplete')), false);
    const listed = await t.api('GET', '/api/models');
    assert.equal(listed.body.models.find((m: any) => m.repo === REPO)?.dtypes.includes('fp32') ?? false, false);
    events.close();
  });

  it('resumes, not restarts, a download cut by a killed engine process', async () => {
    const home = await tempDir('models-kill-');
    hub.setRate(60_000);
    const cli = spawnServe(home, { HF_ENDPOINT: hub.url });
    try {
      const url = (await cli.waitForLine(SERVING, { timeoutMs: 30_000 })).match[1];
      const enginePid = Number((await cli.waitForLine(ENGINE_PID, { timeoutMs: 30_000 })).match[1]);
      const res = await fetch(`${url}/api/models/download`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ repo: REPO, dtype: 'q8' }) });
      assert.equal(res.status, 202);
      const partial = path.join(home, 'models', 'acme', 'tiny-chat', 'onnx', 'model_quantized.onnx.incomplete');
      await until(() => existsSync(partial) && statSync(partial).size > 50_000, 'half a file');
      cli.child.kill('SIGKILL');
      process.kill(enginePid, 'SIGKILL');
      await cli.exited;
    } finally {
      cli.kill('SIGKILL');
    }
    hub.setRate(0);
    const partial = path.join(home, 'models', 'acme', 'tiny-chat', 'onnx', 'model_quantized.onnx.incomplete');
    const kept = statSync(partial).size;
    assert.ok(kept > 0 && kept < model.files['onnx/model_quantized.onnx'].size);

    const again = await startTestEngine({ home });
    try {
      const events = await collectEvents(again.url);
      const mark = hub.requests.length;
      const started = await again.api('POST', '/api/models/download', { repo: REPO, dtype: 'q8' });
      await events.waitFor((e) => e.kind === 'model.download.completed' && e.id === started.body.id);
      events.close();
      const get = hub.requests.slice(mark).find((r) => r.url.endsWith('/model_quantized.onnx'))!;
      assert.match(String(get.headers.range), /^bytes=\d+-$/);
      assert.ok(Number(/bytes=(\d+)-/.exec(String(get.headers.range))![1]) >= kept, 'it asks only for the bytes it lacks');
      assert.equal(get.headers['if-range'], `"${model.files['onnx/model_quantized.onnx'].sha256}"`);
      assert.equal(sha(path.join(home, 'models', 'acme', 'tiny-chat', 'onnx', 'model_quantized.onnx')), model.files['onnx/model_quantized.onnx'].sha256);
    } finally {
      await again.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
