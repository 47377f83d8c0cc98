/**
 * Bypasses end to end through a real engine, its real run_shell tool and its gate, with only the narrow
 * rules the seed uses as examples (`run_shell(git status:*)`, `run_shell(ls:*)`): every command below
 * must get a prompt (denied here) or a hard refusal, never a run. Each would leave a marker file in the
 * temporary workspace, or delete the victim folder there, if it ran.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { backgroundCall, requested } from '../permissions/gate-support.js';

let t: TestEngine;
let events: EventCollector;
let workspace: string;

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
  workspace = t.engine.fence.root('workspace').path;
  await mkdir(path.join(workspace, 'victim', 'deep'), { recursive: true });
  await writeFile(path.join(workspace, 'victim', 'deep', 'keep.txt'), 'keep');
  execFileSync('git', ['init', '-q', workspace]);
  await writeFile(path.join(workspace, 'git'), '#!/bin/sh\ntouch m-dotgit\n', { mode: 0o755 });
  for (const key of ['run_shell(git status:*)', 'run_shell(ls:*)']) {
    assert.equal((await t.api('POST', '/api/permissions/rule', { key, decision: 'allow' })).status, 200);
  }
});
after(async () => {
  events.close();
  await t.close();
});

const PROMPTED = [
  "x='a[$(touch m-arith)]'; ls; ((x))",
  "p='$(touch m-prompt)'; ls ${p@P}",
  'ls <<EOF\n$(touch m-heredoc)\nEOF',
  "git 'grep' -O'touch m-quoted' status",
  'ls > ../m-outside',
  'ls >> .git/hooks/post-checkout',
  "git -c core.fsmonitor='touch m-config' status",
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch m-env' git status",
  'git --config-env=core.fsmonitor=HOME status',
  'ls $(touch m-subst)',
  'ls; git -p status',
  // A file named git in the workspace is not PATH's git: the `git status` rule does not cover it.
  './git status',
];

const REFUSED = [
  'ls; rm --rec victim',
  "ls; echo 'rm -rf victim' | sh",
  'ls; find victim -delete',
  "ls; $'\\u0072'm -rf victim",
  'ls; chmod --recur 0 victim',
  // The denylist reads here-document bodies, wrapped deleters, and interpreter code it can see.
  'ls <<E\n`rm -rf victim`\nE',
  'ls; find victim -exec env rm -f {} +',
  "ls; python3 -c \"import shutil; shutil.rmtree('victim')\"",
  "ls; node -e \"require('fs').rmSync('victim', { recursive: true })\"",
  'ls; python3 - <<E\nimport shutil\nshutil.rmtree("victim")\nE',
  'ls; make -f /dev/stdin <<E\nall:\n\trm -rf victim\nE',
  "ls; mapfile -C 'rm -rf victim #' -c 1 <<< x",
  // Two here-documents on one line fail the grammar; the fallback lexer still reads their bodies.
  'cat <<E1; ls <<E2\na\nE1\n`rm -rf victim`\nE2',
];

test('ordinary commands under the narrow rules run without a prompt', async () => {
  for (const command of ['git status', 'ls -la', 'ls > listing.txt']) {
    const c = backgroundCall(t, 'run_shell', { command });
    const out = await c.outcome;
    assert.equal(out.isError, false, `${command}: ${out.text}`);
    assert.ok(!events.events.some(requested(c.callId)), command);
    await c.done();
  }
});

test('every bypass gets a fresh prompt, and a denied prompt runs nothing', async () => {
  for (const command of PROMPTED) {
    const c = backgroundCall(t, 'run_shell', { command });
    const ev = await events.waitFor(requested(c.callId));
    assert.equal(ev.class, 'code', command);
    const res = await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
    assert.equal(res.status, 200, command);
    assert.equal((await c.outcome).isError, true, command);
    await c.done();
  }
  const markers = (await readdir(workspace)).filter((n) => n.startsWith('m-'));
  assert.deepEqual(markers, []);
  assert.ok(!existsSync(path.join(path.dirname(workspace), 'm-outside')));
  assert.ok(!existsSync(path.join(workspace, '.git', 'hooks', 'post-checkout')));
});

test('every denylist evasion is refused without a prompt, and the victim folder stays', async () => {
  for (const command of REFUSED) {
    const c = backgroundCall(t, 'run_shell', { command });
    const out = await c.outcome;
    assert.equal(out.isError, true, command);
    assert.match(out.text, /hard denylist, which no permission rule can lift/, command);
    assert.ok(!events.events.some(requested(c.callId)), command);
    await c.done();
  }
  assert.ok(existsSync(path.join(workspace, 'victim', 'deep', 'keep.txt')));
});

test('always saves only the literal keys the prompt showed, and never a key holding a secret', async () => {
  const c = backgroundCall(t, 'run_shell', { command: 'mysqldump --password hunter2 db' });
  const ev = await events.waitFor(requested(c.callId));
  assert.equal(ev.key, 'run_shell(mysqldump:*)');
  assert.ok(!JSON.stringify(ev).includes('hunter2'));
  await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
  await c.outcome;
  await c.done();

  // A program named like a secret: the prompt shows its key masked, and `always` is refused.
  const secret = backgroundCall(t, 'run_shell', { command: 'ls; ./sk-ant-abcdefghijklmnop1234 run' });
  const prompt = await events.waitFor(requested(secret.callId));
  assert.ok(!JSON.stringify(prompt).includes('abcdefghijklmnop1234'), JSON.stringify(prompt));
  const refused = await t.api('POST', '/api/permissions/resolve', { runId: secret.run.id, callId: secret.callId, decision: 'allow', scope: 'always' });
  assert.equal(refused.status, 400);
  assert.match(JSON.stringify(refused.body), /secret-shaped value/);
  assert.ok(!JSON.stringify(refused.body).includes('abcdefghijklmnop1234'));

  // A program only known at run time: nothing literal to save.
  const dynamic = backgroundCall(t, 'run_shell', { command: 'ls; $TOOL run' });
  await events.waitFor(requested(dynamic.callId));
  const none = await t.api('POST', '/api/permissions/resolve', { runId: dynamic.run.id, callId: dynamic.callId, decision: 'allow', scope: 'always' });
  assert.equal(none.status, 400);
  assert.match(JSON.stringify(none.body), /only known when the shell runs it/);
  await t.api('POST', '/api/permissions/resolve', { runId: dynamic.run.id, callId: dynamic.callId, decision: 'deny' });
  await dynamic.outcome;
  await dynamic.done();
  await t.api('POST', '/api/permissions/resolve', { runId: secret.run.id, callId: secret.callId, decision: 'deny' });
  await secret.outcome;
  await secret.done();

  const bad = await t.api('POST', '/api/permissions/rule', { key: 'run_shell(deploy sk-ant-abcdefghijklmnop1234:*)', decision: 'allow' });
  assert.equal(bad.status, 400);
  const listed = JSON.stringify((await t.api('GET', '/api/permissions')).body);
  assert.ok(!listed.includes('hunter2') && !listed.includes('sk-ant-abcdefghijklmnop1234'), listed);
  assert.ok(!t.logs.join('\n').includes('hunter2'));
});
