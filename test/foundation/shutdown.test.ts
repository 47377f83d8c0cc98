import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { startTestEngine, tempDir } from '../support/engine.js';

test('a clean shutdown lets live runs end as stopped, and the next engine lists them so', async () => {
  const home = await tempDir();
  try {
    const t = await startTestEngine({ home });
    const run = t.engine.runs.start({ source: 'test' });
    // The owner honours the signal (a little later, as real work unwinds), as every long operation must.
    run.signal.addEventListener('abort', () => setTimeout(() => void run.finish('stopped'), 50));
    await t.close();
    const next = await startTestEngine({ home });
    try {
      const listed = (await next.api('GET', '/api/runs')).body.runs.find((r: any) => r.runId === run.id);
      assert.equal(listed.status, 'stopped');
      const kinds = (await next.api('GET', `/api/runs/${run.id}/events`)).body.events.map((e: any) => e.kind);
      assert.deepEqual(kinds, ['run.started', 'run.stopped']);
    } finally {
      await next.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
