/**
 * The web workbench in real Chromium against a real engine with a temp home and the scripted model:
 * a chat turn whose permission prompt is answered in the page, a workflow gate approved from
 * Approvals, a file edited and saved, a 1 000-message session (rows mounted, not time), and no
 * request of the page refused by the guard. Screenshots of each page go to test-artifacts/web/.
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { gateFlow } from '../support/gate-flow.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { writeChatSession } from '../support/chat-fixture.js';
import { tempDir } from '../support/engine.js';
import { git, isolateGitHome, makeRepo } from '../git/helpers.js';

describe('the web workbench in Chromium', () => {
  let h: ChatHarness;
  let b: TestBrowser;
  before(async () => {
    await isolateGitHome(); // the page's commit runs git with a test identity, never the developer's
    const home = await tempDir();
    await writeChatSession(home, 'long', 500, 'A long session');
    h = await startChat('openai-compatible', { home });
    b = await openBrowser();
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  it('serves the workbench at / to a browser, and the page catches up and connects', async () => {
    await b.page.goto(h.t.url + '/');
    await b.page.waitForSelector('[data-connection=live]');
    assert.equal(await b.page.title(), 'Workbench');
    await b.shot('chat-empty');
  });

  it('a chat turn streams, its permission prompt is answered in the page, the tool runs and the answer lands', async () => {
    h.model.script({ text: 'Let me build it.', toolCalls: [{ name: 'test_danger', args: { command: 'make build' } }] }, { text: 'The build passed.' });
    await b.page.goto(h.t.url + '/chat/ui-perm');
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.fill('.composer textarea', 'build it');
    await b.page.keyboard.press('Enter');
    const prompt = await b.page.waitForSelector('.prompt');
    // Exactly what the engine shows: the tool and its display text.
    assert.match(await prompt.innerText(), /test_danger/);
    assert.ok(!h.trace.includes('ran:danger:make build'), 'the call waits for the answer');
    await b.shot('chat-permission');
    await b.page.click('.prompt >> text=Allow once');
    await b.page.waitForSelector('.msg.assistant >> text=The build passed.');
    assert.ok(h.trace.includes('ran:danger:make build'));
    assert.equal(await b.page.locator('.prompt').count(), 0, 'the answered prompt is gone');
    const pending = await h.t.api('GET', '/api/permissions/pending');
    assert.deepEqual(pending.body.pending, []);
    await b.shot('chat-answered');
  });

  it('a message sent while a turn runs is queued; Stop ends the turn and hands the queued message back to the input', async () => {
    h.model.script({ text: 'Thinking about it', hang: true });
    await b.page.goto(h.t.url + '/chat/ui-stop');
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.fill('.composer textarea', 'first question');
    await b.page.keyboard.press('Enter');
    await b.page.waitForSelector('[data-live] >> text=Thinking about it');
    await b.page.fill('.composer textarea', 'second question');
    await b.page.click('.composer >> text=Queue');
    await b.page.waitForSelector('.queued >> text=second question');
    await b.shot('chat-queued');
    await b.page.click('.composer >> text=Stop');
    await b.page.waitForSelector('.msg.assistant >> text=stopped');
    assert.equal(await b.page.locator('.queued').count(), 0);
    assert.match(await b.page.locator('.composer textarea').inputValue(), /second question/);
  });

  it('a failed turn shows the engine’s reason', async () => {
    h.model.script({ error: 401, body: { error: { message: 'invalid api key given', type: 'invalid_request_error' } } });
    await b.page.goto(h.t.url + '/chat/ui-fail');
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.fill('.composer textarea', 'hello');
    await b.page.keyboard.press('Enter');
    const line = await b.page.waitForSelector('.error-line >> text=/invalid api key given/');
    assert.ok(line);
  });

  it('a workflow gate is approved from the Approvals page in one click', async () => {
    const doc = gateFlow('ship', 'Ship the release?', { approved: { id: 'done', type: 'state', config: { key: 'shipped', value: 'yes' } } });
    assert.equal((await h.t.api('PUT', '/api/workflows/ship', doc)).status, 200);
    await b.page.goto(h.t.url + '/workflows/ship');
    await b.page.waitForSelector('svg.graph');
    await b.shot('workflow');
    await b.page.click('text=Run with this payload');
    await b.page.waitForURL(/\/runs\/run-/);
    const runId = decodeURIComponent(b.page.url().split('/runs/')[1]);
    await b.page.waitForSelector('[data-count=approvals]');
    await b.shot('run-waiting');
    await b.page.click('.rail >> text=Approvals');
    const gate = await b.page.waitForSelector(`[data-gate="${runId}:review"]`);
    assert.match(await gate.innerText(), /Ship the release\?/);
    await b.shot('approvals');
    await b.page.click(`[data-gate="${runId}:review"] >> text=Approve`);
    await b.page.waitForSelector('text=Nothing is waiting for you.');
    const end = await h.events.waitFor((e) => e.runId === runId && e.kind === 'run.completed');
    assert.ok(end);
    const log = await h.t.api('GET', `/api/runs/${runId}/events`);
    assert.equal(log.body.events.find((e: any) => e.kind === 'gate.resolved').approved, true);
    // The run page shows each logged event once.
    await b.page.goto(h.t.url + `/runs/${encodeURIComponent(runId)}`);
    await b.page.click('[role=tab] >> text=Event log');
    await b.page.waitForSelector('tr[data-seq]');
    await b.page.waitForFunction((n) => document.querySelectorAll('tr[data-seq]').length >= n, log.body.events.length);
    assert.equal(await b.page.locator('tr[data-seq]').count(), log.body.events.length);
    await b.shot('run');
  });

  it('a run in flight is stopped from its page', async () => {
    const doc = { id: 'slow', formatVersion: 2, group: null, nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'pause', type: 'wait', config: { ms: 600000 } }], edges: [{ from: 'start', to: 'pause' }] };
    assert.equal((await h.t.api('PUT', '/api/workflows/slow', doc)).status, 200);
    const run = await h.t.api('POST', '/api/runs/slow', {});
    await b.page.goto(`${h.t.url}/runs/${run.body.runId}`);
    await b.page.click('[role=tab] >> text=Event log');
    await b.page.waitForSelector('tr >> text=node.started');
    await b.page.click('.page-actions >> text=Stop');
    await b.page.waitForSelector('tr >> text=run.stopped');
    await b.page.waitForSelector('.page-actions .badge.stopped');
  });

  it('a disabled workflow shows what its agents may call, previews its cron, and is enabled in one click', async () => {
    const doc = {
      id: 'nightly',
      formatVersion: 2,
      group: null,
      disabled: true,
      nodes: [
        { id: 'cron', type: 'trigger.cron', config: { expr: '0 2 * * *' } },
        { id: 'fix', type: 'agent', config: { system: 'Fix the failing tests.', prompt: 'fix', tools: ['read_file', 'edit_file'] } },
      ],
      edges: [{ from: 'cron', to: 'fix' }],
    };
    assert.equal((await h.t.api('PUT', '/api/workflows/nightly', doc)).status, 200);
    await b.page.goto(h.t.url + '/workflows/nightly');
    await b.page.waitForSelector('text=This workflow is disabled.');
    await b.page.waitForSelector('li >> text=read_file, edit_file');
    await b.page.waitForSelector('text=/next: /');
    await b.shot('workflow-disabled');
    await b.page.click('text=Enable');
    await b.page.waitForSelector('text=This workflow is disabled.', { state: 'detached' });
    assert.notEqual((await h.t.api('GET', '/api/workflows/nightly')).body.disabled, true);
  });

  it('a notification links to its run', async () => {
    const doc = { id: 'ping', formatVersion: 2, group: null, nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'tell', type: 'notify', config: { title: 'Ping done', body: 'all good' } }], edges: [{ from: 'start', to: 'tell' }] };
    assert.equal((await h.t.api('PUT', '/api/workflows/ping', doc)).status, 200);
    await b.page.goto(h.t.url + '/chat');
    await b.page.waitForSelector('[data-connection=live]');
    const run = await h.t.api('POST', '/api/runs/ping', {});
    await b.page.click('.notes >> text=Ping done');
    await b.page.waitForURL(`**/runs/${run.body.runId}`);
    await b.page.click('[role=tab] >> text=Event log');
    await b.page.waitForSelector('tr >> text=run.completed');
    await h.events.waitFor((e) => e.kind === 'notifications.updated' && e.unreadCount === 0);
  });

  it('a file is opened, edited and saved', async () => {
    const file = path.join(h.t.home, 'workspace', 'notes', 'todo.md');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '# Todo\n\n- first\n');
    await b.page.goto(h.t.url + '/files');
    await b.page.click('button.folder >> text=notes');
    await b.page.click('a.file >> text=todo.md');
    const area = b.page.locator('textarea[aria-label="file text"]');
    await area.waitFor();
    assert.equal(await area.inputValue(), '# Todo\n\n- first\n');
    await area.fill('# Todo\n\n- first\n- second, from the browser\n');
    await b.page.click('.page-actions >> text=Save');
    await b.page.waitForSelector('[data-saved]');
    assert.equal(await readFile(file, 'utf8'), '# Todo\n\n- first\n- second, from the browser\n');
    await b.shot('files');
  });

  it('git: the status, diff and commit of the workspace, from the Files page', async () => {
    const ws = path.join(h.t.home, 'workspace');
    makeRepo(ws, { 'README.md': 'hello\n' });
    await writeFile(path.join(ws, 'README.md'), 'hello, world\n');
    await b.page.goto(h.t.url + '/files');
    await b.page.click('.seg >> text=git');
    await b.page.waitForSelector('.git >> text=README.md');
    await b.page.waitForSelector('.diff .add >> text=+hello, world');
    await b.shot('git');
    await b.page.fill('.git textarea', 'Say hello to the world');
    await b.page.click('.git >> text=Commit');
    await b.page.waitForSelector('.git >> text=Clean.');
    assert.equal(git(ws, 'log', '-1', '--format=%s').trim(), 'Say hello to the world');
  });

  it('Mount folder… asks the OS picker (a fake zenity here) and mounts the folder chosen', async () => {
    const bin = await tempDir('fake-zenity-');
    const chosen = await tempDir('picked-');
    await writeFile(path.join(chosen, 'plan.txt'), 'the plan\n');
    await writeFile(path.join(bin, 'zenity'), `#!/bin/sh\necho "${chosen}"\n`);
    await chmod(path.join(bin, 'zenity'), 0o755);
    const saved = { PATH: process.env.PATH, DISPLAY: process.env.DISPLAY };
    process.env.PATH = `${bin}:${process.env.PATH}`;
    process.env.DISPLAY = ':99';
    try {
      await b.page.goto(h.t.url + '/files');
      await b.page.click('text=Mount folder…');
      const name = path.basename(chosen);
      await b.page.waitForSelector(`button.folder >> text=${name}`);
      await b.page.waitForSelector('a.file >> text=plan.txt');
      const mounts = await h.t.api('GET', '/api/mounts');
      assert.equal(mounts.body.mounts[0].path, chosen);
      await b.shot('files-mounted');
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.DISPLAY === undefined) delete process.env.DISPLAY;
      else process.env.DISPLAY = saved.DISPLAY;
    }
  });

  it('a 1 000-message session paints with at most ~200 rows mounted, and scrolling keeps it so', async () => {
    await b.page.goto(h.t.url + '/chat/long');
    await b.page.waitForSelector('[data-row="long-a499"]');
    const rows = await b.page.locator('[data-row]').count();
    assert.ok(rows > 5 && rows <= 200, `${rows} rows mounted`);
    const measure = await b.page.evaluate(() => performance.getEntriesByName('chat-paint').length);
    assert.ok(measure >= 1, 'the page records its paint time (chat-paint) for the bench');
    await b.shot('chat-long');
    // The newest page comes first; scrolling up brings the older ones, a page at a time.
    for (let page = 1; page < 10; page++) {
      // Pages of 100 messages: before this one, the oldest loaded is question 500 - 50 x page.
      const oldest = `long-u${500 - 50 * page}`;
      await b.page.locator('.messages').evaluate((el) => (el.scrollTop = 0));
      // The older page comes in above, and the view moves down by its height...
      await b.page.waitForFunction(() => document.querySelector('.messages')!.scrollTop > 0);
      // ...so the reader keeps their place: the message that was at the top still is.
      const top = await b.page.evaluate((key) => {
        const list = document.querySelector('.messages')!.getBoundingClientRect().top;
        return (document.querySelector(`[data-row="${key}"]`)?.getBoundingClientRect().top ?? Infinity) - list;
      }, oldest);
      assert.ok(Math.abs(top) < 120, `${oldest}, at the top before the older page came, moved ${top}px`);
    }
    await b.page.locator('.messages').evaluate((el) => (el.scrollTop = 0));
    await b.page.waitForSelector('[data-row="long-u0"]');
    assert.ok((await b.page.locator('[data-row]').count()) <= 200);
  });

  it('vaults: a folder made a vault in the page, a note opened and found by search', async () => {
    const folder = await tempDir('vault-');
    await mkdir(path.join(folder, 'people'), { recursive: true });
    await writeFile(path.join(folder, 'people', 'ada.md'), '# Ada\n\nWrote the first program. See [[babbage]].\n');
    await writeFile(path.join(folder, 'people', 'babbage.md'), '# Babbage\n\nDesigned the engine.\n');
    await b.page.goto(h.t.url + '/vaults');
    await b.page.fill('[aria-label="vault name"]', 'history');
    await b.page.fill('[aria-label="vault folder"]', folder);
    await b.page.click('text=Make vault');
    await b.page.click('.list-item >> text=babbage');
    await b.page.waitForSelector('text=Backlinks:');
    await b.page.fill('input[placeholder="Search notes"]', 'first program');
    await b.page.keyboard.press('Enter');
    await b.page.waitForSelector('.list-item >> text=ada');
    assert.equal(await b.page.locator('.list-item').count(), 1);
    await b.shot('vaults');
  });

  it('boards: a board made, a card added and moved to the next lane', async () => {
    await b.page.goto(h.t.url + '/boards');
    await b.page.click('text=New board');
    await b.page.getByLabel('Board name').fill('Main');
    await b.page.click('text=Create board');
    await b.page.fill('input[placeholder="New card title"]', 'Write the release notes');
    await b.page.click('.board >> text=Add');
    const card = b.page.locator('.card.item', { hasText: 'Write the release notes' });
    await card.waitFor();
    const lanes = b.page.locator('.lane');
    assert.equal(await lanes.nth(0).locator('.card.item').count(), 1);
    await card.locator('text=→').click();
    await lanes.nth(1).locator('.card.item', { hasText: 'Write the release notes' }).waitFor();
    const board = (await h.t.api('GET', '/api/work')).body.boards[0];
    assert.equal(board.items.find((i: any) => i.title === 'Write the release notes').status, board.config.lanes[1].name);
    await b.shot('boards');
  });

  it('databases: a table browsed and a query run', async () => {
    await h.t.api('PUT', '/api/db/connections/app', { engine: 'sqlite', path: 'app.db', writable: true });
    await h.t.api('POST', '/api/db/app/query', { sql: "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada'), ('grace')" });
    await b.page.goto(h.t.url + '/databases');
    await b.page.click('.list-item >> text=app.db');
    await b.page.click('[data-table=users]');
    await b.page.waitForSelector('.grid td >> text=grace');
    assert.equal(await b.page.locator('.grid tbody tr').count(), 2);
    await b.page.fill('textarea[placeholder="SELECT …"]', 'SELECT name FROM users WHERE id = 1');
    await b.page.click('.detail-pane >> text=Run');
    await b.page.waitForSelector('text=1 row');
    assert.deepEqual(await b.page.locator('.grid tbody td').allInnerTexts(), ['ada']);
    await b.shot('databases');
  });

  it('settings: a provider tested with its button', async () => {
    h.model.script({ text: 'pong' });
    await b.page.goto(h.t.url + '/settings');
    await b.page.click('.provider >> text=Test');
    await b.page.waitForSelector('.provider >> text=/ok in \\d+ ms/');
    await b.shot('settings');
  });

  it('every other page renders over the real API', async () => {
    for (const p of ['settings']) {
      await b.page.goto(`${h.t.url}/${p}`);
      await b.page.waitForSelector('h1');
      await b.page.waitForTimeout(200);
      await b.shot(p);
    }
    await b.page.waitForSelector('text=provider.scripted.key'); // settings: the secret by name
  });

  it('dashboards and code maps: a folder mapped from the page, a built dashboard shown in its frame', async () => {
    await mkdir(path.join(h.t.home, 'workspace', 'maps', 'core'), { recursive: true });
    await mkdir(path.join(h.t.home, 'workspace', 'maps', 'web'), { recursive: true });
    await writeFile(path.join(h.t.home, 'workspace', 'maps', 'core', 'cart.ts'), 'export const total = (xs: number[]) => xs.length;\n');
    await writeFile(path.join(h.t.home, 'workspace', 'maps', 'web', 'server.ts'), "import { total } from '../core/cart.js';\nexport const serve = () => total([]);\n");
    assert.equal((await h.t.api('PUT', '/api/dashboards/sales', { name: 'Sales', layout: 2, slots: [{ id: 'n', title: 'Orders', type: 'stat' }], prompt: 'count orders' })).status, 200);
    h.model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'n', type: 'stat', title: 'Orders', data: { value: 42 } }] } }] }, { text: 'published' });
    const built = await h.t.api('POST', '/api/dashboards/sales/run');
    assert.equal(built.status, 202, JSON.stringify(built.body));
    await h.events.waitFor((e) => e.runId === built.body.runId && /^run\.(completed|failed)$/.test(e.kind), 30_000);
    await b.page.goto(h.t.url + '/maps');
    await b.page.waitForSelector('[data-connection=live]');
    await b.page.click('[data-map="dashboard:sales"]');
    const dash = b.page.frameLocator('iframe.doc-frame');
    await dash.locator('text=42').first().waitFor();
    await b.page.fill('input[aria-label="folder to map"]', 'maps');
    await b.page.click('text=Map a folder');
    await b.page.waitForSelector('[data-map="atlas:std-maps"].active');
    const map = b.page.frameLocator('iframe.doc-frame');
    await map.locator('text=Units and their imports').waitFor();
    assert.equal(await map.locator('svg a.node').count(), 2);
    await b.shot('maps');
  });

  it('an API error shows the engine’s sentence', async () => {
    await b.page.goto(h.t.url + '/files/nope/missing.txt');
    await b.page.waitForSelector('.error-line');
    const text = await b.page.locator('.error-line').first().innerText();
    const api = await h.t.api('GET', '/api/files/nope/missing.txt');
    assert.equal(text, api.body.error);
  });

  it('no request of the page was refused by the guard', () => {
    assert.deepEqual(b.refused, []);
    assert.deepEqual(b.errors.filter((e) => !/status of 404|status of 409/.test(e)), []);
  });
});
