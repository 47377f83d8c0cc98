/**
 * Nothing lost, once per tick, and the embedded default untouched (issue 43): kill -9 of the engine
 * executing a two-node run, finished by another engine under the same id with the resume semantics
 * recorded; the workspace shared by path (both homes' `workspace` is the same folder); a cron every
 * two seconds fires once per tick across three engines; an engine without a URL writes its home.
 */
import assert from 'node:assert/strict';
import { readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { collectEvents } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { ENGINE_PID, SERVING, spawnNode } from '../support/process.js';
import { poolEngine, postgresPerFile, until } from './support.js';

const { skip, database, server } = postgresPerFile();

/** A home whose workspace is the shared folder (the same path on every machine of the pool). */
async function homeOn(shared: string): Promise<string> {
  const home = await tempDir();
  await symlink(shared, path.join(home, 'workspace'));
  return home;
}

test('kill -9 of the engine running a two-node run: another engine finishes it under the same id, restored, rerun and lossy recorded; the workspace is shared by path', { skip, timeout: 240_000 }, async () => {
  const url = await database('takeover');
  const shared = await tempDir('engine-shared-ws-');
  const doc = {
    id: 'two-step',
    formatVersion: 2,
    group: null,
    nodes: [
      { id: 'hook', type: 'trigger.webhook', config: { secret: 'k' } },
      // First time: leaves a marker and sleeps (the engine dies here); after the takeover it sees the marker.
      { id: 'a', type: 'command', config: { command: 'if [ -f marker ]; then echo second; else echo first > marker; sleep 120; fi' } },
      { id: 'b', type: 'command', config: { command: 'cat marker; echo finished > done' } },
    ],
    edges: [
      { from: 'hook', to: 'a' },
      { from: 'a', to: 'b' },
    ],
  };
  // The doomed engine is a real process (kill -9 must hit a whole engine), the only worker at first.
  const doomedHome = await homeOn(shared);
  const doomed = spawnNode(['src/main.ts', 'serve', '--no-supervisor', '--concurrency', '1'], {
    ENGINE_PORT: '0',
    ENGINE_GATEWAY_PORT: '0',
    ENGINE_HOME: doomedHome,
    ENGINE_SECRETS: 'file',
    ENGINE_DATABASE_URL: url,
  });
  let heir: TestEngine | undefined;
  let watcher: TestEngine | undefined;
  try {
    const serving = await doomed.waitForLine(SERVING, { timeoutMs: 90_000 });
    const pid = Number((await doomed.waitForLine(ENGINE_PID, { from: serving.index })).match[1]);
    assert.ok(!doomed.lines.join('\n').includes(server().password), 'the URL is not printed');
    // One that serves only, watching: it sees the whole story on its socket.
    watcher = await poolEngine(url, { worker: false });
    const events = await collectEvents(watcher.url);
    assert.equal((await watcher.api('PUT', '/api/workflows/two-step', doc)).status, 200);
    assert.equal((await watcher.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
    await until('the doomed engine knows the workflow', async () => (await fetch(`${serving.match[1]}/api/workflows`).then((r) => r.json())).some((w: any) => w.id === 'two-step'));
    const fired = await watcher.api('POST', '/hooks/two-step?secret=k', { n: 1 });
    assert.equal(fired.status, 202, JSON.stringify(fired.body));
    const runId: string = fired.body.runId;
    const first = await events.waitFor((e) => e.runId === runId && e.kind === 'run.started', 60_000);
    const doomedWorker = first.worker;
    assert.ok(doomedWorker, 'run.started names its worker');
    // The command runs on the doomed engine, in the shared folder.
    await until('the first command started', () => stat(path.join(shared, 'marker')).then(() => true, () => false));
    // A second worker joins, then the first dies without a word.
    heir = await poolEngine(url, { concurrency: 1, home: await homeOn(shared) });
    const heirWorker = (await heir.api('GET', '/api/status')).body.worker;
    process.kill(pid, 'SIGKILL');
    await doomed.exited;

    const resumed = await events.waitFor((e) => e.runId === runId && e.kind === 'run.started' && e.takenOver === true, 60_000);
    assert.equal(resumed.worker, heirWorker);
    assert.notEqual(resumed.worker, doomedWorker);
    assert.deepEqual(resumed.rerun, ['a']);
    assert.deepEqual(resumed.lossy, ['a'], 'a command that had started may have left side effects');
    assert.ok(Array.isArray(resumed.restored));
    const done = await events.waitFor((e) => e.runId === runId && (e.kind === 'run.completed' || e.kind === 'run.failed'), 60_000);
    assert.equal(done.kind, 'run.completed', JSON.stringify(done));
    assert.equal((await readFile(path.join(shared, 'done'), 'utf8')).trim(), 'finished');
    const log = (await heir.api('GET', `/api/runs/${runId}/events`)).body.events.map((e: any) => e.kind);
    assert.deepEqual(log.filter((k: string) => k.startsWith('run.')), ['run.started', 'run.interrupted', 'run.started', 'run.completed']);
    // The watcher's list follows the runs table's own announcement, which may come after the event.
    const listed = await until('the watcher lists the run as ended', async () => {
      const run = (await watcher!.api('GET', '/api/runs')).body.runs.find((r: any) => r.runId === runId);
      return run && run.status !== 'running' && run;
    });
    assert.equal(listed.status, 'completed');
    assert.equal(listed.worker, heirWorker);
    events.close();
  } finally {
    doomed.kill('SIGKILL');
    await heir?.close();
    await watcher?.close();
  }
});

test('a clean stop hands a running workflow run to another engine, which finishes it under the same id; alone, an engine stops its runs', { skip, timeout: 180_000 }, async () => {
  const url = await database('handover');
  const engines: TestEngine[] = [];
  try {
    for (let i = 0; i < 2; i++) engines.push(await poolEngine(url, { concurrency: 1 }));
    const doc = {
      id: 'long',
      formatVersion: 2,
      group: null,
      state: { after: { reducer: 'replace' } },
      nodes: [
        { id: 'go', type: 'trigger.manual' },
        { id: 'nap', type: 'wait', config: { ms: 4000 } },
        { id: 'then', type: 'state', config: { key: 'after', value: 'done' } },
      ],
      edges: [
        { from: 'go', to: 'nap' },
        { from: 'nap', to: 'then' },
      ],
    };
    assert.equal((await engines[0].api('PUT', '/api/workflows/long', doc)).status, 200);
    await until('both engines list both engines', async () => {
      for (const e of engines) if ((await e.api('GET', '/api/status')).body.pool?.engines?.length !== 2) return false;
      return (await engines[1].api('GET', '/api/workflows/long')).status === 200;
    });
    const runId = (await engines[0].api('POST', '/api/runs/long', {})).body.runId as string;
    const started = await until('the run started on an engine', async () => {
      const log = (await engines[0].api('GET', `/api/runs/${runId}/events`)).body.events;
      return log.find((e: any) => e.kind === 'node.started' && e.nodeId === 'nap') && log.find((e: any) => e.kind === 'run.started');
    });
    const leaving = engines.findIndex((e) => e.engine.pool?.worker === started.worker);
    assert.ok(leaving >= 0, `run.started names a worker of the pool: ${started.worker}`);
    const heir = engines[1 - leaving];
    await engines.splice(leaving, 1)[0].close();
    const log = await until('the heir finished the run', async () => {
      const events = (await heir.api('GET', `/api/runs/${runId}/events`)).body.events;
      return events.some((e: any) => e.kind === 'run.completed' || e.kind === 'run.failed' || e.kind === 'run.stopped') && events;
    });
    assert.deepEqual(
      log.filter((e: any) => e.kind.startsWith('run.')).map((e: any) => e.kind),
      ['run.started', 'run.interrupted', 'run.started', 'run.completed'],
    );
    assert.match(log.find((e: any) => e.kind === 'run.interrupted').reason, /stopped and handed the run on/);
    const resumed = log.filter((e: any) => e.kind === 'run.started')[1];
    assert.equal(resumed.takenOver, true);
    assert.equal(resumed.worker, heir.engine.pool?.worker);
    assert.ok(log.some((e: any) => e.kind === 'state.updated' && e.key === 'after' && e.value === 'done'));

    // The heir, alone in the pool, stops what it runs when it stops: nobody is there to take it.
    const second = (await heir.api('POST', '/api/runs/long', {})).body.runId as string;
    await until('the second run waits', async () => (await heir.api('GET', `/api/runs/${second}/events`)).body.events.some((e: any) => e.kind === 'node.started' && e.nodeId === 'nap'));
    await heir.close();
    engines.length = 0;
    const watcher = await poolEngine(url, { worker: false });
    engines.push(watcher);
    const kinds = (await watcher.api('GET', `/api/runs/${second}/events`)).body.events.map((e: any) => e.kind).filter((k: string) => k.startsWith('run.'));
    assert.deepEqual(kinds, ['run.started', 'run.stopped']);
  } finally {
    for (const e of engines) await e.close();
  }
});

test('a cron every two seconds fires once per tick across a pool of three', { skip, timeout: 180_000 }, async () => {
  const url = await database('crontick');
  const engines: TestEngine[] = [];
  try {
    for (let i = 0; i < 3; i++) engines.push(await poolEngine(url, { concurrency: 2 }));
    const sockets = await Promise.all(engines.map((e) => collectEvents(e.url)));
    const doc = {
      id: 'tick',
      formatVersion: 2,
      group: null,
      disabled: false,
      nodes: [
        { id: 'every', type: 'trigger.cron', config: { expr: '*/2 * * * * *' } },
        { id: 'note', type: 'state', config: { key: 'seen', value: '{{trigger.firedAt}}' } },
      ],
      edges: [{ from: 'every', to: 'note' }],
      state: { seen: { reducer: 'replace' } },
    };
    assert.equal((await engines[0].api('PUT', '/api/workflows/tick', doc)).status, 200);
    // Every engine arms the trigger; let several ticks pass.
    const ticks = await until('four runs of the cron', async () => {
      const runs = (await engines[1].api('GET', '/api/runs')).body.runs.filter((r: any) => r.workflowId === 'tick' && r.status === 'completed');
      return runs.length >= 4 && runs;
    });
    assert.equal((await engines[0].api('PUT', '/api/workflows/tick', { ...doc, disabled: true })).status, 200);
    // A tick that fired as the workflow was disabled may still be running: read the runs once none is.
    const settled = (r: any) => r.status !== 'queued' && r.status !== 'running';
    await until('every run of the cron ended', async () => (await engines[2].api('GET', '/api/runs')).body.runs.filter((r: any) => r.workflowId === 'tick').every(settled));
    const all = (await engines[2].api('GET', '/api/runs')).body.runs.filter((r: any) => r.workflowId === 'tick');
    const fired: string[] = [];
    for (const r of all) {
      const events = (await engines[2].api('GET', `/api/runs/${r.runId}/events`)).body.events;
      const trigger = events.find((e: any) => e.kind === 'state.updated' && e.key === 'trigger');
      if (trigger) fired.push(trigger.value.firedAt);
    }
    assert.ok(ticks.length >= 4);
    assert.equal(new Set(fired).size, fired.length, `one run per tick across the pool, not one per engine: ${fired.join(', ')}`);
    // The other engines' fires of a tick already queued are no skip: no tick that ran is reported
    // "still running". (A tick no engine could queue, its previous run still going on a loaded box, is.)
    const skipped = sockets.flatMap((s) => s.events.filter((e) => e.kind === 'trigger.skipped' && e.workflowId === 'tick'));
    assert.deepEqual(skipped.filter((e) => fired.includes(String(e.firedAt))), [], 'a tick another engine queued is not reported as skipped');
    for (const s of sockets) s.close();
  } finally {
    for (const e of engines) await e.close();
  }
});

test('without a database URL nothing changes: the engine writes its home', { skip }, async () => {
  const t = await startTestEngine();
  try {
    assert.equal(t.engine.pool, undefined);
    assert.equal((await t.api('PUT', '/api/workflows/solo', { id: 'solo', formatVersion: 2, group: null, nodes: [{ id: 'go', type: 'trigger.manual' }], edges: [] })).status, 200);
    const events = await collectEvents(t.url);
    const { runId } = (await t.api('POST', '/api/runs/solo', {})).body;
    const started = await events.waitFor((e) => e.runId === runId && e.kind === 'run.started');
    assert.equal(started.worker, undefined);
    await events.waitFor((e) => e.runId === runId && e.kind === 'run.completed');
    events.close();
    assert.ok(await stat(path.join(t.home, 'workflows', 'solo.json')));
    // The ledger's index line is written in its own batch, which may land just after run.completed.
    await until('the run in runs/index.jsonl', async () => (await readFile(path.join(t.home, 'runs', 'index.jsonl'), 'utf8').catch(() => '')).includes(runId));
    assert.ok(await stat(path.join(t.home, 'runs', `${runId}.jsonl`)));
    const status = (await t.api('GET', '/api/status')).body;
    assert.equal(status.pool, undefined);
  } finally {
    await t.close();
  }
});
