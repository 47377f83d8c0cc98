/**
 * Runs started with a shared log (the gateway's completions) write their events into one file for
 * their kind, read back per run; a run left live by a dead engine is marked interrupted in that file.
 */
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { LIMITS } from '../../src/kernel/limits.js';
import { tempDir } from '../support/engine.js';
import { ledgerAt } from '../support/ledger.js';

test('shared run log: one file for many runs, each run reads back only its own events', async () => {
  const root = await tempDir();
  const runs = await ledgerAt(root);
  const a = runs.start({ source: 'gateway', title: 'a', sharedLog: 'gateway' });
  const b = runs.start({ source: 'gateway', title: 'b', sharedLog: 'gateway' });
  a.emit('token.usage', { input: 3, output: 1, cached: 0, reasoning: 0 });
  b.emit('token.usage', { input: 7, output: 2, cached: 0, reasoning: 0 });
  await b.finish('completed');
  await a.finish('failed', { error: 'upstream went away' });

  const kinds = async (id: string) => (await runs.events(id)).map((e) => `${e.kind}:${e.runId === id}`);
  assert.deepEqual(await kinds(a.id), ['run.started:true', 'token.usage:true', 'run.failed:true']);
  assert.deepEqual(await kinds(b.id), ['run.started:true', 'token.usage:true', 'run.completed:true']);
  const files = await readdir(path.join(root, 'runs'));
  assert.ok(files.includes('gateway-1.jsonl'));
  assert.deepEqual(files.filter((f) => f.startsWith('run-')), [], 'no file of their own per run');
  assert.equal(runs.record(a.id)?.usage.input, 3);
  assert.equal(runs.record(b.id)?.log, 'gateway-1');
  assert.throws(() => runs.start({ source: 'x', sharedLog: '../escape' }), /lowercase letters/);

  // A run still live when the engine dies, and a torn last line: the next ledger mends the file and
  // marks the run interrupted in the shared log; the finished runs keep their events.
  const c = runs.start({ source: 'gateway', title: 'c', sharedLog: 'gateway' });
  runs.flushSync();
  await appendFile(path.join(root, 'runs', 'gateway-1.jsonl'), '{"kind":"torn');
  const next = await ledgerAt(root);
  assert.equal(next.record(c.id)?.status, 'interrupted');
  assert.deepEqual((await next.events(c.id)).map((e) => e.kind), ['run.started', 'run.interrupted']);
  assert.equal((await next.events(b.id)).length, 3);
  const text = await readFile(path.join(root, 'runs', 'gateway-1.jsonl'), 'utf8');
  text.trim().split('\n').forEach((line) => assert.doesNotThrow(() => JSON.parse(line), 'every line whole'));
  // The next engine writes a segment of its own.
  const d = next.start({ source: 'gateway', title: 'd', sharedLog: 'gateway' });
  assert.equal(next.record(d.id)?.log, 'gateway-2');
  await d.finish('completed');
  await next.close();
  await runs.close();
});

test('shared run log: a full segment gives way to the next, and each run still reads back its own events', async () => {
  const root = await tempDir();
  const runs = await ledgerAt(root);
  const perSegment = LIMITS.sharedRunLogRuns;
  const started = Array.from({ length: perSegment + 2 }, (_, i) => runs.start({ source: 'gateway', title: `r${i}`, sharedLog: 'gateway' }));
  for (const run of started) await run.finish('completed');
  assert.equal(runs.record(started[perSegment - 1]!.id)?.log, 'gateway-1');
  assert.equal(runs.record(started[perSegment]!.id)?.log, 'gateway-2');
  for (const run of [started[0]!, started[perSegment]!, started.at(-1)!]) {
    assert.deepEqual((await runs.events(run.id)).map((e) => e.kind), ['run.started', 'run.completed']);
  }
  const files = (await readdir(path.join(root, 'runs'))).filter((f) => f.startsWith('gateway'));
  assert.deepEqual(files.sort(), ['gateway-1.jsonl', 'gateway-2.jsonl']);
  assert.equal((await readFile(path.join(root, 'runs', 'gateway-2.jsonl'), 'utf8')).trim().split('\n').length, 4, 'two runs, two lines each');
  await runs.close();
});
