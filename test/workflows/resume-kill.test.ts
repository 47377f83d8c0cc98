/** Resume after kill -9 of the real engine process mid-node: same run id, same log, completed nodes restored, the interrupted one rerun and reported lossy. */
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { until } from '../support/patience.js';
import { ENGINE_PID, SERVING, spawnServe } from '../support/process.js';

async function api(url: string, method: string, route: string, body?: unknown) {
  const res = await fetch(url + route, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test('kill -9 mid-command: the run is interrupted, resume restores the completed nodes and reruns the command under the same run id', async () => {
  const home = await tempDir();
  const workspace = path.join(home, 'workspace');
  await mkdir(path.join(home, 'workflows'), { recursive: true });
  await writeFile(
    path.join(home, 'workflows', 'durable.json'),
    JSON.stringify({
      id: 'durable',
      formatVersion: 2,
      group: null,
      state: { steps: { reducer: 'append' } },
      nodes: [
        { id: 'hook', type: 'trigger.webhook', config: { secret: 'k' } },
        { id: 'a', type: 'state', config: { key: 'steps', value: 'a:{{trigger.tag}}' } },
        { id: 'b', type: 'command', config: { command: 'if [ -f marker ]; then echo second; else echo first > marker; sleep 60; fi' } },
        { id: 'c', type: 'state', config: { key: 'steps', value: 'c after {{nodes.b.output.output}}' } },
      ],
      edges: [
        { from: 'hook', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    }),
  );
  const engine = spawnServe(home);
  try {
    const first = await engine.waitForLine(SERVING);
    const [, url1] = first.match;
    // The engine process, not the supervisor (whose pid the first line names): the supervisor restarts it.
    const pid1 = (await engine.waitForLine(ENGINE_PID, { from: first.index })).match[1];
    assert.equal((await api(url1, 'PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
    const fired = await api(url1, 'POST', '/hooks/durable?secret=k', { tag: 'x1' });
    assert.equal(fired.status, 202, JSON.stringify(fired.body));
    const runId: string = fired.body.runId;
    // The command has started once its marker exists; then the engine dies without a chance to write anything.
    await until('the command to write its marker', () => stat(path.join(workspace, 'marker')).catch(() => undefined));
    process.kill(Number(pid1), 'SIGKILL');

    // The supervisor starts a new engine on the same home.
    const second = await engine.waitForLine(SERVING, { from: first.index + 1, timeoutMs: 60_000 });
    const [, url2] = second.match;
    const pid2 = (await engine.waitForLine(ENGINE_PID, { from: second.index })).match[1];
    assert.notEqual(pid2, pid1);
    const listed = (await api(url2, 'GET', '/api/runs')).body.runs.find((r: any) => r.runId === runId);
    assert.equal(listed.status, 'interrupted');

    const resumed = await api(url2, 'POST', `/api/runs/${runId}/resume`);
    assert.equal(resumed.status, 202, JSON.stringify(resumed.body));
    assert.equal(resumed.body.ok, true);
    assert.equal(resumed.body.runId, runId);
    assert.equal(resumed.body.workflowId, 'durable');
    assert.deepEqual([...resumed.body.restored].sort(), ['a', 'hook']);
    assert.deepEqual(resumed.body.rerun, ['b']);
    assert.deepEqual(resumed.body.lossy, ['b'], 'a command that had started may have left side effects');
    assert.ok(resumed.body.steps > 5);
    const live = (await api(url2, 'GET', '/api/runs')).body.runs.find((r: any) => r.runId === runId);
    assert.ok(['running', 'completed'].includes(live.status), `a resumed run is not listed as interrupted (${live.status})`);
    assert.equal((await api(url2, 'POST', `/api/runs/${runId}/resume`)).status, 409, 'a running (or ended) run cannot be resumed');

    // The rerun command starts a login shell: seconds on a busy machine, so the wait scales with it.
    let status = '';
    await until('the resumed run to end', async () => {
      status = (await api(url2, 'GET', '/api/runs')).body.runs.find((r: any) => r.runId === runId).status;
      return status === 'completed' || status === 'failed';
    });
    assert.equal(status, 'completed');
    const events = (await api(url2, 'GET', `/api/runs/${runId}/events`)).body.events as any[];
    const kinds = events.map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'run.interrupted').length, 1);
    assert.equal(events.filter((e) => e.kind === 'node.completed' && e.nodeId === 'a').length, 1, 'a completed node is not rerun');
    assert.equal(events.filter((e) => e.kind === 'node.started' && e.nodeId === 'b').length, 2, 'the interrupted node reran');
    const steps = events.filter((e) => e.kind === 'state.updated' && e.key === 'steps').at(-1).value;
    assert.equal(steps.length, 2);
    assert.equal(steps[0], 'a:x1', 'state restored from the log, then written on');
    // A login shell may print its own start-up notes first (pyenv cannot rehash in the read-only home).
    assert.match(steps[1], /^c after (.*\n)?second$/s);
    const file = await readFile(path.join(home, 'runs', `${runId}.jsonl`), 'utf8');
    assert.equal(file.trim().split('\n').length, events.length, 'one log, appended to');
    assert.equal((await api(url2, 'POST', `/api/runs/${runId}/resume`)).status, 409, 'an ended run cannot be resumed');
    assert.equal((await api(url2, 'POST', '/api/runs/run-1-1/resume')).status, 404);
  } finally {
    engine.kill('SIGTERM');
    await engine.exited;
    await rm(home, { recursive: true, force: true });
  }
});
