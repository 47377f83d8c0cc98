/** Workflows with the git capability: agent and command nodes are checkpointed first; a gate shows the run's diff; the run can be reverted. */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { of, startWf, wf, type WfHarness } from './harness.js';

let h: WfHarness;
before(async () => {
  h = await startWf();
  await writeFile(path.join(h.t.home, 'workspace', 'notes.txt'), 'before the run\n');
  await h.t.engine.permissions.rules.add({ key: 'run_shell', decision: 'allow' });
});
after(() => h?.close());

test('a command node is checkpointed before it runs; the gate shows what the run changed; revert puts the workspace back', async () => {
  await h.save(
    wf(
      'edit-then-review',
      [
        { id: 'start', type: 'trigger.manual' },
        { id: 'edit', type: 'command', config: { command: 'echo "written by the run" > notes.txt' } },
        { id: 'review', type: 'gate', config: { message: 'Keep the edit?' } },
      ],
      [
        { from: 'start', to: 'edit' },
        { from: 'edit', to: 'review' },
      ],
    ),
  );
  const runId = await h.run('edit-then-review');
  const waiting = await h.events.waitFor((e) => e.kind === 'gate.waiting' && e.runId === runId);
  const log = await h.log(runId);
  const checkpoint = of(log, 'checkpoint.created').find((e) => e.nodeId === 'edit');
  assert.ok(checkpoint, 'a checkpoint names the command node');
  const firstExec = log.findIndex((e) => e.kind === 'shell.exec');
  assert.ok(log.indexOf(checkpoint) < firstExec, 'the checkpoint comes before the command ran');
  assert.match(String(waiting.changes), /changes since the run's first checkpoint/);
  assert.match(String(waiting.changes), /-before the run/);
  assert.match(String(waiting.changes), /\+written by the run/);

  const diff = await h.t.api('GET', `/api/git/contextual-diff?mode=run&runId=${runId}`);
  assert.equal(diff.status, 200);
  assert.match(diff.body.diff, /\+written by the run/);

  await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'review', approved: false });
  await h.end(runId);
  const revert = await h.t.api('POST', '/api/checkpoints/revert', { sha: checkpoint.sha });
  assert.equal(revert.status, 200, JSON.stringify(revert.body));
  assert.equal(await readFile(path.join(h.t.home, 'workspace', 'notes.txt'), 'utf8'), 'before the run\n');
});
