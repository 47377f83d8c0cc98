/** The pruning policy: per root, the newest N and nothing older than the age bound, but never the first or last checkpoint of a live run. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCheckpoints, type CheckpointService } from '../../src/capabilities/git/checkpoints.js';
import { Bus } from '../../src/kernel/bus.js';
import { Fence } from '../../src/kernel/fence.js';
import { Home } from '../../src/kernel/home.js';
import { RunLedger } from '../../src/kernel/runs.js';
import { tempDir } from '../support/engine.js';
import { write } from './helpers.js';

describe('checkpoint pruning', () => {
  let dir: string;
  let home: Home;
  let runs: RunLedger;
  let cps: CheckpointService;
  let clock = Date.now();
  const HOUR = 3600_000;

  before(async () => {
    dir = await tempDir('git-prune-');
    home = new Home(dir);
    await home.ensure();
    runs = new RunLedger(home, new Bus());
    await runs.init();
    const fence = new Fence(home.path('workspace'), () => []);
    cps = createCheckpoints({ home, fence, runs, emit: () => undefined, memoryDir: home.path('memory'), policy: { kept: 2, maxAgeMs: 24 * HOUR }, now: () => clock });
    await cps.init();
  });
  after(async () => {
    await cps.close();
    await runs.close();
    await rm(dir, { recursive: true, force: true });
  });

  const refs = () =>
    execFileSync('git', ['for-each-ref', '--format=%(objectname)', 'refs/checkpoints/'], {
      env: { ...process.env, GIT_DIR: path.join(dir, 'checkpoints', 'shadows', execFileSync('ls', [path.join(dir, 'checkpoints', 'shadows')], { encoding: 'utf8' }).split('\n').find((n) => n.startsWith('workspace-'))!) },
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .sort();

  it('keeps the newest per root and the first and last checkpoint of a live run; drops the refs of the others', async () => {
    const done = runs.start({ source: 'test' });
    const live = runs.start({ source: 'test' });
    const snap = async (runId: string, n: number) => {
      write(home.path('workspace'), { 'f.txt': `${runId} ${n}\n` });
      clock += 1000;
      return (await cps.snapshot({ runId, roots: ['workspace'], reason: `step ${n}` }))[0].sha;
    };
    const b = [await snap(done.id, 1), await snap(done.id, 2)];
    await done.finish('completed');
    const a = [await snap(live.id, 1), await snap(live.id, 2), await snap(live.id, 3), await snap(live.id, 4)];
    const kept = cps.list().map((c) => c.sha);
    // newest two: a[2], a[3]; the live run's first: a[0]. Everything of the finished run is gone.
    assert.deepEqual(kept, [a[0], a[2], a[3]]);
    assert.deepEqual(refs(), [...kept].sort());
    for (const sha of [...b, a[1]]) await assert.rejects(cps.revert(sha), /no checkpoint/);
    // runChanges still starts at the live run's first checkpoint
    const changes = await cps.runChanges(live.id);
    assert.match(changes.diff, new RegExp(`-${live.id} 1\\n\\+${live.id} 4`));
    await live.finish('completed');
  });

  it('drops checkpoints older than the age bound, except those a live run still needs', async () => {
    const live = runs.start({ source: 'test' });
    write(home.path('workspace'), { 'f.txt': 'aged\n' });
    const first = (await cps.snapshot({ runId: live.id, roots: ['workspace'], reason: 'first' }))[0].sha;
    clock += 25 * HOUR;
    write(home.path('workspace'), { 'f.txt': 'later\n' });
    const later = (await cps.snapshot({ runId: live.id, roots: ['workspace'], reason: 'later' }))[0].sha;
    // every older checkpoint has aged out; the live run's first and last stay
    assert.deepEqual(cps.list().map((c) => c.sha), [first, later]);
    await live.finish('completed');
    clock += 25 * HOUR;
    const other = runs.start({ source: 'test' });
    const newest = (await cps.snapshot({ runId: other.id, roots: ['workspace'], reason: 'newest' }))[0].sha;
    assert.deepEqual(cps.list().map((c) => c.sha), [newest]);
    await other.finish('completed');
  });

  it('a lock left by an engine killed mid-snapshot does not block the next engine; the list survives the restart', async () => {
    const shadows = path.join(dir, 'checkpoints', 'shadows');
    const shadow = readdirSync(shadows).find((n) => n.startsWith('workspace-'))!;
    writeFileSync(path.join(shadows, shadow, 'index.lock'), '');
    const kept = cps.list().map((c) => c.sha);
    const fence = new Fence(home.path('workspace'), () => []);
    const again = createCheckpoints({ home, fence, runs, emit: () => undefined, memoryDir: home.path('memory'), now: () => clock });
    await again.init();
    assert.deepEqual(again.list().map((c) => c.sha), kept);
    const live = runs.start({ source: 'test' });
    write(home.path('workspace'), { 'f.txt': 'after restart\n' });
    const made = await again.snapshot({ runId: live.id, roots: ['workspace'], reason: 'after restart' });
    assert.equal(made.length, 1);
    await live.finish('completed');
    await again.close();
  });

  it('the engine dying mid-call keeps the pending checkpoint of a root the call changed, and drops the others', async () => {
    const dying = runs.start({ source: 'test' });
    await cps.beforeWrite(dying.id); // the after-call half never runs: the engine dies in the call
    write(home.path('workspace'), { 'f.txt': 'written by the call the engine died in\n' });
    assert.deepEqual(cps.list({ runId: dying.id }), [], 'nothing is shown before a change is seen');
    await runs.close();
    const restarted = new RunLedger(home, new Bus());
    await restarted.init();
    assert.ok(restarted.interruptedAtStart.some((r) => r.runId === dying.id));
    const again = createCheckpoints({ home, fence: new Fence(home.path('workspace'), () => []), runs: restarted, emit: () => undefined, memoryDir: home.path('memory'), now: () => clock });
    await again.init();
    const kept = again.list({ runId: dying.id });
    assert.deepEqual(kept.map((c) => c.root), ['workspace'], 'the memory folder did not change');
    await again.revert(kept[0].sha);
    assert.equal(readFileSync(path.join(home.path('workspace'), 'f.txt'), 'utf8'), 'after restart\n');
    await again.close();
    await restarted.close();
    runs = new RunLedger(home, new Bus()); // for after()
    await runs.init();
  });
});
