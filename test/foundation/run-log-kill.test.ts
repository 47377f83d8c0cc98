/** The run log survives a kill -9 of the engine mid-run with every line whole. */
import assert from 'node:assert/strict';
import { readFile, rm, stat } from 'node:fs/promises';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestEngine, tempDir } from '../support/engine.js';
import { spawnNode } from '../support/process.js';

test('kill -9 mid-run: every log line whole, and the next engine marks the run interrupted', async () => {
  const home = await tempDir();
  const busy = spawnNode(['test/foundation/fixtures/busy-run.ts', home], {});
  try {
    const ready = await busy.waitForLine(/^busy (run-\d+-\d+) (.+)$/);
    const [, runId, logFile] = ready.match;
    // Wait (without a deadline on speed) until batches are landing on disk.
    while ((await stat(logFile).catch(() => ({ size: 0 }))).size < 256 * 1024) await sleep(20);
    busy.kill('SIGKILL');
    assert.equal((await busy.exited).signal, 'SIGKILL');

    // Every complete line parses: batches are written as whole lines.
    const text = await readFile(logFile, 'utf8');
    const complete = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean);
    assert.ok(complete.length > 100, `many events were logged (${complete.length})`);
    complete.forEach((line, i) => assert.doesNotThrow(() => JSON.parse(line), `line ${i + 1} is whole`));
    const seqs = complete.map((l) => JSON.parse(l).i).filter((i) => i !== undefined);
    seqs.forEach((v, i) => assert.equal(v, i, 'no event lost or reordered before the kill point'));

    // A new engine on the same home: the run is interrupted, its log is whole and ends with run.interrupted.
    const next = await startTestEngine({ home });
    try {
      const runs = await next.api('GET', '/api/runs');
      assert.equal(runs.body.runs.find((r: any) => r.runId === runId)?.status, 'interrupted');
      const after = await readFile(logFile, 'utf8');
      assert.ok(after.endsWith('\n'));
      const lines = after.split('\n').filter(Boolean);
      lines.forEach((line, i) => assert.doesNotThrow(() => JSON.parse(line), `line ${i + 1} is whole after recovery`));
      assert.equal(JSON.parse(lines[lines.length - 1]).kind, 'run.interrupted');
      const events = await next.api('GET', `/api/runs/${runId}/events`);
      assert.equal(events.body.events.length, lines.length);
    } finally {
      await next.close();
    }
  } finally {
    busy.kill('SIGKILL');
    await rm(home, { recursive: true, force: true });
  }
});
