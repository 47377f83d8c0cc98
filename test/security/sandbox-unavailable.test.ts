/**
 * Where no sandbox can start (here: bwrap pointed at a missing file, the test-only knob), the engine
 * says so in GET /api/status, every run_shell prompt says "not sandboxed", and
 * `sandbox.whenUnavailable` decides: `ask` (default) prompts attended calls afresh even under an
 * allow rule and refuses unattended ones; `refuse` refuses all; `run` runs them unsandboxed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { backgroundCall, requested } from '../permissions/gate-support.js';

let t: TestEngine;
let events: EventCollector;
let victims: string;

before(async () => {
  victims = await tempDir('sandbox-unavailable-');
  t = await startTestEngine({ sandbox: { bwrap: path.join(victims, 'no-such-bwrap') } });
  events = await collectEvents(t.url);
  // The narrow allow rule the attack used, and an unattended default of allow: neither may let an
  // unsandboxed command through without a person.
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell(echo:*)', decision: 'allow' })).status, 200);
  assert.equal((await t.api('PUT', '/api/permissions/defaults', { unattended: 'allow' })).status, 200);
});
after(async () => {
  events.close();
  await t.close();
  await rm(victims, { recursive: true, force: true });
});

const setWhen = (whenUnavailable: string) => t.api('PUT', '/api/settings', { sandbox: { whenUnavailable } });

test('GET /api/status says the sandbox is unavailable and why', async () => {
  const { body } = await t.api('GET', '/api/status');
  assert.equal(body.sandbox.available, false);
  assert.equal(body.sandbox.active, false);
  assert.equal(body.sandbox.backend, 'bwrap');
  assert.equal(body.sandbox.mode, 'workspace-write');
  assert.equal(body.sandbox.whenUnavailable, 'ask');
  assert.match(body.sandbox.reason, /bubblewrap \(bwrap\) was not found at .*no-such-bwrap; install it/);
});

test('ask (default), attended: a fresh prompt that says "not sandboxed" even under an allow rule; allowing runs it', async () => {
  const victim = path.join(victims, 'approved');
  await mkdir(victim);
  const c = backgroundCall(t, 'run_shell', { command: `echo approved > ${victim}/file` }, { attended: true });
  const ev = await events.waitFor(requested(c.callId));
  assert.equal(ev.key, 'run_shell(echo:*)');
  assert.match(String(ev.display), /not sandboxed: bubblewrap \(bwrap\) was not found/);
  assert.match(String(ev.reason), /not sandboxed: .*allowing runs it with your full rights/);
  const pending = (await t.api('GET', '/api/permissions/pending')).body.pending;
  assert.ok(pending.some((p: { callId: string; display: string }) => p.callId === c.callId && /not sandboxed/.test(p.display)));
  assert.equal((await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'allow' })).status, 200);
  const out = await c.outcome;
  assert.equal(out.isError, false, out.text);
  assert.equal(await readFile(path.join(victim, 'file'), 'utf8'), 'approved\n');
  await c.done();
});

test('ask (default), unattended: refused with a sentence, whatever the rules and the unattended default say', async () => {
  const victim = path.join(victims, 'unattended');
  await mkdir(victim);
  const c = backgroundCall(t, 'run_shell', { command: `echo ran > ${victim}/file` }, { attended: false });
  const out = await c.outcome;
  assert.equal(out.isError, true);
  assert.match(out.text, /run_shell is refused: no sandbox can start here \(.*\) and nobody is watching this run/);
  assert.ok(!existsSync(path.join(victim, 'file')));
  assert.ok(!events.events.some(requested(c.callId)));
  await c.done();
});

test('refuse: attended calls are refused too, without a prompt', async () => {
  await setWhen('refuse');
  try {
    const c = backgroundCall(t, 'run_shell', { command: 'echo hi' }, { attended: true });
    const out = await c.outcome;
    assert.equal(out.isError, true);
    assert.match(out.text, /sandbox\.whenUnavailable is "refuse"/);
    assert.ok(!events.events.some(requested(c.callId)));
    await c.done();
  } finally {
    await setWhen('ask');
  }
});

test('run: commands run unsandboxed, and a prompt (no rule matches) still says "not sandboxed"', async () => {
  await setWhen('run');
  try {
    const victim = path.join(victims, 'run');
    await mkdir(victim);
    const allowed = backgroundCall(t, 'run_shell', { command: `echo ran > ${victim}/file` }, { attended: false });
    assert.equal((await allowed.outcome).isError, false);
    assert.equal(await readFile(path.join(victim, 'file'), 'utf8'), 'ran\n');
    await allowed.done();
    const c = backgroundCall(t, 'run_shell', { command: 'touch x' }, { attended: true });
    const ev = await events.waitFor(requested(c.callId));
    assert.equal(ev.key, 'run_shell(touch:*)');
    assert.match(String(ev.display), /^touch x\n\[not sandboxed: bubblewrap/);
    assert.equal(ev.reason, undefined);
    await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
    await c.outcome;
    await c.done();
  } finally {
    await setWhen('ask');
  }
});

test('the hard denylist still answers with its own sentence when no sandbox can start', async () => {
  const c = backgroundCall(t, 'run_shell', { command: `rm -rf ${victims}/x` }, { attended: true });
  const out = await c.outcome;
  assert.equal(out.isError, true);
  assert.match(out.text, /hard denylist/);
  await c.done();
});

test('the probe starts bwrap for real: one that exists but cannot make namespaces is unavailable, with its own reason', async (ctx) => {
  // A bwrap wrapper that runs bwrap where user namespaces are disabled (max_user_namespaces=0 in a
  // user namespace of its own: nothing outside the wrapper is touched).
  try {
    execFileSync('unshare', ['--user', '--map-root-user', 'true']);
  } catch {
    ctx.skip('unshare cannot make a user namespace here');
    return;
  }
  const wrapper = path.join(victims, 'bwrap-no-userns');
  await writeFile(wrapper, `#!/bin/sh\nexec unshare --user --map-root-user sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec bwrap --unshare-user "$@"' sh "$@"\n`, { mode: 0o755 });
  const other = await startTestEngine({ sandbox: { bwrap: wrapper } });
  try {
    const { body } = await other.api('GET', '/api/status');
    assert.equal(body.sandbox.available, false);
    assert.match(body.sandbox.reason, /bubblewrap cannot start a sandbox here: bwrap: Creating new namespace failed/);
  } finally {
    await other.close();
  }
});
