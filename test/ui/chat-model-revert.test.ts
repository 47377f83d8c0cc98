/**
 * Issue 40, the chat page in Chromium, as a person: the session's model is picked in the page (a bad
 * id gets the engine's sentence) and the model server is asked for it; a turn that changed files
 * offers its revert behind a question, a turn that changed nothing offers none; the Files page asks
 * before a revert and its checkpoint list does not move under the pointer.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { isolateGitHome } from '../git/helpers.js';

describe('the chat page: model picker and reverting a turn', () => {
  let h: ChatHarness;
  let b: TestBrowser;
  let notes: string;
  before(async () => {
    await isolateGitHome();
    h = await startChat('openai-compatible');
    const providers = [
      { type: 'openai-compatible', name: 'scripted', baseUrl: h.model.baseUrl, model: 'scripted-model' },
      { type: 'openai-compatible', name: 'second', baseUrl: h.model.baseUrl, model: 'second-model' },
    ];
    assert.equal((await h.t.api('PUT', '/api/config', { providers, defaultProvider: 'scripted' })).status, 200);
    notes = path.join(h.t.home, 'workspace', 'notes.txt');
    b = await openBrowser({ viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  const open = async (session: string) => {
    await b.page.goto(`${h.t.url}/chat/${session}`);
    await b.page.waitForSelector('[data-connection=live]');
  };
  const say = async (message: string, answer: string) => {
    await b.page.getByPlaceholder(/^Message…/).fill(message);
    await b.page.keyboard.press('Enter');
    await b.page.getByText(answer).waitFor();
  };

  it('the session’s model is picked in the page; a bad model id gets the engine’s sentence', async () => {
    await open('ui-model');
    const picker = b.page.getByLabel('Model', { exact: true });
    assert.equal(await picker.locator('option:checked').innerText(), 'Default: scripted · scripted-model');
    await picker.selectOption({ label: 'second · second-model' });
    h.model.script({ text: 'Answered by the second.' });
    await say('hello', 'Answered by the second.');
    assert.equal(h.model.requests.at(-1)!.body.model, 'second-model');

    await picker.selectOption({ label: 'Other model…' });
    await b.page.getByLabel('Model id').fill('two words');
    await b.page.getByRole('button', { name: 'Use' }).click();
    await b.page.getByRole('alert').filter({ hasText: 'model must be a model id the provider serves' }).waitFor();
    await b.page.getByLabel('Model id').fill('big-model');
    await b.page.getByRole('button', { name: 'Use' }).click();
    await b.page.getByLabel('Model id').waitFor({ state: 'detached' });
    assert.equal(await picker.locator('option:checked').innerText(), 'second · big-model');
    h.model.script({ text: 'Answered by the big one.' });
    await say('again', 'Answered by the big one.');
    assert.equal(h.model.requests.at(-1)!.body.model, 'big-model');

    await b.page.reload();
    await b.page.getByText('Answered by the big one.').waitFor();
    await b.page.waitForFunction(`document.querySelector('select[aria-label=Model]')?.selectedOptions[0]?.textContent === 'second · big-model'`);
  });

  it('a turn that changed files offers its revert behind a question; a turn that changed nothing offers none', async () => {
    await writeFile(notes, 'v1\n');
    await open('ui-revert');
    await b.page.getByRole('button', { name: 'allow', exact: true }).click();
    h.model.script({ toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'v2\n' } }] }, { text: 'Wrote version two.' });
    await say('write v2', 'Wrote version two.');
    h.model.script({ toolCalls: [{ name: 'run_shell', args: { command: 'cat notes.txt' } }] }, { text: 'Only looked.' });
    await say('look at it', 'Only looked.');
    assert.equal(await b.page.locator('[data-turn-changes]').count(), 1, 'only the turn that changed a file');
    const changes = b.page.locator('.msg', { hasText: 'Wrote version two.' }).locator('[data-turn-changes]');
    assert.match(await changes.innerText(), /This turn changed files in the workspace\./);
    await changes.getByRole('button', { name: 'Show changes' }).click();
    await changes.locator('[data-diff] .add', { hasText: '+v2' }).waitFor();

    await changes.getByRole('button', { name: 'Revert this turn…' }).click();
    const dialog = b.page.getByRole('dialog', { name: 'Revert the changes of this turn?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /saved as a checkpoint first, so this can be undone/);
    await b.shot('chat-revert-question');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await readFile(notes, 'utf8'), 'v2\n', 'Cancel changes nothing');

    await changes.getByRole('button', { name: 'Revert this turn…' }).click();
    await b.page.getByRole('dialog').getByRole('button', { name: 'Revert', exact: true }).click();
    await changes.getByText('Reverted 1 file to how they were before this turn.').waitFor();
    assert.equal(await readFile(notes, 'utf8'), 'v1\n');
    await changes.getByRole('button', { name: 'Undo the revert' }).click();
    await changes.getByRole('button', { name: 'Revert this turn…' }).waitFor();
    assert.equal(await readFile(notes, 'utf8'), 'v2\n');
  });

  it('the Files page asks before a revert, and a checkpoint made meanwhile does not move the list under the pointer', async () => {
    await b.page.goto(`${h.t.url}/files`);
    await b.page.getByRole('button', { name: 'git', exact: true }).click();
    const rows = b.page.locator('[data-checkpoint]');
    await rows.first().waitFor();
    const first = rows.first();
    const sha = await first.getAttribute('data-checkpoint');
    await first.hover();
    const before = await first.boundingBox();

    // Another client's turn changes a file: a new checkpoint, while the pointer is on the list.
    h.model.script({ toolCalls: [{ name: 'write_file', args: { path: 'other.txt', content: 'from the API\n' } }] }, { text: 'done' });
    const seq = h.lastSeq();
    assert.equal((await h.send('api-client', 'write other', { permissionMode: 'allow' })).status, 202);
    await h.turnEnd('api-client', seq);
    await b.page.getByRole('button', { name: '1 newer checkpoint: show' }).waitFor();
    assert.equal(await rows.first().getAttribute('data-checkpoint'), sha, 'the row under the pointer is the same');
    assert.deepEqual(await rows.first().boundingBox(), before, 'and it did not move');

    await rows.first().getByRole('button', { name: 'Revert…' }).click();
    const dialog = b.page.getByRole('dialog', { name: /^Revert .+ to this checkpoint\?$/ });
    await dialog.waitFor();
    await b.shot('files-revert-question');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const reverts = async () => (await h.t.api('GET', '/api/git/checkpoints')).body.checkpoints.filter((c: { reason: string }) => c.reason === `before revert to ${sha!.slice(0, 12)}`).length;
    assert.equal(await reverts(), 0, 'Cancel reverts nothing');
    await b.page.locator(`[data-checkpoint="${sha}"]`).getByRole('button', { name: 'Revert…' }).click();
    await b.page.getByRole('dialog').getByRole('button', { name: 'Revert', exact: true }).click();
    await b.page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await reverts(), 1);
    // Once the pointer leaves, the newer checkpoints join the list.
    await b.page.mouse.move(5, 5);
    await b.page.getByRole('button', { name: /newer checkpoint/ }).waitFor({ state: 'detached' });
    assert.notEqual(await rows.first().getAttribute('data-checkpoint'), sha);
    assert.deepEqual(b.refused, []);
  });
});
