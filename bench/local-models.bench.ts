/**
 * Local models (issue 16), side by side in one run, rounds alternating:
 *   1. tokens per second of the same generation through the worker process (the engine's path: IPC,
 *      incremental decode) against the runtime called in this process directly (aim: >= 0.9x);
 *   2. added time to first token from the worker hop: median of worker TTFT minus in-process TTFT
 *      (aim: under 2 ms);
 *   3. download throughput of a 256 MB weight file from the fake hub (its own process): the engine's
 *      downloader (sha256 on the fly, .incomplete, rename) against `curl -o` (aim: >= 0.9x).
 * The model is the test suite's tiny real model (test/support/tiny-model.ts): its steps are ~0.1 ms,
 * so any per-token overhead of the worker shows at full size; a real model hides it behind compute.
 *
 *   node --import tsx bench/local-models.bench.ts
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { env, AutoTokenizer, AutoModelForCausalLM, TextStreamer } from '@huggingface/transformers';
import { writeTinyModel } from '../test/support/tiny-model.js';
import { startFixture } from './lib/child.js';
import { fmt, median, result, table } from './lib/report.js';
import { ModelStore } from '../src/capabilities/models/store.js';
import { WorkerHost } from '../src/capabilities/models/worker-host.js';
import { Downloads } from '../src/capabilities/models/downloads.js';
import { createHubClient } from '../src/capabilities/models/hub.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const TOKENS = 400;
const REPO = 'acme/tiny-chat';
const BIG = 'acme/big-weights';
const messages = [{ role: 'user' as const, content: 'count forever' }];

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-local-'));
  const home = path.join(tmp, 'home');
  const store = new ModelStore(path.join(home, 'models'));
  const tiny = writeTinyModel(store.dir(REPO));
  await store.record(REPO, { commit: 'bench', dtype: 'q4f16', files: Object.entries(tiny.files).map(([name, f]) => ({ name, ...f })) });

  // --- in-process: the runtime directly, same streamer hook the worker uses
  env.allowRemoteModels = false;
  env.useFSCache = false;
  const tok = await AutoTokenizer.from_pretrained(tiny.dir);
  const lm = await AutoModelForCausalLM.from_pretrained(tiny.dir, { dtype: 'q4f16' });
  const direct = async () => {
    const started = performance.now();
    let first = 0;
    let n = 0;
    const prompt = tok.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true }) as string;
    const streamer = new TextStreamer(tok, { skip_prompt: true, callback_function: () => undefined, token_callback_function: () => { if (!first) first = performance.now() - started; n++; } });
    await lm.generate({ ...tok(prompt, { add_special_tokens: false }), max_new_tokens: TOKENS, do_sample: false, streamer } as any);
    return { tps: n / ((performance.now() - started) / 1000), ttft: first };
  };

  // --- the worker process, as the engine drives it
  const host = new WorkerHost({ store, emit: () => undefined, log: () => undefined, idleMs: () => 0 });
  await (await host.load(REPO)).ready;
  const viaWorker = async () => {
    const started = performance.now();
    let first = 0;
    const r = await host.generate(REPO, { messages, maxTokens: TOKENS }, () => { if (!first) first = performance.now() - started; });
    return { tps: r.outputTokens / ((performance.now() - started) / 1000), ttft: first };
  };

  for (let i = 0; i < 2; i++) { await direct(); await viaWorker(); } // warm both
  const w: { tps: number; ttft: number }[] = [];
  const d: { tps: number; ttft: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    w.push(await viaWorker());
    d.push(await direct());
  }
  await host.close();
  const added = w.map((x, i) => x.ttft - d[i].ttft);
  table([
    { path: 'worker process', 'tokens/s median': fmt(median(w.map((x) => x.tps))), 'min-max': `${fmt(Math.min(...w.map((x) => x.tps)))}-${fmt(Math.max(...w.map((x) => x.tps)))}`, 'TTFT ms median': fmt(median(w.map((x) => x.ttft)), 2) },
    { path: 'in-process runtime', 'tokens/s median': fmt(median(d.map((x) => x.tps))), 'min-max': `${fmt(Math.min(...d.map((x) => x.tps)))}-${fmt(Math.max(...d.map((x) => x.tps)))}`, 'TTFT ms median': fmt(median(d.map((x) => x.ttft)), 2) },
  ]);
  result('local model tokens/s, worker vs in-process', 'tok/s', median(w.map((x) => x.tps)), median(d.map((x) => x.tps)), { ratioAtLeast: 0.9 });
  console.log(`RESULT local model added time to first token (worker hop): engine ${fmt(median(added), 2)} ms (aim: < 2 ms) ${median(added) < 2 ? 'PASS' : 'MISS'}`);

  // --- download throughput: engine downloader vs curl, from the fake hub in its own process
  const hubDir = path.join(tmp, 'hub');
  const bigDir = path.join(hubDir, ...BIG.split('/'));
  writeTinyModel(bigDir, { dtypes: [''] });
  mkdirSync(path.join(bigDir, 'onnx'), { recursive: true });
  writeFileSync(path.join(bigDir, 'onnx', 'model_q4f16.onnx'), randomBytes(256 * 1024 * 1024));
  const hub = await startFixture('fake-hub.ts', { HUB_DIR: hubDir });
  process.env.HF_ENDPOINT = `http://127.0.0.1:${hub.port}`;
  const hubClient = createHubClient(async () => undefined);
  const detail = await hubClient.detail(BIG);
  const url = hubClient.fileUrl(BIG, detail.sha, 'onnx/model_q4f16.onnx');
  const size = detail.siblings.find((s) => s.rfilename === 'onnx/model_q4f16.onnx')!.lfs!.size;
  const engineDl = async () => {
    const dlHome = path.join(tmp, `dl-${randomBytes(4).toString('hex')}`);
    const dls = new Downloads({ hub: hubClient, store: new ModelStore(dlHome), emit: () => undefined, log: () => undefined });
    const started = performance.now();
    const done = new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        const s = dls.list()[0];
        if (s?.state === 'completed') { clearInterval(timer); resolve(); }
        else if (s && s.state !== 'running') { clearInterval(timer); reject(new Error(s.error)); }
      }, 2);
    });
    await dls.start({ repo: BIG, dtype: 'q4f16' });
    await done;
    const mbps = size / 1024 / 1024 / ((performance.now() - started) / 1000);
    rmSync(dlHome, { recursive: true, force: true });
    return mbps;
  };
  const curl = async () => {
    const out = path.join(tmp, 'curl.bin');
    const started = performance.now();
    await new Promise<void>((resolve, reject) => execFile('curl', ['-sS', '-o', out, url], (err) => (err ? reject(err) : resolve())));
    const mbps = size / 1024 / 1024 / ((performance.now() - started) / 1000);
    rmSync(out, { force: true });
    return mbps;
  };
  await engineDl(); await curl();
  const e: number[] = [];
  const c: number[] = [];
  for (let i = 0; i < 5; i++) {
    e.push(await engineDl());
    c.push(await curl());
  }
  await hub.stop();
  table([
    { path: 'engine downloader (sha256, .incomplete)', 'MB/s median': fmt(median(e)), 'min-max': `${fmt(Math.min(...e))}-${fmt(Math.max(...e))}` },
    { path: 'curl -o', 'MB/s median': fmt(median(c)), 'min-max': `${fmt(Math.min(...c))}-${fmt(Math.max(...c))}` },
  ]);
  result('model download throughput vs curl', 'MB/s', median(e), median(c), { ratioAtLeast: 0.9 });
  rmSync(tmp, { recursive: true, force: true });
}

await main();
process.exit(0);
