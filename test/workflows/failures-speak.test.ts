/**
 * Failures outside chat speak (issue 26): a webhook run refused by the unattended default makes an
 * error notification and one stderr line, GET /api/runs says why; a run the last engine left in
 * flight is reported as interrupted at the next start.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';
import { startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
before(async () => {
  h = await startWf();
});
after(() => h.close());

test('a webhook run refused by the unattended default notifies, logs one line and shows why in GET /api/runs', async () => {
  const saved = await h.t.api('PUT', '/api/workflows/deploy', wf('deploy', [{ id: 'hook', type: 'trigger.webhook', config: { secret: 'open' } }, { id: 'build', type: 'command', config: { command: 'echo built' } }], [{ from: 'hook', to: 'build' }]));
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const warning = saved.body.warnings.find((w: string) => w.includes('"build"'));
  assert.match(warning ?? '', /node "build" runs "echo built", which the unattended default will refuse in webhook runs: add the rule run_shell\(echo[^)]*\)/, saved.body.warnings.join('\n'));
  const res = await fetch(h.t.url + '/hooks/deploy', { method: 'POST', headers: { 'x-engine-secret': 'open', 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 202);
  const { runId } = (await res.json()) as { runId: string };
  assert.equal((await h.end(runId)).kind, 'run.failed');

  const note = await h.events.waitFor((e) => e.kind === 'notification' && e.runId === runId);
  assert.equal(note.level, 'error');
  assert.equal(note.link, `/runs/${runId}`);
  assert.match(String(note.title), /workflow deploy \(webhook\) failed/);
  assert.match(String(note.body), /unattended default is deny/);

  const lines = h.t.logs.filter((l) => l.includes(runId));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^engine: run run-\S+ of workflow deploy \(webhook\) failed: .*unattended default is deny/);
  assert.ok(!/\n\s+at /.test(lines[0]), 'no stack trace for an expected failure');

  const run = (await h.t.api('GET', '/api/runs')).body.runs.find((r: { runId: string }) => r.runId === runId);
  assert.equal(run.status, 'failed');
  assert.match(run.error, /unattended default is deny/);
});

test('a run left in flight by the last engine is reported as interrupted at the next start', async () => {
  const home = await tempDir('interrupted-');
  await mkdir(path.join(home, 'runs'), { recursive: true });
  const record = { runId: 'run-1700000000000-1', source: 'cron', workflowId: 'nightly', status: 'running', startedAt: 1_700_000_000_000, usage: { input: 0, output: 0, cached: 0, reasoning: 0 } };
  await writeFile(path.join(home, 'runs', 'index.jsonl'), JSON.stringify(record) + '\n');
  const t = await startTestEngine({ home });
  try {
    const line = t.logs.find((l) => l.includes(record.runId));
    assert.match(line ?? '', /workflow nightly \(cron\) was interrupted: the engine stopped while it ran; POST \/api\/runs\/run-1700000000000-1\/resume resumes it/);
    let notes: Array<{ runId?: string; level: string }> = [];
    for (let i = 0; i < 50 && !notes.some((n) => n.runId === record.runId); i++) {
      notes = (await t.api('GET', '/api/notifications')).body.notifications;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(notes.find((n) => n.runId === record.runId)?.level, 'error');
  } finally {
    await t.close();
  }
});

test('an expected 5xx (an offline model hub) is one log line with its sentence, no stack', async () => {
  const saved = process.env.HF_ENDPOINT;
  process.env.HF_ENDPOINT = 'http://127.0.0.1:1';
  try {
    const res = await h.t.api('GET', '/api/models/hf-search?q=tiny');
    assert.equal(res.status, 502, JSON.stringify(res.body));
    const line = h.t.logs.find((l) => l.includes('/api/models/hf-search'));
    assert.match(line ?? '', /^GET \/api\/models\/hf-search failed: 502 the model hub at http:\/\/127\.0\.0\.1:1 could not be reached/);
    assert.ok(!/\n\s+at /.test(line!), `a stack was logged: ${line}`);
  } finally {
    if (saved === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = saved;
  }
});

test('a gate just before a command shows it and approves that exact command once, even in a webhook run; a rule silences the warning', async () => {
  const doc = wf(
    'release',
    [
      { id: 'hook', type: 'trigger.webhook', config: { secret: 'r' } },
      { id: 'ok', type: 'gate', config: { message: 'Release {{trigger.tag}}?' } },
      { id: 'tag', type: 'command', config: { command: 'echo tagged {{trigger.tag}}' } },
    ],
    [
      { from: 'hook', to: 'ok' },
      { from: 'ok', to: 'tag' },
    ],
  );
  const saved = await h.t.api('PUT', '/api/workflows/release', doc);
  assert.deepEqual(saved.body.warnings, [], 'a gated command needs no rule');
  const res = await fetch(h.t.url + '/hooks/release', { method: 'POST', headers: { 'x-engine-secret': 'r', 'content-type': 'application/json' }, body: '{"tag":"v1"}' });
  assert.equal(res.status, 202);
  const { runId } = (await res.json()) as { runId: string };
  const waiting = await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  assert.match(String(waiting.message), /Release v1\?\n\nOn approval node "tag" runs: echo tagged v1/);
  assert.equal((await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'ok', approved: true })).status, 200);
  const end = await h.end(runId);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const log = await h.log(runId);
  assert.ok(!log.some((e) => e.kind.startsWith('permission.')), 'no second prompt or refusal');
  assert.match(JSON.stringify(log.find((e) => e.kind === 'node.completed' && e.nodeId === 'tag')), /tagged v1/);

  // Without the gate the same workflow warns; a rule for the command silences it.
  const bare = wf('bare', [{ id: 'hook', type: 'trigger.cron', config: { expr: '0 3 * * *' } }, { id: 'run', type: 'command', config: { command: 'echo nightly' } }], [{ from: 'hook', to: 'run' }]);
  const before = await h.t.api('PUT', '/api/workflows/bare', bare);
  const key = /add the rule (\S+) /.exec(before.body.warnings[0] ?? '')?.[1];
  assert.ok(key, before.body.warnings.join('\n'));
  assert.match(before.body.warnings[0], /in cron runs/);
  assert.equal((await h.t.api('POST', '/api/permissions/rule', { key, decision: 'allow' })).status, 200);
  assert.deepEqual((await h.t.api('PUT', '/api/workflows/bare', bare)).body.warnings, []);
});

test('the webhook 403 sentence arrives whole, not masked as if it held a secret', async () => {
  const res = await fetch(h.t.url + '/hooks/deploy', { method: 'POST', headers: { 'x-engine-secret': 'wrong' } });
  assert.equal(res.status, 403);
  const body = (await res.json()) as { error: string };
  assert.equal(body.error, 'forbidden: bad or missing webhook secret; send it in the "x-engine-secret" header or the "secret" query parameter');
});
