/**
 * Issue 22 §4: a permission prompt masks literal credentials in the command a person is shown,
 * through the real engine, its run_shell tool and its gate; the code around them stays visible
 * (masking never hides what a command runs).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { backgroundCall, requested } from '../permissions/gate-support.js';

let t: TestEngine;
let events: EventCollector;
before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
});
after(async () => {
  events.close();
  await t.close();
});

const PW = 'hunter2pw';
/** Each command carries the password PW literally; `shown` must still be in the prompt. */
const CASES: Array<{ command: string; shown: string }> = [
  { command: `curl -u admin:${PW} https://example.com/x`, shown: 'curl -u admin:' },
  { command: `curl -uadmin:${PW} https://example.com/x`, shown: 'https://example.com/x' },
  { command: `curl --user admin:${PW} https://example.com/x`, shown: '--user admin:' },
  { command: `curl https://admin:${PW}@example.com/x`, shown: '@example.com/x' },
  { command: `git clone https://oauth2:${PW}@gitlab.example.com/o/r.git`, shown: 'gitlab.example.com/o/r.git' },
  { command: `mysql -uroot -p${PW} app -e 'select 1'`, shown: "select 1" },
  { command: `mysqldump -u root -p'${PW}' app > dump.sql`, shown: 'dump.sql' },
  { command: `curl -H 'Authorization: Bearer ${PW}abcdef' https://api.example.com`, shown: 'Authorization:' },
  { command: `curl -H "Authorization: Basic ${Buffer.from(`a:${PW}`).toString('base64')}" https://api.example.com`, shown: 'https://api.example.com' },
  { command: `curl -H 'Cookie: session=${PW}' https://example.com`, shown: 'Cookie:' },
  { command: `PGPASSWORD=${PW} psql -h db -c 'select 1'`, shown: 'psql -h db' },
  { command: `psql postgresql://app:${PW}@db/app -c 'select 1'`, shown: '@db/app' },
  { command: `sshpass -p ${PW} ssh deploy@host uptime`, shown: 'ssh deploy@host uptime' },
  { command: `redis-cli -a ${PW} ping`, shown: 'ping' },
  { command: `ldapsearch -x -D cn=admin -w ${PW} -b dc=x`, shown: 'ldapsearch' },
  { command: `smbclient //host/share -U admin%${PW}`, shown: '//host/share' },
  { command: `zip -P ${PW} out.zip notes.txt`, shown: 'out.zip notes.txt' },
  { command: `7z a -p${PW} out.7z notes.txt`, shown: 'out.7z' },
  { command: `docker login -u me -p ${PW} registry.example.com`, shown: 'registry.example.com' },
  { command: `wget --password=${PW} https://example.com/f`, shown: 'https://example.com/f' },
  { command: `curl -d 'password=${PW}' https://example.com/login && echo $(id -u)`, shown: 'echo $(id -u)' },
];

test('a prompt shows the command with every literal credential masked, and the code around it', async () => {
  for (const { command, shown } of CASES) {
    const c = backgroundCall(t, 'run_shell', { command });
    const ev = await events.waitFor(requested(c.callId));
    const text = JSON.stringify(ev);
    assert.ok(!text.includes(PW), `${command} -> ${ev.display}`);
    assert.ok(!text.includes(Buffer.from(`a:${PW}`).toString('base64')), `${command} -> ${ev.display}`);
    assert.ok(String(ev.display).includes(shown), `${command} -> ${ev.display}`);
    assert.match(String(ev.display), /\*\*\*/, command);
    await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
    await c.outcome;
    await c.done();
  }
});

test('code that computes a credential is shown, not masked', async () => {
  const command = 'curl -u "admin:$(cat ~/.pw)" https://example.com/x';
  const c = backgroundCall(t, 'run_shell', { command });
  const ev = await events.waitFor(requested(c.callId));
  assert.ok(String(ev.display).includes('$(cat ~/.pw)'), String(ev.display));
  await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
  await c.outcome;
  await c.done();
});

test('issue 38 §3: the prompt shows the command that runs, the password alone hidden', async () => {
  for (const [command, display] of [
    ['curl -u admin:pw;touch x', 'curl -u admin:***;touch x'],
    ['curl --password=x&&touch y', 'curl --password=***&&touch y'],
    ['PGPASSWORD=hunter2 psql -h db;touch z', 'PGPASSWORD=*** psql -h db;touch z'],
  ]) {
    const c = backgroundCall(t, 'run_shell', { command });
    const ev = await events.waitFor(requested(c.callId));
    assert.equal(ev.display, display);
    const pending = (await t.api('GET', '/api/permissions/pending')).body.pending.find((p: { callId: string }) => p.callId === c.callId);
    assert.equal(pending.display, display);
    await t.api('POST', '/api/permissions/resolve', { runId: c.run.id, callId: c.callId, decision: 'deny' });
    await c.outcome;
    await c.done();
  }
});
