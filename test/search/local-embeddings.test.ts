/**
 * The semantic index with no endpoint and no key: a feature-extraction model downloaded through the
 * local models capability (from a loopback hub) embeds in a worker process of its own.
 */
// needs: better-sqlite3 (the index lives in SQLite with sqlite-vec; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { EventCollector } from '../support/events.js';
import type { TestEngine } from '../support/engine.js';
import { engineWithLocalModel, type LocalModelEngine } from '../support/local-model.js';
import { until } from '../support/patience.js';
import { writeTinyEmbedder } from '../support/tiny-embedder.js';

const REPO = 'acme/tiny-embed';
let local: LocalModelEngine;
let t: TestEngine;
let events: EventCollector;

before(async () => {
  local = await engineWithLocalModel({ repo: REPO, write: writeTinyEmbedder, prefix: 'index-local-', dtype: 'fp32', timeoutMs: 30_000 });
  ({ t, events } = local);
  const ws = path.join(t.home, 'workspace');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(ws, 'src/tax.ts'), 'export function computeSalesTax(amount: number): number {\n  return amount * 0.2;\n}\n');
  await writeFile(path.join(ws, 'src/greet.ts'), 'export function greetVisitor(name: string): string {\n  return `hello ${name}`;\n}\n');
});
after(async () => {
  await local?.close();
});

test('a downloaded local model embeds in its own worker process; search_code answers from it', async () => {
  const bad = await t.api('PUT', '/api/config', { providers: [], defaultProvider: null, embeddings: { local: true, model: 'not a repo' } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /\{local: true, model: "<org>\/<name>"\}/);
  const seq = events.events.at(-1)?.seq ?? 0;
  const put = await t.api('PUT', '/api/config', { providers: [], defaultProvider: null, embeddings: { local: true, model: REPO } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const done = await events.waitFor((e) => (e.kind === 'index.completed' || e.kind === 'index.failed') && e.seq > seq, 60_000);
  assert.equal(done.kind, 'index.completed', String(done.error));
  assert.equal(done.files, 2);
  // The watcher may report the files written in before() only now, on a loaded machine: one more
  // (incremental) pass, after which the index is ready again.
  await until('the index reports ready', async () => (await t.api('GET', '/api/status')).body.index.state === 'ready');
  const workers = (await import('node:child_process')).execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  assert.match(workers, /embed-worker/, 'the model runs in a worker process, not in the engine');
  const r = await t.engine.tools.call({ callId: 'c1', name: 'search_code', args: { query: 'computeSalesTax' } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
  assert.match(r.text.split('\n')[0], /^src\/tax\.ts:1 \(\d\.\d{3}\) computeSalesTax$/);
});
