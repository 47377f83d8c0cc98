/**
 * The semantic index behind search_code, over a real engine and a deterministic embeddings server:
 * a paraphrase finds the planted function, an identifier finds its definition, an edit re-embeds
 * only its changed chunks, a deletion drops its chunks, reindex rebuilds from nothing, and without
 * embeddings the tool and the route say so.
 */
// needs: better-sqlite3 (the index lives in SQLite with sqlite-vec; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { until } from '../support/patience.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { startFakeEmbeddings, type FakeEmbeddings } from '../support/fake-embeddings.js';

let t: TestEngine;
let fake: FakeEmbeddings;
let events: EventCollector;
let requests = 0;
let ws: string;

const FILES: Record<string, string> = {
  'src/upload.ts': [
    'import { send } from "./net.js";',
    '',
    '/** Sends every queued file once more after a pause, doubling the pause each time. */',
    'export async function retryFailedUploads(queue: string[], tries = 3): Promise<void> {',
    '  let delayMs = 100;',
    '  for (let attempt = 0; attempt < tries; attempt++) {',
    '    const left = await send(queue);',
    '    if (!left.length) return;',
    '    await new Promise((r) => setTimeout(r, delayMs));',
    '    delayMs *= 2;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/render.ts': ['export function renderTable(rows: string[][]): string {', '  return rows.map((r) => r.join(" | ")).join("\\n");', '}', '', 'export function parseColor(hex: string): number[] {', '  return [0, 2, 4].map((i) => parseInt(hex.slice(i + 1, i + 3), 16));', '}', ''].join('\n'),
  'src/uses.ts': ['import { parseColor } from "./render.js";', '', 'export const red = parseColor("#ff0000");', 'export const blue = parseColor("#0000ff");', ''].join('\n'),
  'notes/guide.md': '# Guide\n\nHow the colour of a table row is chosen.\n',
  'node_modules/dep/index.js': 'export function retryFailedUploads() {}\n',
};

const searchCode = (query: string) => t.engine.tools.call({ callId: `c-${Math.random()}`, name: 'search_code', args: { query } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });

before(async () => {
  fake = await startFakeEmbeddings();
  t = await startTestEngine({ index: { onEmbedRequest: () => void requests++ } });
  ws = path.join(t.home, 'workspace');
  await writeFile(path.join(ws, '.gitignore'), 'node_modules\n');
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
  await fake.close();
});

const built = (after: number) => events.waitFor((e) => e.kind === 'index.completed' && e.seq > after, 20_000);
const lastSeq = () => events.events.at(-1)?.seq ?? 0;

test('without embeddings: search_code says so, reindex is refused with the sentence, status says off', async () => {
  const r = await searchCode('anything');
  assert.equal(r.isError, true);
  assert.match(r.text, /no embeddings endpoint is configured/);
  const re = await t.api('POST', '/api/reindex');
  assert.equal(re.status, 400);
  assert.match(re.body.error, /no embeddings endpoint is configured; set "embeddings"/);
  const s = await t.api('GET', '/api/status');
  assert.equal(s.body.index.state, 'off');
});

test('configuring embeddings builds the index; a paraphrase finds the planted function first', async () => {
  const seq = lastSeq();
  const put = await t.api('PUT', '/api/config', { providers: [], defaultProvider: null, embeddings: { baseUrl: fake.baseUrl, model: 'fake-embed', newKey: 'sk-embed-secret' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(JSON.stringify(put.body).includes('sk-embed-secret'), false);
  await built(seq);
  const s = await t.api('GET', '/api/status');
  assert.equal(s.body.index.state, 'ready');
  assert.equal(s.body.index.files, 4, JSON.stringify(s.body.index));
  assert.equal(fake.headers.at(-1)!.authorization, 'Bearer sk-embed-secret');
  assert.equal(fake.inputs.some((i) => i.includes('node_modules')), false, 'ignored folders are not indexed');

  const r = await searchCode('send the documents again when sending broke, waiting longer each time');
  assert.notEqual(r.isError, true, r.text);
  assert.match(r.text.split('\n')[0], /^src\/upload\.ts:3 \(\d\.\d{3}\) retryFailedUploads$/);
  assert.match(r.text, /delayMs \*= 2/);
});

test('an exact identifier finds its definition before the places that use it', async () => {
  const r = await searchCode('parseColor');
  assert.match(r.text.split('\n')[0], /^src\/render\.ts:5 .* parseColor$/);
  assert.match(r.text, /src\/uses\.ts:1/);
});

test('editing one file re-embeds only its changed chunks; deleting a file drops its chunks', async () => {
  const beforeInputs = fake.inputs.length;
  let seq = lastSeq();
  const edited = FILES['src/render.ts'].replace('" | "', '" || "');
  const put = await t.api('PUT', '/api/files/src/render.ts', { content: edited });
  assert.equal(put.status, 200);
  await built(seq);
  const embedded = fake.inputs.slice(beforeInputs);
  assert.equal(embedded.length, 1, `re-embedded: ${JSON.stringify(embedded)}`);
  assert.match(embedded[0], /renderTable/);

  // An edit from outside the engine (another editor) is picked up through the watcher.
  seq = lastSeq();
  await writeFile(path.join(ws, 'src/outside.ts'), 'export function computeInvoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
  await built(seq);
  assert.match((await searchCode('computeInvoiceTotal')).text.split('\n')[0], /^src\/outside\.ts:1/);

  seq = lastSeq();
  await rm(path.join(ws, 'src/uses.ts'));
  await built(seq);
  const after = await searchCode('parseColor');
  assert.doesNotMatch(after.text, /src\/uses\.ts/);

  // A folder made outside with a file in it, then moved out of the workspace: the watcher reports
  // that once, by the folder's path (no event names its files), and the index drops every file it had under it.
  await mkdir(path.join(ws, 'src/billing/deep'), { recursive: true });
  await writeFile(path.join(ws, 'src/billing/deep/ledger.ts'), 'export function reconcileLedgerEntries(rows: string[]) {\n  return rows.length;\n}\n');
  await until('the new folder\'s file to be indexed', async () => /^src\/billing\/deep\/ledger\.ts:1/.test((await searchCode('reconcileLedgerEntries')).text.split('\n')[0]));
  await rename(path.join(ws, 'src/billing'), path.join(t.home, 'billing-moved-away'));
  await until('the moved folder\'s file to leave the index', async () => !/src\/billing/.test((await searchCode('reconcileLedgerEntries')).text));

  // A copy the engine makes (files-op) is its own write, never echoed by the watcher: its event alone indexes it.
  assert.equal((await t.api('POST', '/api/files-op', { op: 'copy', path: 'src/outside.ts', to: 'src/copied-invoice.ts' })).status, 200);
  await until('the copy to be indexed', async () => /src\/copied-invoice\.ts/.test((await searchCode('computeInvoiceTotal')).text));
  assert.equal((await t.api('POST', '/api/files-op', { op: 'delete', path: 'src/copied-invoice.ts' })).status, 200);
  await until('the copy to leave the index', async () => !/src\/copied-invoice\.ts/.test((await searchCode('computeInvoiceTotal')).text));
});

test('reindex rebuilds from nothing without embedding unchanged chunks again; a flaky endpoint is retried', async () => {
  const beforeRequests = requests;
  const beforeInputs = fake.inputs.length;
  const seq = lastSeq();
  fake.fail(1);
  const re = await t.api('POST', '/api/reindex');
  assert.deepEqual(re, { status: 202, body: { ok: true } });
  // The reindex's own completion follows its progress: an incremental run of the test before may
  // still complete after \`seq\`, with no progress of its own.
  const progress = await events.waitFor((e) => e.kind === 'index.progress' && e.seq > seq, 20_000);
  const done = await built(progress.seq);
  assert.equal(fake.inputs.length, beforeInputs, 'every chunk came from the vector cache');
  assert.equal(requests, beforeRequests, 'no embeddings request at all');
  assert.equal(done.files, 4);
  // The next query meets the 503 once and is retried.
  const r = await searchCode('parseColor');
  assert.match(r.text, /src\/render\.ts:5/);
});
