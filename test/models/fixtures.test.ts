/** The test suite's own tiny real model loads in @huggingface/transformers from local files only; the fake hub speaks the hub's API. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { env, AutoTokenizer, AutoModelForCausalLM } from '@huggingface/transformers';
import { tempDir } from '../support/engine.js';
import { writeTinyModel, TINY_REPLY, TINY_TOOL_CALL, type TinyModel } from '../support/tiny-model.js';
import { startFakeHub, type FakeHub } from '../support/fake-hub.js';

describe('models: the generated tiny model and the fake hub', () => {
  let dir: string;
  let model: TinyModel;
  let hub: FakeHub;
  before(async () => {
    dir = await tempDir('tiny-model-');
    model = writeTinyModel(path.join(dir, 'acme', 'tiny-chat'));
    hub = await startFakeHub({ 'acme/tiny-chat': { dir: model.dir } });
  });
  after(async () => {
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads from local files only and generates its deterministic replies', async () => {
    env.allowRemoteModels = false;
    env.useFSCache = false;
    const tok = await AutoTokenizer.from_pretrained(model.dir);
    const lm = await AutoModelForCausalLM.from_pretrained(model.dir, { dtype: 'q4f16' });
    const run = async (content: string, tools?: unknown[]) => {
      const prompt = tok.apply_chat_template([{ role: 'user', content }], { tokenize: false, add_generation_prompt: true, ...(tools ? { tools } : {}) }) as string;
      const inputs = tok(prompt);
      const out = (await lm.generate({ ...inputs, max_new_tokens: 40 })) as any;
      const ids = Array.from(out[0].data as BigInt64Array).slice(inputs.input_ids.dims[1]).map(Number);
      return { text: tok.decode(ids, { skip_special_tokens: true }), ids };
    };
    const plain = await run('hello');
    assert.equal(plain.text, TINY_REPLY);
    assert.equal(plain.ids.at(-1), model.eosId, 'the reply ends with the end token');
    const forever = await run('count forever');
    assert.equal(forever.ids.length, 40, 'the endless reply runs to max_new_tokens');
    assert.match(forever.text, /^(0123456789)+/);
    const tool = await run('read my notes', [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }]);
    assert.equal(tool.text, TINY_TOOL_CALL);
    await lm.dispose();
  });

  it('serves search, detail with blobs, and resolve with Range, ETag and linked headers', async () => {
    const list = await (await fetch(`${hub.url}/api/models?search=tiny&filter=onnx&limit=5`)).json();
    assert.deepEqual(list.map((m: any) => m.id), ['acme/tiny-chat']);
    const detail = await (await fetch(`${hub.url}/api/models/acme/tiny-chat?blobs=true`)).json();
    const onnx = detail.siblings.find((s: any) => s.rfilename === 'onnx/model_q4f16.onnx');
    assert.equal(onnx.lfs.sha256, model.files['onnx/model_q4f16.onnx'].sha256);
    assert.equal(onnx.size, model.files['onnx/model_q4f16.onnx'].size);
    const full = await fetch(`${hub.url}/acme/tiny-chat/resolve/${detail.sha}/onnx/model_q4f16.onnx`);
    assert.equal(full.headers.get('x-repo-commit'), detail.sha);
    assert.equal(full.headers.get('x-linked-size'), String(onnx.size));
    const etag = full.headers.get('etag')!;
    assert.equal(full.headers.get('x-linked-etag'), etag);
    const bytes = Buffer.from(await full.arrayBuffer());
    const part = await fetch(`${hub.url}/acme/tiny-chat/resolve/main/onnx/model_q4f16.onnx`, { headers: { range: 'bytes=100-', 'if-range': etag } });
    assert.equal(part.status, 206);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100));
    const stale = await fetch(`${hub.url}/acme/tiny-chat/resolve/main/onnx/model_q4f16.onnx`, { headers: { range: 'bytes=100-', 'if-range': '"other"' } });
    assert.equal(stale.status, 200, 'a stale If-Range gets the whole file');
    await stale.arrayBuffer();
  });
});
