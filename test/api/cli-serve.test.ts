/** Issue 10 items 8 (first line), 10 (no pairing URL) and 11: the real CLI serving, stopping and its pid file. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { engineVersion } from '../../src/kernel/version.js';
import { until } from '../support/patience.js';
import { ENGINE_PID, SERVING, spawnNode, spawnServe } from '../support/process.js';
import { cliHarness } from '../support/cli.js';

const { procs, home, cli, waitGone } = cliHarness();

test('serve: flags beat variables; the first line is the address really bound and the supervisor pid; the pairing URL of the phone layout', async () => {
  const fromEnv = await home();
  const fromFlag = await home();
  const serve = spawnNode(['src/main.ts', 'serve', '--port', '0', '--bind', '0.0.0.0', '--home', fromFlag], { ENGINE_HOME: fromEnv, ENGINE_BIND: 'not-an-ip', ENGINE_PORT: 'abc', ENGINE_SECRETS: 'file' });
  procs.push(serve);
  const first = await serve.waitForLine(SERVING);
  assert.equal(first.index, 0, 'the address is the first line');
  assert.match(first.match[1], /^http:\/\/0\.0\.0\.0:\d+$/);
  assert.equal(first.match[2], fromFlag);
  assert.equal(Number(first.match[3]), serve.child.pid, 'the printed pid is the supervisor');
  await serve.waitForLine(ENGINE_PID);
  const port = first.match[1].split(':').at(-1);
  // Bound to every interface: the phone layout's pairing URL, its token in the fragment (seed 000 §4.20).
  const pairing = await serve.waitForLine(/pair a phone with (http:\/\/\S+)\/m\/#token=(\S+)$/);
  const stored = JSON.parse(await readFile(path.join(fromFlag, 'mobile-token.json'), 'utf8')).token;
  assert.equal(pairing.match[2], stored);
  assert.equal((await fetch(`http://127.0.0.1:${port}/m/`)).status, 200, 'the printed address answers');
  const about = await (await fetch(`http://127.0.0.1:${port}/api`)).json();
  assert.equal(about.version, engineVersion());
  serve.kill('SIGTERM');
  assert.equal((await serve.exited).code, 0);
  assert.equal(existsSync(path.join(fromEnv, 'engine.pid')), false);
});

test('status and stop read the pid file; stop ends supervisor and engine and removes it', async () => {
  const h = await home();
  const serve = spawnServe(h);
  procs.push(serve);
  const first = await serve.waitForLine(SERVING);
  const enginePid = Number((await serve.waitForLine(ENGINE_PID)).match[1]);
  // Bound to loopback (the default): no phone can reach it, so the engine says how to make one able to.
  await serve.waitForLine(/^engine: to pair a phone, bind to the LAN \(--bind 0\.0\.0\.0 or ENGINE_BIND\) or set up the relay in the workbench's Settings > Phone$/);
  const supervisor = Number(first.match[3]);
  // The pid file follows the ready message; wait for it rather than racing it.
  await until('the pid file', () => existsSync(path.join(h, 'engine.pid')));
  const record = JSON.parse(await readFile(path.join(h, 'engine.pid'), 'utf8'));
  assert.equal(record.pid, supervisor);
  assert.equal(record.enginePid, enginePid);

  const st = await cli(['status', '--home', h]);
  assert.equal(st.code, 0, st.out.join('\n'));
  assert.equal(st.out[0], `engine: running (home ${h})`);
  assert.match(st.out.join('\n'), new RegExp(`pid +${supervisor} \\(supervisor; engine process ${enginePid}\\)`));
  assert.match(st.out.join('\n'), new RegExp(`address +${first.match[1].replace(/[.]/g, '\\.')}/api\\n`));
  assert.match(st.out.join('\n'), new RegExp(`version +${engineVersion().replace(/[.]/g, '\\.')}`));
  assert.match(st.out.join('\n'), /uptime +\d+s/);

  const stopped = await cli(['stop'], { ENGINE_HOME: h });
  assert.equal(stopped.code, 0, stopped.out.join('\n'));
  assert.match(stopped.out[0], new RegExp(`^engine: stopped \\(pid ${supervisor}`));
  assert.equal((await serve.exited).code, 0);
  assert.ok(await waitGone(enginePid), 'the engine process is gone too');
  assert.equal(existsSync(path.join(h, 'engine.pid')), false);
  assert.ok(!serve.lines.some((l) => /restarting/.test(l)));

  const again = await cli(['status', '--home', h]);
  assert.equal(again.code, 3);
  assert.deepEqual(again.out, [`engine: not running (home ${h})`]);
  assert.equal((await cli(['stop', '--home', h])).code, 3);
});

test('killing the printed pid stops everything, without a restart', async () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const h = await home();
    const serve = spawnServe(h);
    procs.push(serve);
    const first = await serve.waitForLine(SERVING);
    const enginePid = Number((await serve.waitForLine(ENGINE_PID)).match[1]);
    process.kill(Number(first.match[3]), signal);
    await serve.exited;
    assert.ok(await waitGone(enginePid), `${signal}: the engine process is gone`);
    assert.ok(!serve.lines.some((l) => /restarting/.test(l)), `${signal}: ${serve.lines.join(' | ')}`);
  }
});

test('a stale pid file (its process gone) is reported and removed; a second serve on a live home is refused', async () => {
  const h = await home();
  const dead = spawn(process.execPath, ['-e', '']);
  await new Promise((ok) => dead.on('exit', ok));
  await writeFile(path.join(h, 'engine.pid'), JSON.stringify({ pid: dead.pid, enginePid: dead.pid, url: 'http://127.0.0.1:1', bind: '127.0.0.1', port: 1, version: '0', startedAt: 0 }));
  const st = await cli(['status', '--home', h]);
  assert.equal(st.code, 3);
  assert.match(st.out[0], /^engine: removed a stale pid file .*pid \d+ is gone/);
  assert.equal(existsSync(path.join(h, 'engine.pid')), false);
  // A pid reused by another program (this test runner) is stale too, and is never signalled.
  await writeFile(path.join(h, 'engine.pid'), JSON.stringify({ pid: process.pid, enginePid: process.pid, url: 'http://127.0.0.1:1', bind: '127.0.0.1', port: 1, version: '0', startedAt: 0 }));
  const reused = await cli(['stop', '--home', h]);
  assert.equal(reused.code, 3);
  assert.match(reused.out[0], /^engine: removed a stale pid file .* now belongs to another program/);

  const serve = spawnServe(h);
  procs.push(serve);
  await serve.waitForLine(ENGINE_PID);
  await until('the pid file', () => existsSync(path.join(h, 'engine.pid')));
  const second = await cli(['serve', '--port', '0', '--home', h]);
  assert.equal(second.code, 78);
  assert.match(second.err[0], /^engine: an engine already runs for home .*engine stop --home /);
  serve.kill('SIGTERM');
  await serve.exited;
});

test('serve --no-supervisor: one process that keeps the pid file; status, stop, and exit 75 on a move of home', async () => {
  const h = await home();
  const serve = spawnNode(['src/main.ts', 'serve', '--no-supervisor'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: h, ENGINE_SECRETS: 'file' });
  procs.push(serve);
  const first = await serve.waitForLine(SERVING);
  const pid = Number(first.match[3]);
  assert.equal(pid, serve.child.pid, 'the printed pid is the process that was started');
  assert.equal(Number((await serve.waitForLine(ENGINE_PID)).match[1]), pid, 'no second process');
  await until('the pid file', () => existsSync(path.join(h, 'engine.pid')));
  const record = JSON.parse(await readFile(path.join(h, 'engine.pid'), 'utf8'));
  assert.deepEqual([record.pid, record.enginePid], [pid, pid]);
  const st = await cli(['status', '--home', h]);
  assert.equal(st.code, 0, st.out.join('\n'));
  assert.match(st.out.join('\n'), new RegExp(`pid +${pid} \\(engine process, no supervisor\\)`));
  const stopped = await cli(['stop', '--home', h]);
  assert.equal(stopped.code, 0, stopped.out.join('\n'));
  assert.equal((await serve.exited).code, 0);
  assert.equal(existsSync(path.join(h, 'engine.pid')), false);

  // A move of home: no supervisor restarts it, so the process exits with the restart code for its manager.
  const other = await home();
  const again = spawnNode(['src/main.ts', 'serve', '--no-supervisor'], { ENGINE_PORT: '0', ENGINE_GATEWAY_PORT: '0', ENGINE_HOME: h, ENGINE_SECRETS: 'file' });
  procs.push(again);
  const up = await again.waitForLine(SERVING);
  const moved = await fetch(`${up.match[1]}/api/home`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: other }) });
  assert.equal(moved.status, 200);
  assert.equal((await again.exited).code, 75);
  assert.ok(again.lines.some((l) => l.includes(`ENGINE_HOME=${other}`)), again.lines.join('\n'));
  assert.equal(existsSync(path.join(h, 'engine.pid')), false);
  assert.equal((await cli(['status', '--no-supervisor'])).code, 2, '--no-supervisor belongs to serve only');
});
