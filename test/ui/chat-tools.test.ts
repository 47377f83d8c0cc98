/**
 * Issue 40, the chat page in Chromium, as a person: a command's output streams into its tool card
 * and its result stays after a reload; a failed call and a command that exits non-zero look so, with
 * the error; a file edit shows its diff; a model's markdown is drawn and none of its HTML reaches
 * the page. Screenshots at 1400 x 900 and 390 x 844 go to test-artifacts/web/.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { isolateGitHome } from '../git/helpers.js';
import { connected, EVERYTHING, stdio, waitForMcp } from '../mcp/support.js';

describe('the chat page: tool cards and markdown', () => {
  let h: ChatHarness;
  let b: TestBrowser;
  before(async () => {
    await isolateGitHome();
    h = await startChat('openai-compatible');
    b = await openBrowser({ viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  /** Opens a session, lets tools run without asking, sends `message`. */
  const ask = async (session: string, message: string) => {
    await b.page.goto(`${h.t.url}/chat/${session}`);
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.getByRole('button', { name: 'allow', exact: true }).click();
    await b.page.getByPlaceholder(/^Message…/).fill(message);
    await b.page.keyboard.press('Enter');
  };
  const card = (tool: string) => b.page.locator(`.tool-card[data-tool="${tool}"]`);

  it('a command’s output streams into its card while it runs, and the card keeps the result after a reload', async () => {
    h.model.script(
      { toolCalls: [{ name: 'run_shell', args: { command: 'for i in 1 2 3; do echo "building step $i"; sleep 0.7; done; echo all-built' } }] },
      { text: 'The **build** finished.' },
    );
    await ask('ui-build', 'build it');
    // The command, readable, and what it printed so far while the card still says it runs.
    const head = b.page.getByRole('button', { name: /run_shell.*\$ for i in 1 2 3/ });
    await head.waitFor();
    await b.page.locator('.tool-card.running [data-output]', { hasText: 'building step 1' }).waitFor();
    assert.equal(await card('run_shell').locator('.badge', { hasText: 'running…' }).count(), 1);
    await b.shot('chat-live-output');
    await b.page.locator('.msg.assistant strong', { hasText: 'build' }).waitFor();
    assert.match(await card('run_shell').innerText(), /building step 3[\s\S]*all-built/);

    await b.page.reload();
    await b.page.getByText('The build finished.').waitFor();
    const saved = b.page.getByRole('button', { name: /run_shell/ });
    assert.equal(await saved.getAttribute('aria-expanded'), 'false', 'a finished call starts closed');
    assert.match(await saved.innerText(), /lines/);
    await saved.click();
    const result = await card('run_shell').locator('.tool-result').innerText();
    assert.match(result, /^exit 0\n[\s\S]*building step 2[\s\S]*all-built/);
  });

  it('a long output draws its last 1 000 lines, and Show all draws every line the card kept', async () => {
    // 1 500 short lines fit one shell.output event (8 000 characters), so the page gets every one.
    h.model.script({ toolCalls: [{ name: 'run_shell', args: { command: 'seq 1 1500' } }] }, { text: 'Counted.' });
    await ask('ui-long-output', 'count');
    await b.page.getByText('Counted.').waitFor();
    const head = card('run_shell').getByRole('button', { name: /run_shell/ });
    if ((await head.getAttribute('aria-expanded')) === 'false') await head.click(); // a call that ended before it was seen running starts closed
    const out = card('run_shell').locator('[data-output]');
    const note = out.getByText(/^\[\d+ earlier lines not shown\]$/);
    await note.waitFor();
    const drawn = async () => (await out.innerText()).split('\n').filter((l) => /^\d+$/.test(l)).length;
    const hidden = Number(/\d+/.exec(await note.innerText())![0]);
    assert.ok((await drawn()) <= 1100, `${await drawn()} lines drawn`);
    assert.equal((await drawn()) + hidden, 1500, 'every line is drawn or behind Show all');
    assert.match(await out.innerText(), /\n1500\s*$/);
    await out.getByRole('button', { name: 'Show all' }).click();
    await out.getByRole('button', { name: 'Show all' }).waitFor({ state: 'hidden' });
    assert.equal(await drawn(), 1500);
  });

  it('an MCP tool’s progress shows in its card while it runs', async () => {
    assert.equal((await h.t.api('PUT', '/api/mcp', { mcpServers: { everything: stdio(EVERYTHING, 'stdio') } })).status, 200);
    await waitForMcp(h.t, connected('everything'), 'the everything server');
    h.model.script({ toolCalls: [{ name: 'everything_trigger-long-running-operation', args: { duration: 4, steps: 4 } }] }, { text: 'The long operation ended.' });
    await ask('ui-progress', 'run the long operation');
    await card('everything_trigger-long-running-operation').locator('.tool-progress', { hasText: /step [12] of 4/ }).waitFor();
    assert.equal(await card('everything_trigger-long-running-operation').locator('progress').getAttribute('max'), '4');
    await b.page.getByText('The long operation ended.').waitFor();
  });

  it('a failed call is marked failed with its error, and a command that exits non-zero shows its code, after a reload too', async () => {
    await writeFile(path.join(h.t.home, 'workspace', 'notes.txt'), 'one\n');
    h.model.script(
      {
        toolCalls: [
          { name: 'edit_file', args: { path: 'notes.txt', old_string: 'not there', new_string: 'x' } },
          { name: 'run_shell', args: { command: 'echo "tests: 2 failed" >&2; exit 4' } },
        ],
      },
      { text: 'Both went wrong.' },
    );
    await ask('ui-fail', 'try it');
    await b.page.getByText('Both went wrong.').waitFor();
    await b.page.locator('[data-live]').waitFor({ state: 'detached' }); // the turn's row became its saved messages
    for (const pass of ['live', 'reloaded']) {
      const edit = card('edit_file');
      await edit.locator('.badge', { hasText: 'failed' }).waitFor(); // one badge (strict), the failed call says so
      assert.match(await edit.locator('.tool-result.error').innerText(), /old_string occurs 0 times in notes\.txt/);
      const shell = card('run_shell');
      await shell.locator('.badge', { hasText: 'exit 4' }).waitFor(); // the exit code shows
      assert.match(await shell.innerText(), /tests: 2 failed/);
      if (pass === 'live') {
        await b.page.reload();
        await b.page.getByText('Both went wrong.').waitFor();
      }
    }
  });

  it('edit_file and write_file cards show the unified diff of what they changed', async () => {
    await writeFile(path.join(h.t.home, 'workspace', 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    h.model.script(
      {
        toolCalls: [
          { name: 'edit_file', args: { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' } },
          { name: 'write_file', args: { path: 'docs/intro.md', content: '# Intro\nHello.\n' } },
        ],
      },
      { text: 'Changed `b` and wrote the intro.' },
    );
    await ask('ui-diff', 'change b');
    await b.page.getByText('and wrote the intro').waitFor();
    const diff = card('edit_file').locator('[data-diff]');
    assert.equal(await diff.locator('.del', { hasText: '-const b = 2;' }).count(), 1);
    assert.equal(await diff.locator('.add', { hasText: '+const b = 20;' }).count(), 1);
    assert.match(await card('edit_file').getByRole('button').innerText(), /edit_file\s+app\.ts/);
    assert.equal(await card('write_file').locator('[data-diff] .add', { hasText: '+# Intro' }).count(), 1);
    await b.page.reload();
    await card('edit_file').locator('[data-diff] .add', { hasText: '+const b = 20;' }).waitFor();
  });

  it('a reply’s markdown is drawn, and no HTML of a model reaches the page', async () => {
    const requested: string[] = [];
    b.page.on('request', (r) => void requested.push(r.url()));
    const reply = [
      'I checked **Linux** and `uname -a`.',
      '',
      '| os | kernel |',
      '|---|---|',
      '| Debian | 6.1 |',
      '',
      '```sh',
      'echo <b>not bold</b>',
      '```',
      '',
      '<img src="x" onerror="window.__xss = 1">',
      '',
      '<script>window.__xss = 2</script>',
      '',
      '[click me](javascript:window.__xss=3) or [the docs](https://example.com/docs)',
      '',
      '![tracking pixel](https://example.invalid/pixel.png)',
    ].join('\n');
    h.model.script({ text: reply });
    await ask('ui-md', 'what system is this?');
    const msg = b.page.locator('.msg.assistant').filter({ hasText: 'I checked' });
    await msg.waitFor();
    assert.equal(await msg.locator('strong').innerText(), 'Linux');
    assert.equal(await msg.locator('code', { hasText: 'uname -a' }).count(), 1);
    assert.equal(await msg.locator('td', { hasText: 'Debian' }).count(), 1);
    assert.equal(await msg.locator('pre code').innerText(), 'echo <b>not bold</b>');
    // The HTML is text on the page, never elements.
    assert.equal(await msg.locator('img, script, iframe, b').count(), 0);
    assert.match(await msg.innerText(), /<img src="x" onerror="window.__xss = 1">/);
    assert.match(await msg.innerText(), /<script>window.__xss = 2<\/script>/);
    // Links: only the web ones open; a javascript: link is plain text.
    assert.equal(await msg.getByRole('link', { name: 'click me' }).count(), 0);
    const docs = msg.getByRole('link', { name: 'the docs' });
    assert.equal(await docs.getAttribute('href'), 'https://example.com/docs');
    assert.equal(await docs.getAttribute('target'), '_blank');
    // An image is a link to open, not a fetch the model can make the page do.
    assert.equal(await msg.getByRole('link', { name: 'image: tracking pixel' }).getAttribute('href'), 'https://example.invalid/pixel.png');
    await msg.getByText('click me').click();
    assert.equal(await b.page.evaluate('window.__xss'), undefined);
    assert.ok(!requested.some((u) => u.includes('example.invalid')), 'the image was never requested');
    assert.deepEqual(b.errors.filter((e) => !e.startsWith('Failed to load resource')), [], 'no script error on the page');
    await b.shot('chat-markdown');
  });

  it('looks right at 1400 x 900 and on a 390 x 844 phone (screenshots)', async () => {
    // One turn with all of it: commands, a diff, a failed edit, a markdown answer.
    await writeFile(path.join(h.t.home, 'workspace', 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    h.model.script(
      { text: 'Let me look first.', toolCalls: [{ name: 'run_shell', args: { command: 'ls && echo "tests: 12 passed"' } }, { name: 'read_file', args: { path: 'app.ts' } }] },
      {
        toolCalls: [
          { name: 'edit_file', args: { path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' } },
          { name: 'edit_file', args: { path: 'app.ts', old_string: 'nope', new_string: 'x' } },
        ],
      },
      { text: 'I changed **b** to `20` in `app.ts`:\n\n- the edit is above\n- one edit failed: its text was not in the file\n\n| file | change |\n|---|---|\n| app.ts | b = 20 |' },
    );
    await ask('ui-demo', 'Set b to 20 in app.ts');
    const reply = b.page.locator('.msg.assistant').filter({ hasText: 'I changed' });
    await reply.locator('td', { hasText: 'b = 20' }).waitFor();
    await b.page.locator('[data-diff] .add', { hasText: '+const b = 20;' }).waitFor();
    // The failed edit's card may be drawn a frame after the reply on a loaded machine.
    await b.page.locator('.tool-card.failed[data-tool="edit_file"]').first().waitFor();
    assert.equal(await b.page.locator('.tool-card.failed[data-tool="edit_file"]').count(), 1);
    await b.page.mouse.move(0, 0);
    await b.shot('chat-tools-1400');
    const phone = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
    const { token } = JSON.parse(await readFile(path.join(h.t.home, 'mobile-token.json'), 'utf8'));
    try {
      await phone.page.goto(`${h.t.url}/m/chat/ui-build#token=${token}`);
      await phone.page.getByText('The build finished.').waitFor();
      await phone.page.getByRole('button', { name: /run_shell/ }).click();
      await phone.page.locator('.tool-result').waitFor();
      // Nothing is wider than the phone: the command wraps inside its card.
      const overflow = await phone.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.equal(overflow, 0);
      await phone.shot('chat-tools-390');
      await phone.page.goto(`${h.t.url}/m/chat/ui-diff`);
      await phone.page.locator('.tool-card[data-tool="edit_file"] [data-diff]').waitFor();
      await phone.shot('chat-diff-390');
    } finally {
      await phone.close();
    }
    assert.deepEqual(b.refused, []);
  });
});
