/**
 * Report pages cut from the ledger's start-time index (issue 34): every page, time range and label
 * filter answers exactly what a plain filter, sort and slice over all the runs answers, and the
 * ledger keeps that index in start order even for a record written out of clock order.
 */
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { createReportsService, type RunFilter } from '../../src/capabilities/reports/service.js';
import { Bus } from '../../src/kernel/bus.js';
import { Home } from '../../src/kernel/home.js';
import { RunLedger, type RunRecord } from '../../src/kernel/runs.js';
import { tempDir } from '../support/engine.js';

const T0 = Date.UTC(2026, 0, 1);

function records(n: number): RunRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    runId: `run-${T0 + i}-${i + 1}`,
    source: i % 3 ? 'chat' : 'workflow',
    status: i % 5 ? 'completed' : 'failed',
    // Some runs share a start time, as runs started in the same millisecond do.
    startedAt: T0 + Math.floor(i / 2) * 1000,
    model: i % 2 ? 'gpt-4o-mini' : 'local-llama',
    usage: { input: i, output: 1, cached: 0, reasoning: 0 },
  }));
}

/** What a page is by definition: filter everything, newest first (ties: later written first), slice. */
function reference(all: RunRecord[], f: RunFilter, offset: number, limit: number) {
  const kept = all
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => (f.from === undefined || r.startedAt >= f.from) && (f.to === undefined || r.startedAt <= f.to) && (f.status === undefined || r.status === f.status) && (f.model === undefined || r.model === f.model))
    .sort((a, b) => b.r.startedAt - a.r.startedAt || b.i - a.i);
  return { ids: kept.slice(offset, offset + limit).map(({ r }) => r.runId), total: kept.length };
}

test('report pages: every offset, time range and label filter equals a full filter and sort', () => {
  const all = records(200);
  const reports = createReportsService({ runs: { byStart: () => all } });
  const filters: RunFilter[] = [
    {},
    { from: T0 + 10_000 },
    { to: T0 + 40_000 },
    { from: T0 + 10_500, to: T0 + 40_000 },
    { from: T0 + 99_000 },
    { from: T0 + 500_000 },
    { to: T0 - 1 },
    { status: 'failed' },
    { model: 'gpt-4o-mini', from: T0 + 20_000, to: T0 + 60_000 },
  ];
  for (const filter of filters) {
    for (const offset of [0, 1, 7, 50, 199, 200, 250]) {
      for (const limit of [1, 10, 100]) {
        const got = reports.runs(filter, { offset, limit });
        const want = reference(all, filter, offset, limit);
        assert.deepEqual({ ids: got.runs.map((r) => r.runId), total: got.total }, want, `${JSON.stringify(filter)} offset ${offset} limit ${limit}`);
      }
    }
    const summed = reports.summary({ from: filter.from, to: filter.to }).totals.input;
    const wantSum = all.filter((r) => (filter.from === undefined || r.startedAt >= filter.from) && (filter.to === undefined || r.startedAt <= filter.to)).reduce((s, r) => s + r.usage.input, 0);
    assert.equal(summed, wantSum, `summary of ${JSON.stringify(filter)}`);
  }
});

test('run ledger: the index is by start time, a run with an earlier clock goes where it started', async () => {
  const root = await tempDir();
  // An index written out of start order (a clock set back between two runs) is read back in order.
  const lines = [T0 + 3000, T0 + 1000, T0 + 2000].map((startedAt, i) => JSON.stringify({ runId: `run-${startedAt}-${i + 1}`, source: 'chat', status: 'completed', startedAt, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } }));
  await mkdir(path.join(root, 'runs'), { recursive: true });
  await writeFile(path.join(root, 'runs', 'index.jsonl'), lines.join('\n') + '\n');
  const home = new Home(root);
  await home.ensure();
  const runs = new RunLedger(home, new Bus());
  await runs.init();
  try {
    assert.deepEqual(runs.byStart().map((r) => r.startedAt), [T0 + 1000, T0 + 2000, T0 + 3000]);
    const live = runs.start({ source: 'chat' });
    assert.equal(runs.byStart().at(-1)?.runId, live.id, 'a new run is the newest');
    assert.equal(runs.list(2)[0].runId, live.id, 'GET /api/runs shows it first');
    assert.deepEqual(runs.list(10).map((r) => r.startedAt).slice(1), [T0 + 3000, T0 + 2000, T0 + 1000]);
    await live.finish('completed');
  } finally {
    await runs.close();
  }
});
