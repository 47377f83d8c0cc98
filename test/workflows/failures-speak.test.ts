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
  await h.save(wf('deploy', [{ id: 'hook', type: 'trigger.webhook', config: { secret: 'open' } }, { id: 'build', type: 'command', config: { command: 'echo built' } }], [{ from: 'hook', to: 'build' }]));
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
