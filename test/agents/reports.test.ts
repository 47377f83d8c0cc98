import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';

let t: TestEngine;
before(async () => {
  t = await startTestEngine();
});
after(() => t.close());

type U = { input: number; output: number; cached: number; reasoning: number };
const runs: Array<{ id: string; usage: U; model?: string }> = [];

async function makeRun(fields: Record<string, string | undefined>, usage: U, status: 'completed' | 'failed' = 'completed') {
  const run = t.engine.runs.start({ source: 'test', ...fields });
  // Usage arrives as token.usage events (twice, as a loop with two model steps would send it).
  run.emit('token.usage', { input: usage.input - 10, output: usage.output, cached: usage.cached, reasoning: usage.reasoning });
  run.emit('token.usage', { input: 10, output: 0, cached: 0, reasoning: 0 });
  await run.finish(status);
  runs.push({ id: run.id, usage, model: fields.model });
  return run.id;
}

test('report totals equal the sum of the runs, costs priced from the table, unknown models unpriced', async () => {
  const t0 = Date.now();
  await makeRun({ source: 'chat', model: 'gpt-4o-mini', agent: 'writer' }, { input: 1_000_000, output: 100_000, cached: 200_000, reasoning: 0 });
  await makeRun({ source: 'workflow', workflowId: 'nightly', model: 'claude-sonnet-4-20250514', agent: 'writer' }, { input: 20_000, output: 3_000, cached: 0, reasoning: 500 });
  await makeRun({ source: 'workflow', workflowId: 'nightly', model: 'my-local-llama' }, { input: 5_000, output: 700, cached: 0, reasoning: 0 }, 'failed');
  await makeRun({ source: 'chat', model: 'gpt-4o-mini', workItem: 'web/WEB-1' }, { input: 300, output: 50, cached: 0, reasoning: 0 });

  const report = await t.api('GET', `/api/report?from=${t0}`);
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const sum = runs.reduce((a, r) => ({ input: a.input + r.usage.input, output: a.output + r.usage.output, cached: a.cached + r.usage.cached, reasoning: a.reasoning + r.usage.reasoning }), { input: 0, output: 0, cached: 0, reasoning: 0 });
  const { totals } = report.body;
  assert.deepEqual({ input: totals.input, output: totals.output, cached: totals.cached, reasoning: totals.reasoning, runs: totals.runs }, { ...sum, runs: 4 });

  // gpt-4o-mini: 800k fresh * 0.15 + 200k cached * 0.075 + 100k out * 0.6, plus 300 * 0.15 + 50 * 0.6 (per million)
  const mini = (800_000 * 0.15 + 200_000 * 0.075 + 100_000 * 0.6 + 300 * 0.15 + 50 * 0.6) / 1e6;
  const sonnet = (20_000 * 3 + 3_000 * 15) / 1e6;
  const byModel = Object.fromEntries(report.body.byModel.map((b: { key: string }) => [b.key, b]));
  assert.ok(Math.abs(byModel['gpt-4o-mini'].cost - mini) < 1e-6, String(byModel['gpt-4o-mini'].cost));
  assert.ok(Math.abs(byModel['claude-sonnet-4-20250514'].cost - sonnet) < 1e-6);
  assert.equal(byModel['my-local-llama'].cost, null);
  assert.deepEqual(byModel['my-local-llama'].unpriced, { runs: 1, input: 5_000, output: 700, cached: 0, reasoning: 0 });
  assert.ok(Math.abs(totals.cost - (mini + sonnet)) < 1e-6);
  assert.equal(totals.unpriced.input, 5_000);

  const byWorkflow = Object.fromEntries(report.body.byWorkflow.map((b: { key: string }) => [b.key, b]));
  assert.equal(byWorkflow.chat.runs, 2);
  assert.equal(byWorkflow.nightly.runs, 2);
  assert.deepEqual(byWorkflow.nightly.statuses, { completed: 1, failed: 1 });
  const bySource = report.body.bySource.map((b: { key: string; runs: number }) => [b.key, b.runs]).sort();
  assert.deepEqual(bySource, [['chat', 2], ['workflow', 2]]);
  assert.equal(report.body.byAgent.find((b: { key: string }) => b.key === 'writer').runs, 2);

  // The same numbers per run.
  const rows = await t.api('GET', `/api/report/runs?from=${t0}&limit=10`);
  assert.equal(rows.body.total, 4);
  for (const r of runs) assert.deepEqual(rows.body.runs.find((x: { runId: string }) => x.runId === r.id).usage, r.usage);
  const rowCost = rows.body.runs.reduce((a: number, r: { cost: number | null }) => a + (r.cost ?? 0), 0);
  assert.ok(Math.abs(rowCost - totals.cost) < 1e-6);

  // The models that could not be priced are named, so a client can say which prices to add.
  assert.deepEqual(report.body.unpricedModels, ['my-local-llama']);

  // An empty window spent nothing: zero runs, a known cost of zero, nothing unpriced.
  const empty = await t.api('GET', `/api/report?from=1&to=2`);
  assert.equal(empty.body.totals.runs, 0);
  assert.equal(empty.body.totals.cost, 0);
  assert.deepEqual(empty.body.unpricedModels, []);
});

test('report run filters and paging', async () => {
  const q = async (qs: string) => (await t.api('GET', `/api/report/runs?${qs}`)).body;
  assert.equal((await q('workflow=nightly')).total, 2);
  assert.equal((await q('workflow=chat')).total, 2);
  assert.equal((await q('status=failed')).runs[0].model, 'my-local-llama');
  assert.equal((await q('agent=writer&model=gpt-4o-mini')).total, 1);
  assert.equal((await q('source=chat&workItem=web%2FWEB-1')).total, 1);
  const page1 = await q('limit=2&offset=0');
  const page2 = await q('limit=2&offset=2');
  assert.equal(page1.runs.length, 2);
  assert.notEqual(page1.runs[0].runId, page2.runs[0].runId);
  assert.ok(page1.runs[0].startedAt >= page1.runs[1].startedAt);
});

test('report queries are validated, each parameter by name', async () => {
  const cases: Array<[string, RegExp]> = [
    ['/api/report?from=yesterday', /from must be a time in epoch milliseconds/],
    ['/api/report?from=5&to=1', /from is after to/],
    ['/api/report?agent=x', /unknown query parameter "agent"/],
    ['/api/report/runs?status=done', /status must be one of running, completed, failed, stopped, interrupted/],
    ['/api/report/runs?limit=0', /limit must be a whole number from 1 to 1000/],
    ['/api/report/runs?limit=5000', /limit must be/],
    ['/api/report/runs?offset=-1', /offset must be/],
    ['/api/report/runs?to=abc', /to must be a time/],
    ['/api/report/runs?agent=a&agent=b', /agent must be a non-empty string \(given once\)/],
    ['/api/report/runs?bogus=1', /unknown query parameter "bogus"/],
  ];
  for (const [route, sentence] of cases) {
    const res = await t.api('GET', route);
    assert.equal(res.status, 400, route);
    assert.match(res.body.error, sentence, route);
  }
});

test('a provider entry\'s prices (PUT /api/config) override the table', async () => {
  const put = await t.api('PUT', '/api/config', {
    providers: [{ type: 'openai-compatible', name: 'local', baseUrl: 'http://127.0.0.1:9/v1', model: 'my-local-llama', prices: { 'my-local-llama': { input: 0, output: 0 }, 'gpt-4o-mini': { input: 1, output: 1 } } }],
    defaultProvider: 'local',
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const report = await t.api('GET', '/api/report');
  const byModel = Object.fromEntries(report.body.byModel.map((b: { key: string }) => [b.key, b]));
  assert.equal(byModel['my-local-llama'].cost, 0);
  assert.equal(byModel['my-local-llama'].unpriced.runs, 0);
  // 1_000_300 input + 100_050 output at $1 per million each.
  assert.ok(Math.abs(byModel['gpt-4o-mini'].cost - 1.10035) < 1e-6, String(byModel['gpt-4o-mini'].cost));
  assert.equal(report.body.totals.unpriced.runs, 0);
});

test('a run that spent on two models (a subagent on another model) is priced and grouped per model', async () => {
  const t0 = Date.now();
  const run = t.engine.runs.start({ source: 'chat', model: 'gpt-4.1-mini', provider: 'oa' });
  run.emit('token.usage', { input: 1_000, output: 100, cached: 0, reasoning: 0, model: 'gpt-4.1-mini', provider: 'oa' });
  // The delegated subagent's step, on another model, lands in the same (parent) run.
  run.emit('token.usage', { input: 2_000, output: 300, cached: 0, reasoning: 0, model: 'claude-sonnet-4-5', provider: 'an' });
  await run.finish('completed');

  const rows = await t.api('GET', `/api/report/runs?from=${t0}&limit=10`);
  const row = rows.body.runs.find((x: { runId: string }) => x.runId === run.id);
  assert.deepEqual(row.usage, { input: 3_000, output: 400, cached: 0, reasoning: 0 });
  const mini = (1_000 * 0.4 + 100 * 1.6) / 1e6;
  const sonnet = (2_000 * 3 + 300 * 15) / 1e6;
  assert.ok(Math.abs(row.cost - (mini + sonnet)) < 1e-9, String(row.cost));

  const report = await t.api('GET', `/api/report?from=${t0}`);
  const byModel = Object.fromEntries(report.body.byModel.map((b: { key: string }) => [b.key, b]));
  assert.equal(byModel['claude-sonnet-4-5'].input, 2_000);
  assert.ok(Math.abs(byModel['claude-sonnet-4-5'].cost - sonnet) < 1e-9);
  assert.equal(byModel['gpt-4.1-mini'].input, 1_000);
  assert.equal((await t.api('GET', `/api/report/runs?from=${t0}&model=claude-sonnet-4-5`)).body.total, 1);
});

test('one model reached through two providers in a run counts that run once under the model', async () => {
  const t0 = Date.now();
  const run = t.engine.runs.start({ source: 'chat', model: 'gpt-4o', provider: 'oa' });
  run.emit('token.usage', { input: 1_000, output: 100, cached: 0, reasoning: 0, model: 'gpt-4o', provider: 'oa' });
  run.emit('token.usage', { input: 500, output: 50, cached: 0, reasoning: 0, model: 'gpt-4o', provider: 'router' });
  await run.finish('completed');

  const report = await t.api('GET', `/api/report?from=${t0}`);
  const gpt4o = report.body.byModel.find((b: { key: string }) => b.key === 'gpt-4o');
  assert.equal(gpt4o.runs, 1);
  assert.deepEqual(gpt4o.statuses, { completed: 1 });
  assert.equal(gpt4o.input, 1_500);
  assert.ok(Math.abs(gpt4o.cost - (1_500 * 2.5 + 150 * 10) / 1e6) < 1e-9, String(gpt4o.cost));
});
