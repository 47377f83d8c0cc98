/**
 * The prompt for `git clean` says what it deletes (issue 39, lower): `-f` untracked files, and `-x`
 * (or `-X`) the ignored ones too, the .env and build output a person keeps out of git on purpose.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellPermission } from '../../src/permissions/shell-policy.js';

test('git clean -x names the ignored files it deletes; -f alone does not', async () => {
  for (const command of ['git clean -fdx', 'git clean -f -x', 'git clean -xdf -e keep', 'git -C repo clean --force -x']) {
    const prompt = (await shellPermission(command)).forcePrompt ?? '';
    assert.match(prompt, /git clean -f deletes untracked files/, command);
    assert.match(prompt, /git clean -x also deletes ignored files \(\.env, builds, node_modules\), which git cannot restore/, command);
  }
  assert.match((await shellPermission('git clean -fX')).forcePrompt ?? '', /git clean -X deletes ignored files \(\.env/);
  for (const command of ['git clean -fd', 'git clean -f -e x', 'git clean -fd -- x']) {
    const prompt = (await shellPermission(command)).forcePrompt ?? '';
    assert.match(prompt, /git clean -f deletes untracked files/, command);
    assert.doesNotMatch(prompt, /ignored files/, command);
  }
});
