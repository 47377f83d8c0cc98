/**
 * The shell bypass corpus (test/security/shell-bypass-corpus.ts, commands as data, never run here)
 * through the real policy and a real gate: under the bare `run_shell` allow rule, which covers every
 * shell key, each §2 case must still get a fresh prompt; each §3 case is refused by the denylist with
 * its usual sentence; no key holds a secret.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Home } from '../../src/kernel/home.js';
import { hardDenied } from '../../src/permissions/denylist.js';
import { PermissionGate } from '../../src/permissions/gate.js';
import { RuleStore } from '../../src/permissions/rules.js';
import { shellPermission } from '../../src/permissions/shell-policy.js';
import { gateOutcome, type Outcome } from '../permissions/corpus-support.js';
import { FORCE, HARD, KEYS, LOOKALIKES, NOT_DENIED, PATH_PROGRAMS } from './shell-bypass-corpus.js';

let gate: PermissionGate;
let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'engine-bypass-'));
  const rules = new RuleStore(new Home(dir));
  await rules.add({ key: 'run_shell', decision: 'allow' });
  gate = new PermissionGate({ rules });
});
after(() => rm(dir, { recursive: true, force: true }));

/** What happens to `command` under the bare run_shell allow rule, attended: allow, force (a fresh prompt) or hard. */
async function outcome(command: string): Promise<Outcome> {
  const request = await shellPermission(command);
  return request.hardDeny ? 'hard' : gateOutcome(gate, request, command);
}

const through: string[] = [];
after(() => {
  const total = FORCE.flatMap((c) => c.commands).length + HARD.flatMap((c) => c.commands).length + KEYS.length;
  console.log(`# shell bypass corpus: ${through.length} of ${total} got through`);
});

for (const c of FORCE) {
  test(`fresh prompt: ${c.class}`, async () => {
    const wrong: string[] = [];
    for (const command of c.commands) {
      const got = await outcome(command);
      if (got !== 'force' && got !== 'hard') wrong.push(`${JSON.stringify(command)} -> ${got}`);
    }
    through.push(...wrong);
    assert.deepEqual(wrong, []);
  });
}

for (const c of HARD) {
  test(`hard denylist: ${c.class}`, async () => {
    const wrong: string[] = [];
    for (const command of c.commands) {
      const request = await shellPermission(command);
      const direct = hardDenied(command);
      if (!request.hardDeny || !direct || !/hard denylist, which no permission rule can lift/.test(direct)) wrong.push(`${JSON.stringify(command)} -> ${request.hardDeny ? 'hard' : await outcome(command)}`);
    }
    through.push(...wrong);
    assert.deepEqual(wrong, []);
  });
}

test('no permission key holds a secret, and a flag value is never a subcommand', async () => {
  const wrong: string[] = [];
  for (const { command, secret } of KEYS) {
    const request = await shellPermission(command);
    const keys = [request.key, ...(request.keys ?? []), request.broaderKey ?? ''];
    if (keys.some((k) => k.includes(secret))) wrong.push(`${JSON.stringify(command)} -> ${keys.join(', ')}`);
  }
  through.push(...wrong);
  assert.deepEqual(wrong, []);
});

test('ordinary look-alikes still run under an allow rule, with no prompt', async () => {
  const wrong: string[] = [];
  for (const command of LOOKALIKES) {
    const got = await outcome(command);
    if (got !== 'allow') wrong.push(`${JSON.stringify(command)} -> ${got}: ${(await shellPermission(command)).forcePrompt ?? ''}`);
  }
  assert.deepEqual(wrong, []);
});

test('a program named by a path is keyed by that path, so a rule for the PATH program never covers it', async () => {
  const wrong: string[] = [];
  for (const { command, key } of PATH_PROGRAMS) {
    const request = await shellPermission(command);
    if (request.key !== key || (request.keys ?? []).some((k) => /\(git|\(ls/.test(k))) wrong.push(`${JSON.stringify(command)} -> ${request.keys?.join(', ')}`);
  }
  assert.deepEqual(wrong, []);
});

test('inline code and here-documents the denylist reads are not refused when they delete nothing', async () => {
  const wrong = NOT_DENIED.filter((command) => hardDenied(command));
  assert.deepEqual(wrong, []);
});
