// needs: better-sqlite3 (the brain's index is SQLite; see scripts/test.mjs --node22)
/**
 * The brain's index on disk (src/capabilities/brain/store.ts) is derived from graph.jsonl: a start
 * reads nothing until the brain is needed; an index deleted, corrupt, behind its log (a crash
 * between the log's write and the index's) or made from another log is made again from the log;
 * a home from before the brain is backfilled from the ledger once; a hub's focused query answers
 * its newest edges up to the cap.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { createBrainService, type BrainService } from '../../src/capabilities/brain/service.js';
import type { RunRecord } from '../../src/kernel/runs.js';
import { tempDir } from '../support/engine.js';

let seq = 0;
function feed(brain: BrainService, runId: string, file: string, ts = 1_000_000 + seq): void {
  const ev = (kind: string, extra: Record<string, unknown> = {}) => brain.onEvent({ kind, ts: ts + seq, seq: ++seq, runId, ...extra });
  ev('run.started', { source: 'chat', sessionId: `s-${runId}`, model: 'm1', title: `task ${runId}` });
  ev('file.written', { path: file });
  ev('run.completed');
}

const runsOf = (answer: { nodes: Array<{ id: string; type: string }> }) => answer.nodes.filter((n) => n.type === 'run').map((n) => n.id).sort();

async function twoRuns(): Promise<{ dir: string; logs: string[] }> {
  const dir = await tempDir('engine-brain-index-');
  const logs: string[] = [];
  const brain = await createBrainService({ dir, runs: () => [], log: (l) => logs.push(l), redact: (v) => v });
  feed(brain, 'run-1-1', 'a.txt');
  feed(brain, 'run-2-2', 'a.txt');
  assert.deepEqual(runsOf(await brain.query({ focus: 'a.txt' })), ['run:run-1-1', 'run:run-2-2']);
  await brain.close();
  return { dir, logs };
}

test('a start opens nothing: the index is made on the first event that matters, not before', async () => {
  const dir = await tempDir('engine-brain-index-');
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  brain.onEvent({ kind: 'chat.delta', ts: 1, seq: 1, runId: 'run-1-1', text: 'hi' });
  await assert.rejects(stat(path.join(dir, 'graph.sqlite')), /ENOENT/);
  feed(brain, 'run-1-1', 'a.txt');
  assert.equal((await brain.query({ focus: 'run:run-1-1' })).nodes.length, 4);
  await stat(path.join(dir, 'graph.sqlite'));
  await brain.close();
});

test('a deleted index is made again from graph.jsonl', async () => {
  const { dir } = await twoRuns();
  await rm(path.join(dir, 'graph.sqlite'));
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  assert.deepEqual(runsOf(await brain.query({ focus: 'a.txt' })), ['run:run-1-1', 'run:run-2-2']);
  assert.equal((await brain.query({ focus: 'run:run-2-2' })).nodes.find((n) => n.id === 'run:run-2-2')?.data?.status, 'completed');
  await brain.close();
});

test('a corrupt index is made again, and the log says so', async () => {
  const { dir } = await twoRuns();
  for (const f of ['graph.sqlite-wal', 'graph.sqlite-shm']) await rm(path.join(dir, f), { force: true });
  await writeFile(path.join(dir, 'graph.sqlite'), 'this is not a database, it is a sentence that is long enough to fill a header'.repeat(20));
  const logs: string[] = [];
  const brain = await createBrainService({ dir, runs: () => [], log: (l) => logs.push(l), redact: (v) => v });
  assert.deepEqual(runsOf(await brain.query({ focus: 'a.txt' })), ['run:run-1-1', 'run:run-2-2']);
  assert.ok(logs.some((l) => /could not be opened/.test(l)), logs.join('\n'));
  await brain.close();
});

test('lines the log has and the index lacks (a crash between the two writes) are applied at the next open', async () => {
  const { dir } = await twoRuns();
  // What a kill after the log's append and before the index's commit leaves: two more lines, one torn.
  await appendFile(
    path.join(dir, 'graph.jsonl'),
    JSON.stringify({ n: { id: 'run:run-3-3', type: 'run', label: 'late', at: 5, data: { status: 'completed' } } }) + '\n' + JSON.stringify({ e: { from: 'run:run-3-3', to: 'file:a.txt', type: 'edited', at: 9_999_999, runId: 'run-3-3' } }) + '\n{"e":{"from":"run:run-3',
  );
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  const a = await brain.query({ focus: 'a.txt' });
  assert.deepEqual(runsOf(a), ['run:run-1-1', 'run:run-2-2', 'run:run-3-3']);
  assert.equal(a.edges[0].type, 'edited', 'newest edge first');
  feed(brain, 'run-4-4', 'b.txt');
  await brain.close();
  // The torn line was cut before the next append: every line of the log parses.
  for (const line of (await readFile(path.join(dir, 'graph.jsonl'), 'utf8')).trim().split('\n')) JSON.parse(line);
});

test('an index made from another log (graph.jsonl replaced) is made again from the one there now', async () => {
  const { dir } = await twoRuns();
  const other = [
    { n: { id: 'run:run-9-9', type: 'run', label: 'other', at: 1 } },
    { n: { id: 'file:z.txt', type: 'file', label: 'z.txt', at: 1 } },
    { e: { from: 'run:run-9-9', to: 'file:z.txt', type: 'read', at: 2, runId: 'run-9-9' } },
  ];
  // Longer than the old log, so only the mark tells them apart.
  const text = other.map((l) => JSON.stringify(l)).join('\n') + '\n';
  const old = await readFile(path.join(dir, 'graph.jsonl'), 'utf8');
  await writeFile(path.join(dir, 'graph.jsonl'), text + ' '.repeat(Math.max(0, old.length - text.length)) + '\n');
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  assert.equal((await brain.query({ focus: 'a.txt' }).catch((e: Error) => e)) instanceof Error, true, 'a.txt is not in this log');
  assert.deepEqual(runsOf(await brain.query({ focus: 'z.txt' })), ['run:run-9-9']);
  await brain.close();
});

test('a home from before the brain is backfilled from the ledger once', async () => {
  const dir = await tempDir('engine-brain-index-');
  const record: RunRecord = { runId: 'run-7-7', source: 'workflow', workflowId: 'nightly', model: 'm2', status: 'completed', startedAt: 7, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } };
  let asked = 0;
  const runs = () => (asked++, [record]);
  const brain = await createBrainService({ dir, runs, redact: (v) => v });
  assert.deepEqual(runsOf(await brain.query({ focus: 'workflow:nightly' })), ['run:run-7-7']);
  await brain.close();
  const again = await createBrainService({ dir, runs, redact: (v) => v });
  assert.deepEqual(runsOf(await again.query({ focus: 'model:m2' })), ['run:run-7-7']);
  await again.close();
  assert.equal(asked, 1);
});

test('a log a kill left empty (opened, not yet written) is backfilled at the next start; the records are masked first', async () => {
  const dir = await tempDir('engine-brain-index-');
  await writeFile(path.join(dir, 'graph.jsonl'), '');
  const record: RunRecord = { runId: 'run-8-8', source: 'chat', title: 'deploy with hunter2-token', model: 'm3', status: 'completed', startedAt: 8, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } };
  const brain = await createBrainService({ dir, runs: () => [record], redact: <T>(v: T) => JSON.parse(JSON.stringify(v).replaceAll('hunter2-token', '***')) as T });
  const answer = await brain.query({ focus: 'model:m3' });
  assert.deepEqual(runsOf(answer), ['run:run-8-8']);
  assert.equal(answer.nodes.find((n) => n.id === 'run:run-8-8')?.label, 'deploy with ***');
  const text = await readFile(path.join(dir, 'graph.jsonl'), 'utf8');
  assert.match(text, /run-8-8/, 'the backfill is written at once, not at the timer');
  assert.doesNotMatch(text, /hunter2/);
  await brain.close();
});

test('an append a full disk cuts short leaves no torn line: the log is as before it', async () => {
  const dir = await tempDir('engine-brain-index-');
  const log = path.join(dir, 'graph.jsonl');
  // A file size limit (ulimit -f, 1 KiB blocks) fails the write part way, as a full disk does; node ignores SIGXFSZ.
  const script = `import { GraphLog } from ${JSON.stringify(path.resolve('src/capabilities/brain/log.ts'))};
    const log = new GraphLog(${JSON.stringify(log)});
    log.append([{ n: { id: 'run:a', type: 'run', label: 'a', at: 1 } }]);
    const before = log.size();
    try { log.append(Array.from({ length: 100 }, (_, i) => ({ n: { id: 'file:f' + i, type: 'file', label: 'f' + i, at: 2 } }))); console.log('written'); }
    catch (err) { console.log(err.code, log.size() === before ? 'as before' : 'torn at ' + log.size()); }`;
  const out = execFileSync('bash', ['-c', `ulimit -f 2; exec "${process.execPath}" --import tsx --input-type=module -e "$0"`, script], { encoding: 'utf8' });
  assert.equal(out.trim(), 'EFBIG as before');
  assert.match(await readFile(log, 'utf8'), /^\{"n":\{"id":"run:a"[^\n]*\n$/);
});

test("a hub's focused query answers its newest edges up to the cap, truncated", async () => {
  const dir = await tempDir('engine-brain-index-');
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  for (let i = 1; i <= 300; i++) feed(brain, `run-${i}-${i}`, 'hub.txt', i * 1000);
  const a = await brain.query({ focus: 'hub.txt', limit: '11' });
  assert.equal(a.truncated, true);
  assert.equal(a.nodes.length, 11);
  assert.deepEqual(runsOf(a), Array.from({ length: 10 }, (_, k) => `run:run-${300 - k}-${300 - k}`).sort());
  await brain.close();
});

test('a closed brain takes no more events: a run ending during shutdown does not open the index again in a home being let go', async () => {
  const dir = await tempDir('engine-brain-index-');
  const brain = await createBrainService({ dir, runs: () => [], redact: (v) => v });
  await brain.close();
  feed(brain, 'run-3-3', 'late.txt');
  // A second close waits for any opening of the index a late event started: no clock decides this.
  await brain.close();
  await assert.rejects(stat(path.join(dir, 'graph.sqlite')), { code: 'ENOENT' }, 'no index made after close');
});
