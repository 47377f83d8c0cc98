/**
 * Issue 38 §3, through the real engine: a command that prints a stored secret in another spelling
 * (a hex dump splitting it over two lines, base32, upper case, rot13, spaced letters, reversed)
 * hands none of it to an event or the run's log (the answer itself reaches a model only through the
 * provider client, which passes the same mask: test/security/secret-masking.test.ts).
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { backgroundCall } from '../permissions/gate-support.js';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { collectEvents, type EventCollector } from '../support/events.js';

const VALUE = 'S3cr3t-Encoded-Value-77';
let t: TestEngine;
let events: EventCollector;

before(async () => {
  t = await startTestEngine();
  events = await collectEvents(t.url);
  assert.equal((await t.api('POST', '/api/secrets', { name: 'deploy.key', value: VALUE })).status, 200);
  assert.equal((await t.api('POST', '/api/permissions/rule', { key: 'run_shell', decision: 'allow' })).status, 200);
  // 10 bytes before the value: xxd's 16-byte lines cut it after 6 characters.
  await writeFile(path.join(t.home, 'workspace', 'deploy.env'), `KEY=abcde${VALUE}\n`);
});
after(async () => {
  events.close();
  await t.close();
});

test('hex dumps, base32, case, rot13, spaced and reversed copies of a stored secret leave in no event or log', async () => {
  const commands = [
    'xxd deploy.env',
    'xxd -p -c 16 deploy.env',
    'hexdump -C deploy.env',
    'od -x deploy.env',
    'base32 -w0 deploy.env',
    "tr a-z A-Z < deploy.env",
    "tr a-zA-Z n-za-mN-ZA-M < deploy.env",
    "sed 's/./& /g' deploy.env",
    'rev deploy.env',
  ];
  const c = backgroundCall(t, 'run_shell', { command: commands.join('; echo; ') });
  const out = await c.outcome;
  assert.equal(out.isError, false, out.text);
  await c.done();
  const log = (await t.api('GET', `/api/runs/${c.run.id}/events`)).body.events;
  const result = events.events.find((e) => e.kind === 'tool.result' && e.runId === c.run.id);
  assert.ok(result, 'the tool.result event was seen');
  const pieces = [VALUE.slice(0, 6), VALUE.slice(6), VALUE.toUpperCase(), Buffer.from(VALUE).toString('hex').slice(0, 12)];
  for (const [where, text] of [
    ['the events', JSON.stringify(events.events.filter((e) => e.runId === c.run.id))],
    ['the run log', JSON.stringify(log)],
  ] as const) {
    for (const piece of pieces) assert.ok(!text.includes(piece), `${where} holds ${piece}`);
    // Every dump of the file still shows the bytes around the value.
    assert.match(text, /4b45 593d|4b 45 59 3d|454b 3d59|KEY=abcde/i, where);
  }
  assert.ok((JSON.stringify(result).match(/\*\*\*/g) ?? []).length >= 5, JSON.stringify(result));
});
