/**
 * A start reads runs/index.jsonl without parsing it (kernel/run-index.ts, issue 42): only the runs a
 * previous engine left running are parsed at once; every other record is parsed after the engine
 * listens, or at once by the first read of the ledger. Whichever way, the ledger answers exactly what
 * a full parse of the index says: the last line of each run that parses wins, in the order runs
 * first appeared, and what this engine did meanwhile (a run started, a run resumed) is never
 * overwritten by an older line.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { parseJsonl } from '../../src/kernel/jsonl.js';
import type { RunLedger, RunRecord } from '../../src/kernel/runs.js';
import { tempDir } from '../support/engine.js';
import { ledgerAt } from '../support/ledger.js';

const usage = { input: 1, output: 2, cached: 0, reasoning: 0 };
const rec = (i: number, status: RunRecord['status'], extra: Partial<RunRecord> = {}): RunRecord => ({ runId: `run-${1000 + i}-${i}`, status, startedAt: 1000 + i, usage, source: 'chat', ...extra });
const line = (r: unknown) => JSON.stringify(r) + '\n';

/** An index as engines write it (start and end lines), plus the lines a hand or another writer left. */
async function homeWithIndex(): Promise<{ root: string; text: string }> {
  const root = await tempDir();
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    lines.push(line(rec(i, 'running', { workflowId: i % 2 ? 'nightly' : undefined, workItem: i % 5 ? undefined : 'ENG-1' })));
    // Runs 7 and 21 never ended: the engine running them died.
    if (i !== 7 && i !== 21) lines.push(line(rec(i, i % 3 ? 'completed' : 'failed', { endedAt: 2000 + i, workflowId: i % 2 ? 'nightly' : undefined, workItem: i % 5 ? undefined : 'ENG-1' })));
  }
  // A line with its keys in another order (written by hand): still read, and it says running.
  lines.push(line({ status: 'running', source: 'manual', startedAt: 1100, usage, runId: 'run-1100-99' }));
  // A broken line: skipped, and run 5's line before it stands.
  lines.push('{"runId":"run-1005-5","status":"comp\n');
  // A shared log's run, ended.
  lines.push(line(rec(50, 'completed', { log: 'gateway-3', source: 'gateway' })));
  const text = lines.join('');
  await mkdir(path.join(root, 'runs'), { recursive: true });
  await writeFile(path.join(root, 'runs', 'index.jsonl'), text);
  return { root, text };
}

/** What a full parse of the index says each run is (last line that parses wins), running ones interrupted. */
function expected(text: string): RunRecord[] {
  const byId = new Map<string, RunRecord>();
  for (const r of parseJsonl<RunRecord>(text)) if (r?.runId) byId.set(r.runId, r);
  return [...byId.values()].map((r) => (r.status === 'running' ? { ...r, status: 'interrupted' as const } : r)).sort((a, b) => a.startedAt - b.startedAt);
}

const strip = (rs: readonly RunRecord[]) => rs.map((r) => ({ id: r.runId, status: r.status, startedAt: r.startedAt, endedAt: r.endedAt, log: r.log }));
const settled = (runs: RunLedger) => new Promise<void>((resolve) => {
  const check = () => ((runs as unknown as { unparsed?: unknown }).unparsed ? setImmediate(check) : resolve());
  check();
});

test('a start parses only the runs left running; the first read parses the rest, and the ledger says what a full parse says', async () => {
  const { root, text } = await homeWithIndex();
  const runs = await ledgerAt(root);
  assert.deepEqual(runs.interruptedAtStart.map((r) => r.runId).sort(), ['run-1007-7', 'run-1021-21', 'run-1100-99'], 'exactly the runs whose last line says running');
  assert.ok((runs as unknown as { unparsed?: unknown }).unparsed, 'nothing else was parsed at start');
  // The first read parses the rest at once.
  assert.deepEqual(strip(runs.all()), strip(expected(text)));
  assert.equal(runs.record('run-1005-5')?.status, 'completed', 'a broken line is skipped; the line before it stands');
  assert.equal(runs.lastRunOf('nightly')?.runId, 'run-1039-39');
  assert.deepEqual(runs.runsForWorkItem('ENG-1').map((r) => r.runId), ['run-1000-0', 'run-1005-5', 'run-1010-10', 'run-1015-15', 'run-1020-20', 'run-1025-25', 'run-1030-30', 'run-1035-35']);
  await runs.close();
  // The interrupted lines were appended; the next start finds nothing running.
  const again = await ledgerAt(root);
  assert.deepEqual(again.interruptedAtStart, []);
  assert.equal(again.record('run-1100-99')?.status, 'interrupted');
  await again.close();
});

test('in the background, a batch a turn: runs started and resumed meanwhile keep their state and their place', async () => {
  const { root, text } = await homeWithIndex();
  const runs = await ledgerAt(root);
  const fresh = runs.start({ source: 'manual', workflowId: 'nightly' });
  const resumed = runs.reopen('run-1007-7');
  assert.ok((runs as unknown as { unparsed?: unknown }).unparsed, 'a known run is read without parsing the rest');
  runs.parseInBackground();
  await settled(runs);
  const all = runs.all();
  assert.deepEqual(all.map((r) => r.runId), [...expected(text).map((r) => r.runId), fresh.id], 'the old runs by start time, then the new one');
  assert.equal(runs.record('run-1007-7')?.status, 'running', 'the resumed run is not overwritten by its older line');
  assert.equal(runs.lastRunOf('nightly')?.runId, fresh.id, "the new run stays the workflow's last");
  await resumed.finish('completed');
  await fresh.finish('completed');
  await runs.close();
});

test('an index due for compaction is parsed whole at start and written one line a run, as before', async () => {
  const root = await tempDir();
  await mkdir(path.join(root, 'runs'), { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(line(rec(i, 'running')), line(rec(i, 'completed', { endedAt: 5000 + i })));
  await writeFile(path.join(root, 'runs', 'index.jsonl'), lines.join(''));
  const runs = await ledgerAt(root);
  assert.equal((runs as unknown as { unparsed?: unknown }).unparsed, undefined, 'parsed whole');
  assert.equal(runs.all().length, 300);
  const written = parseJsonl<RunRecord>(await readFile(path.join(root, 'runs', 'index.jsonl'), 'utf8'));
  assert.equal(written.length, 300);
  assert.ok(written.every((r) => r.status === 'completed'));
  await runs.close();
});
