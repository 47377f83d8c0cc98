/**
 * Local models (issue 16), side by side in one run, rounds alternating:
 *   1. tokens per second of the same generation through the worker process (the engine's path: IPC,
 *      incremental decode) against the runtime called in this process directly (aim: >= 0.9x);
 *   2. added time to first token from the worker hop: median of worker TTFT minus in-process TTFT
 *      (aim: under 2 ms);
 *   3. download throughput of a repo whose weight file is 256 MB, from the fake hub (its own process):
 *      the engine's downloader (detail, then every file: sha256 verified, .incomplete, rename) against
 *      curl fetching the same detail and files with `-o` to the same disk (aim: >= 0.9x), and against
 *      `curl -o` then `openssl dgst -sha256` of the weight file (the same verified work; coreutils'
 *      sha256sum is 3x slower here, so openssl is the stronger baseline). ABBA rounds.
 *   BENCH_ONLY=download skips 1-2; BENCH_DOWNLOAD_ROUNDS sets the rounds (default 9).
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
import { alternate, describe, loadNote } from './lib/rounds.js';
import { ModelStore } from '../src/capabilities/models/store.js';
import { WorkerHost } from '../src/capabilities/models/worker-host.js';
import { Downloads } from '../src/capabilities/models/downloads.js';
import { createHubClient } from '../src/capabilities/models/hub.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const DOWNLOAD_ROUNDS = Number(process.env.BENCH_DOWNLOAD_ROUNDS ?? 9);
const DOWNLOAD_MB = 256;
const TOKENS = 400;
const REPO = 'acme/tiny-chat';
const BIG = 'acme/big-weights';
const messages = [{ role: 'user' as const, content: 'count forever' }];

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-local-'));
  if (process.env.BENCH_ONLY !== 'download') await tokens(tmp);

  // --- download throughput: engine downloader vs curl, from the fake hub in its own process
  const hubDir = path.join(tmp, 'hub');
  const bigDir = path.join(hubDir, ...BIG.split('/'));
  writeTinyModel(bigDir, { dtypes: [''] });
  mkdirSync(path.join(bigDir, 'onnx'), { recursive: true });
  writeFileSync(path.join(bigDir, 'onnx', 'model_q4f16.onnx'), randomBytes(DOWNLOAD_MB * 1024 * 1024));
  const hub = await startFixture('fake-hub.ts', { HUB_DIR: hubDir });
  process.env.HF_ENDPOINT = `http://127.0.0.1:${hub.port}`;
  const hubClient = createHubClient(async () => undefined);
  const detail = await hubClient.detail(BIG);
  // One downloader for every round, as the engine keeps one for its lifetime; the model is removed after each.
  let finish: (e?: Error) => void = () => undefined;
  const emit = (kind: string, e: Record<string, unknown>) => {
    if (kind === 'model.download.completed') finish();
    else if (kind === 'model.download.failed') finish(new Error(String(e.error)));
  };
  const dlStore = new ModelStore(path.join(tmp, 'dl'));
  const dls = new Downloads({ hub: hubClient, store: dlStore, emit: emit as any, log: () => undefined });
  const engineDl = async () => {
    const done = new Promise<void>((resolve, reject) => (finish = (e) => (e ? reject(e) : resolve())));
    const started = performance.now();
    await dls.start({ repo: BIG, dtype: 'q4f16' });
    await done;
    const ms = performance.now() - started;
    rmSync(dlStore.dir(BIG), { recursive: true, force: true });
    return ms;
  };
  // curl fetches exactly what the engine does: the detail (with blobs), then every file of the plan,
  // on one connection, each written to a file on the same disk.
  const plan = (await (async () => {
    const dls = new Downloads({ hub: hubClient, store: new ModelStore(path.join(tmp, 'plan')), emit: () => undefined, log: () => undefined });
    const p = await dls.start({ repo: BIG, dtype: 'q4f16' });
    await dls.cancel(p.id);
    return p.files;
  })());
  const curlArgs = (dir: string) => ['-sS', '-f', `${process.env.HF_ENDPOINT}/api/models/${BIG}?blobs=true`, '-o', path.join(dir, 'detail.json'),
    ...plan.flatMap((f, i) => [hubClient.fileUrl(BIG, detail.sha, f), '-o', path.join(dir, `f${i}`)])];
  const big = `f${plan.indexOf('onnx/model_q4f16.onnx')}`;
  const run = (cmd: string, args: string[]) => new Promise<void>((resolve, reject) => execFile(cmd, args, (err) => (err ? reject(err) : resolve())));
  const curl = (verify: boolean) => async () => {
    const dir = mkdtempSync(path.join(tmp, 'curl-'));
    const started = performance.now();
    await run('curl', curlArgs(dir));
    if (verify) await run('openssl', ['dgst', '-sha256', path.join(dir, big)]);
    const ms = performance.now() - started;
    rmSync(dir, { recursive: true, force: true });
    return ms;
  };
  const times = await alternate(DOWNLOAD_ROUNDS, { engine: engineDl, curl: curl(false), verified: curl(true) });
  await dls.close();
  await hub.stop();
  const mbps = (ms: number[]) => ms.map((x) => DOWNLOAD_MB / (x / 1000));
  table([
    { path: 'engine downloader (sha256 verified, .incomplete, rename)', 'MB/s': describe(mbps(times.engine), 0) },
    { path: 'curl -o (no verification)', 'MB/s': describe(mbps(times.curl), 0) },
    { path: 'curl -o && openssl dgst -sha256 (the same verified work)', 'MB/s': describe(mbps(times.verified), 0) },
  ]);
  console.log(await loadNote());
  result('model download throughput vs curl -o', 'MB/s', mbps(times.engine), mbps(times.curl), { ratioAtLeast: 0.9 });
  result('model download throughput vs curl -o && openssl sha256', 'MB/s', mbps(times.engine), mbps(times.verified), { ratioAtLeast: 0.9 });
  rmSync(tmp, { recursive: true, force: true });
}

/** 1 and 2: the same generation through the worker process and in this process. */
async function tokens(tmp: string) {
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
}

await main();
process.exit(0);
