/**
 * The ledger keeps each workflow's last top-level run and each work item's runs by key (issue 42):
 * GET /api/workflows and an item's links read them without a scan of every run. Subworkflow runs
 * are never a workflow's last run; a resumed run keeps its place; both survive a restart (rebuilt
 * from runs/index.jsonl); entries follow the record as it changes, and a pool's records from other
 * engines (RunLedger.ingest) are filed as they come in.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import type { RunRecord } from '../../src/kernel/runs.js';
import { tempDir } from '../support/engine.js';
import { ledgerAt } from '../support/ledger.js';

test("a workflow's last top-level run and an item's runs, by key, kept across a restart", async () => {
  const root = await tempDir();
  const runs = await ledgerAt(root);
  const first = runs.start({ source: 'manual', workflowId: 'nightly', workItem: 'ENG-1' });
  await first.finish('failed', { error: 'disk full' });
  const second = runs.start({ source: 'cron', workflowId: 'nightly' });
  const child = runs.start({ source: 'subworkflow', workflowId: 'nightly', parentRunId: second.id, workItem: 'ENG-1' });
  runs.start({ source: 'chat', workItem: 'eng/ENG-1' });
  runs.start({ source: 'manual', workflowId: 'other' });

  assert.equal(runs.lastRunOf('nightly')?.runId, second.id, 'a subworkflow run is not the last run of its workflow');
  assert.equal(runs.lastRunOf('nightly')?.status, 'running');
  await second.finish('completed');
  assert.equal(runs.lastRunOf('nightly')?.status, 'completed', 'the entry is the record itself');
  assert.equal(runs.lastRunOf('never-ran'), undefined);
  assert.deepEqual(runs.runsForWorkItem('ENG-1').map((r) => r.runId), [first.id, child.id]);
  assert.equal(runs.runsForWorkItem('eng/ENG-1').length, 1);
  assert.deepEqual(runs.runsForWorkItem('ENG-2'), []);
  await runs.close();

  const again = await ledgerAt(root);
  assert.equal(again.lastRunOf('nightly')?.runId, second.id);
  assert.equal(again.lastRunOf('nightly')?.status, 'completed');
  assert.equal(again.lastRunOf('other')?.status, 'interrupted', 'a run left live by the last engine is marked, in place');
  assert.deepEqual(again.runsForWorkItem('ENG-1').map((r) => r.runId), [first.id, child.id]);
  const resumed = again.reopen(first.id);
  assert.equal(again.lastRunOf('nightly')?.runId, second.id, 'a resumed run keeps its start time, so its place');
  await resumed.finish('completed');
  await again.close();
});

test("a pool's records from other engines are filed as they come in, a known one updated in place and filed once", async () => {
  const root = await tempDir();
  const runs = await ledgerAt(root);
  const here = runs.start({ source: 'manual', workflowId: 'nightly' });
  await here.finish('completed');
  const usage = { input: 0, output: 0, cached: 0, reasoning: 0 };
  const startedAt = here.record.startedAt + 1000;
  const elsewhere: RunRecord = { runId: `run-${startedAt}-7`, status: 'running', startedAt, usage, source: 'cron', workflowId: 'nightly', workItem: 'ENG-9', worker: 'w2' };
  runs.ingest(elsewhere);
  assert.equal(runs.lastRunOf('nightly')?.runId, elsewhere.runId, "another engine's newer run is the workflow's last");
  runs.ingest({ ...elsewhere, status: 'completed', endedAt: startedAt + 5 });
  assert.equal(runs.lastRunOf('nightly')?.status, 'completed', 'an update lands in the filed record');
  assert.deepEqual(runs.runsForWorkItem('ENG-9').map((r) => r.runId), [elsewhere.runId], 'a known run is filed once');
  runs.ingest({ ...elsewhere, runId: 'run-1-1', startedAt: 1, status: 'failed' });
  assert.equal(runs.lastRunOf('nightly')?.runId, elsewhere.runId, 'an older run learnt late is not the last');
  assert.deepEqual(runs.runsForWorkItem('ENG-9').map((r) => r.runId), ['run-1-1', elsewhere.runId], 'oldest first');
  await runs.close();
});

test("a run's row read before the write of its end landed does not bring an ended run back to running; an interrupted one may be resumed", async () => {
  const runs = await ledgerAt(await tempDir());
  const usage = { input: 0, output: 0, cached: 0, reasoning: 0 };
  const row: RunRecord = { runId: 'run-5-1', status: 'running', startedAt: 5, usage, source: 'workflow', workflowId: 'item', parentRunId: 'run-4-1' };
  for (const end of ['completed', 'failed', 'stopped'] as const) {
    runs.ingest({ ...row, status: end, endedAt: 9 });
    runs.ingest(row);
    assert.equal(runs.record(row.runId)?.status, end, `a ${end} run stays ${end}`);
  }
  const other = { ...row, runId: 'run-6-1', startedAt: 6 };
  runs.ingest({ ...other, status: 'interrupted', endedAt: 9 });
  runs.ingest(other);
  assert.equal(runs.record(other.runId)?.status, 'running', 'an interrupted run taken up again is running');
  await runs.close();
});

test('a start writes runs/index.jsonl again one line a run once it holds a quarter more lines than runs, and reads the same runs from it', async () => {
  const root = await tempDir();
  const runs = await ledgerAt(root);
  const ids: string[] = [];
  // 200 finished runs append 400 lines (a start and an end line each): past 1.25 lines a run and the 100 of slack.
  for (let i = 0; i < 200; i++) {
    const run = runs.start({ source: 'manual', workflowId: `wf${i % 3}` });
    await run.finish(i % 2 ? 'completed' : 'failed', i % 2 ? {} : { error: `e${i}` });
    ids.push(run.id);
  }
  await runs.close();
  const index = path.join(root, 'runs', 'index.jsonl');
  const lines = async () => (await readFile(index, 'utf8')).split('\n').filter(Boolean).length;
  assert.equal(await lines(), 400);
  const before = runs.all().map((r) => JSON.stringify(r));
  const again = await ledgerAt(root);
  assert.equal(await lines(), 200, 'one line a run after the start');
  assert.deepEqual(again.all().map((r) => JSON.stringify(r)), before, 'every run as it was, in the same order');
  assert.equal(again.lastRunOf('wf2')?.runId, ids.filter((_, i) => i % 3 === 2).at(-1));
  // Under the ratio, the index is left as it is (no rewrite at every start).
  again.start({ source: 'manual', workflowId: 'wf0' });
  await again.close();
  await ledgerAt(root).then((r) => r.close());
  assert.equal(await lines(), 202, 'the new run\'s start line and its interrupted line appended, not compacted');
});
