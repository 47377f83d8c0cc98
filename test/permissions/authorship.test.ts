/** The author's view of an unattended call (src/permissions/authorship.ts), rule by rule. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authorRefusal, modelAuthor } from '../../src/permissions/authorship.js';
import type { Authority, ModelAuthor } from '../../src/kernel/provenance.js';
import type { PermissionRequest } from '../../src/tools/types.js';

const author = (mode: 'ask' | 'allow', rules: ModelAuthor['rules'] = []): ModelAuthor => ({ by: 'model', mode, rules, at: '2026-01-01T00:00:00Z' });
const wf = (a: ModelAuthor): Authority[] => [{ kind: 'workflow', id: 'w', author: a }];
const req = (cls: PermissionRequest['class'], key: string, extra: Partial<PermissionRequest> = {}): PermissionRequest => ({ class: cls, key, ...extra });
const refuse = (auth: Authority[], r: PermissionRequest, current: ModelAuthor['rules'] = [], keys = [r.key]) => authorRefusal(auth, 'tool', r, keys, current);

test('what would have prompted the author is refused; `other` and an allow-mode author are not', () => {
  assert.match(refuse(wf(author('ask')), req('delete', 'delete_file'))!, /a model wrote workflow "w"; tool \(delete_file\) needs a person's approval \(it deletes\)/);
  assert.match(refuse(wf(author('ask')), req('code', 'run_shell(rm:*)'))!, /it runs code or changes data/);
  assert.equal(refuse(wf(author('ask')), req('other', 'read_file')), undefined);
  assert.equal(refuse(wf(author('allow')), req('delete', 'delete_file')), undefined);
});

test('a rule counts only when the author had it and it still holds', () => {
  const had = author('ask', [{ key: 'run_shell(git:*)', decision: 'allow' }]);
  const call = req('code', 'run_shell(git status:*)');
  assert.equal(refuse(wf(had), call, [{ key: 'run_shell(git:*)', decision: 'allow' }]), undefined, 'had it, still there');
  assert.ok(refuse(wf(had), call, []), 'a person removed it since');
  assert.ok(refuse(wf(author('ask')), call, [{ key: 'run_shell(git:*)', decision: 'allow' }]), 'a rule added later is not the author\'s');
  assert.ok(refuse(wf(had), req('code', 'run_shell(git status:*)', { keys: ['run_shell(git status:*)', 'run_shell(curl:*)'] }), [{ key: 'run_shell(git:*)', decision: 'allow' }], ['run_shell(git status:*)', 'run_shell(curl:*)']), 'every key must be covered');
});

test('a forced prompt passes only an allow-mode author; a protected path only the author\'s own rule for it', () => {
  assert.ok(refuse(wf(author('ask')), req('code', 'run_shell(eval:*)', { forcePrompt: 'eval runs text as code' })));
  assert.equal(refuse(wf(author('allow')), req('code', 'run_shell(eval:*)', { forcePrompt: 'eval runs text as code' })), undefined);
  const protectedWrite = req('code', 'protected_path(.git)', { protectedPath: '.git is protected' });
  assert.ok(refuse(wf(author('allow')), protectedWrite), 'allow mode does not pass a protected path');
  const rule = [{ key: 'protected_path(.git)', decision: 'allow' as const }];
  assert.equal(refuse(wf(author('ask', rule)), protectedWrite, rule), undefined);
});

test('every author in the chain must agree', () => {
  const chain: Authority[] = [...wf(author('allow')), { kind: 'skill', id: 'tidy', author: author('ask') }];
  assert.match(refuse(chain, req('delete', 'delete_file'))!, /a model wrote skill "tidy".*PUT \/api\/skills\/tidy/);
});

test('the author a call stamps: its mode only when a person watches, and no more than the authors it runs under', () => {
  const rules = [
    { key: 'delete_file', decision: 'allow' as const },
    { key: 'run_shell(git:*)', decision: 'allow' as const },
    { key: 'web_fetch', decision: 'deny' as const },
  ];
  const chat = modelAuthor({ runId: 'r1', sessionId: 's', attended: true }, rules, 'allow');
  assert.equal(chat.mode, 'allow');
  assert.deepEqual(chat.rules, rules);
  assert.equal(modelAuthor({ attended: false }, rules, 'allow').mode, 'ask', 'nobody watching is ask');
  const under = modelAuthor({ attended: true, authors: wf(author('allow', [{ key: 'run_shell(git:*)', decision: 'allow' }])) }, rules, 'allow');
  assert.equal(under.mode, 'allow');
  assert.deepEqual(under.rules.map((r) => r.key), ['run_shell(git:*)', 'web_fetch'], 'allow rules the outer author lacked are dropped; deny rules stay');
  assert.equal(modelAuthor({ attended: true, authors: wf(author('ask')) }, rules, 'allow').mode, 'ask');
});
