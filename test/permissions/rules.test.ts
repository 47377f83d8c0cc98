/** Rule matching: exact keys, program keys covering subcommand keys, bare tool names covering derived keys. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { broaderOf, covers, decide } from '../../src/permissions/rules.js';

test('covers', () => {
  const yes: Array<[string, string]> = [
    ['run_shell(git status:*)', 'run_shell(git status:*)'],
    ['run_shell(git:*)', 'run_shell(git status:*)'],
    ['run_shell(git:*)', 'run_shell(git:*)'],
    ['run_shell', 'run_shell(rm:*)'],
    ['db_query', 'db_query(main)'],
    ['db_query(main)', 'db_query(main)'],
    ['delete_file', 'delete_file'],
  ];
  const no: Array<[string, string]> = [
    ['run_shell(git status:*)', 'run_shell(git:*)'],
    ['run_shell(git:*)', 'run_shell(gitk:*)'],
    ['run_shell(git s:*)', 'run_shell(git status:*)'],
    ['run_shell(git:*)', 'other_tool(git status:*)'],
    ['db_query(main)', 'db_query(mainx)'],
    ['db_query', 'db_query_x(main)'],
    ['run', 'run_shell(ls:*)'],
  ];
  for (const [rule, key] of yes) assert.equal(covers(rule, key), true, `${rule} should cover ${key}`);
  for (const [rule, key] of no) assert.equal(covers(rule, key), false, `${rule} should not cover ${key}`);
});

test('newest covering rule decides', () => {
  const rules = [
    { key: 'run_shell(git push:*)', decision: 'deny' as const },
    { key: 'run_shell(git:*)', decision: 'allow' as const },
  ];
  assert.equal(decide(rules, 'run_shell(git push:*)'), 'deny');
  assert.equal(decide(rules, 'run_shell(git status:*)'), 'allow');
  assert.equal(decide(rules, 'run_shell(ls:*)'), undefined);
});

test('broaderOf', () => {
  assert.equal(broaderOf('run_shell(git status:*)'), 'run_shell(git:*)');
  assert.equal(broaderOf('run_shell(git:*)'), undefined);
  assert.equal(broaderOf('db_query(main)'), undefined);
});
