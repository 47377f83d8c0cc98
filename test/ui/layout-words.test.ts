/**
 * Layout and words, as a new user met them (issue 40, finding 7), each checked in Chromium: names
 * read whole (files, tables, notes), the Files heading, every board lane in view, person words
 * instead of developer words (who wrote a workflow, approvals by name, git and memory), times
 * relative, ticking and absolute on hover, the rule box's own example accepted, the engine's own
 * secrets read-only, New board asking its name, a card that opens, vault links that open and the
 * inbox's Accept and Reject. Then every page at 1400x900 and 390x844 (test-artifacts/web/).
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { tempDir } from '../support/engine.js';

const LONG_FILE = 'quarterly-revenue-reconciliation-notes-for-the-finance-team-and-auditors.md';
const LONG_TABLE = 'customer_orders_with_shipping_addresses_and_payment_references';

describe('layout and words', () => {
  let h: ChatHarness;
  let wide: TestBrowser;
  let narrow: TestBrowser;
  let vault: string;
  let gateRun: string;
  before(async () => {
    h = await startChat('openai-compatible');
    wide = await openBrowser({ viewport: { width: 1400, height: 900 } });
    narrow = await openBrowser({ viewport: { width: 390, height: 844 }, isMobile: true });
    for (const b of [wide, narrow]) b.page.setDefaultTimeout(60_000);
    const ws = path.join(h.t.home, 'workspace');
    await mkdir(path.join(ws, 'reports'), { recursive: true });
    await writeFile(path.join(ws, 'reports', LONG_FILE), '# Notes\n');
    await h.t.api('PUT', '/api/db/connections/shop', { engine: 'sqlite', path: 'shop.db', writable: true, name: 'Shop' });
    await h.t.api('POST', '/api/db/shop/query', { sql: `CREATE TABLE ${LONG_TABLE} (id INTEGER PRIMARY KEY)` });
    await h.t.api('PUT', '/api/work/main', { name: 'Main' });
    await h.t.api('POST', '/api/work/main', { kind: 'task', title: 'Write the release notes' });
    vault = await tempDir('vault-words-');
    await writeFile(path.join(vault, 'ada.md'), '# Ada\n\nWorked with [[babbage]].\n');
    await writeFile(path.join(vault, 'babbage.md'), '# Babbage\n\nDesigned the engine.\n');
    await h.t.api('POST', '/api/vaults', { name: 'people', path: vault });
    await h.t.api('POST', '/api/vaults/people/notes', { name: 'lovelace', type: 'note', content: '# Lovelace\n' });
    // A workflow a model wrote, through its tool in a chat turn.
    const doc = { id: 'tidy', formatVersion: 2, group: null, name: 'Tidy up', nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'ok', type: 'gate', config: { message: 'Tidy the workspace?' } }], edges: [{ from: 'start', to: 'ok' }] };
    h.model.script({ toolCalls: [{ name: 'save_workflow', args: doc }] }, { text: 'Saved.' });
    const seq = h.lastSeq();
    await h.send('write-tidy', 'write me a tidy workflow');
    // Generous: the turn is two model rounds on a loaded machine.
    const turn = await h.events.waitFor((e) => e.kind === 'run.started' && e.sessionId === 'write-tidy' && e.seq > seq, 120_000);
    await h.events.waitFor((e) => e.runId === turn.runId && /^run\.(completed|failed|stopped)$/.test(e.kind), 120_000);
    gateRun = (await h.t.api('POST', '/api/runs/tidy', {})).body.runId;
  });
  after(async () => {
    await narrow?.close();
    await wide?.close();
    await h?.close();
  });

  /** True when an element shows all its text (nothing cut off sideways). */
  const whole = (b: TestBrowser, selector: string) => b.page.locator(selector).first().evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= window.innerWidth + 1);

  it('file and table names read whole; the Files heading is “Files” on a phone', async () => {
    for (const b of [wide, narrow]) {
      await b.page.goto(`${h.t.url}/files`);
      await b.page.locator('button.folder', { hasText: 'reports' }).click();
      await b.page.locator('a.file', { hasText: 'quarterly' }).waitFor();
      assert.ok(await whole(b, `a.file[title="reports/${LONG_FILE}"]`), `the long file name is whole at ${b.page.viewportSize()?.width}`);
      assert.ok(await whole(b, '.page-head h1'), 'the heading is whole');
      assert.equal(await b.page.locator('.page-head h1').innerText(), 'Files');
      await b.page.goto(`${h.t.url}/databases`);
      await b.page.locator('.list-item', { hasText: 'Shop' }).click();
      await b.page.locator(`[data-table=${LONG_TABLE}]`).waitFor();
      assert.ok(await whole(b, `[data-table=${LONG_TABLE}]`), `the long table name is whole at ${b.page.viewportSize()?.width}`);
    }
  });

  it('every lane of a board is in view at 1400 px; New board asks for a name; a card opens and changes', async () => {
    const page = wide.page;
    await page.goto(`${h.t.url}/boards`);
    const lanes = page.locator('[data-board=main] .lane');
    assert.equal(await lanes.count(), 5);
    const right = await lanes.nth(4).evaluate((el) => el.getBoundingClientRect().right);
    assert.ok(right <= 1400, `the fifth lane ends at ${right}`);
    await page.getByRole('button', { name: 'New board' }).click();
    const form = page.getByRole('form', { name: 'New board' });
    await form.getByLabel('Board name').fill('Release 2.0');
    await form.getByRole('button', { name: 'Create board' }).click();
    await page.locator('[data-board=release-2-0] h2').getByText('Release 2.0').waitFor();
    await page.locator('[data-board=main]').getByText('Write the release notes').click();
    await page.waitForURL(/\/boards\/main\/MAIN-1$/);
    const card = page.getByRole('complementary', { name: 'card MAIN-1' });
    await card.getByLabel('card text').fill('Cover the new set-up pages.');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByLabel('Lane').selectOption('In Progress');
    await card.locator('.activity').getByText(/moved|status/).waitFor();
    const item = (await h.t.api('GET', '/api/work/main/MAIN-1')).body.item;
    assert.equal(item.body.trim(), 'Cover the new set-up pages.');
    assert.equal(item.status, 'In Progress');
    assert.equal(await card.locator('.activity').getByText(/\d{4}-\d{2}-\d{2}T/).count(), 0, 'no ISO times in the activity');
    await wide.shot('board-card');
  });

  it('vault links and backlinks open their note; the inbox accepts and rejects', async () => {
    const page = wide.page;
    await page.goto(`${h.t.url}/vaults`);
    await page.locator('.list-item', { hasText: 'ada' }).click();
    const noteSays = (text: string) => page.waitForFunction((t) => (document.querySelector('[aria-label="note text"]') as HTMLTextAreaElement | null)?.value.includes(t), text);
    await noteSays('Worked with');
    await page.locator('.note-links a', { hasText: 'babbage' }).click();
    await noteSays('Designed the engine');
    await page.locator('.note-links a', { hasText: 'ada' }).click();
    await noteSays('Worked with');
    // Two captured notes wait in the inbox: one accepted into its folder, one rejected.
    h.model.script({ text: JSON.stringify({ notes: [{ name: 'keep me', content: 'worth keeping' }, { name: 'drop me', content: 'noise' }] }) });
    await page.getByLabel('text to capture').fill('two things');
    await page.getByRole('button', { name: 'Capture' }).click();
    const inbox = page.locator('[data-inbox]');
    await inbox.getByText('keep me').waitFor();
    await inbox.getByText('drop me').waitFor();
    await wide.shot('vault-inbox');
    await inbox.locator('.inbox-item', { hasText: 'keep me' }).getByRole('button', { name: 'Accept' }).click();
    page.once('dialog', (d) => void d.accept());
    await inbox.locator('.inbox-item', { hasText: 'drop me' }).getByRole('button', { name: 'Reject' }).click();
    await page.locator('[data-inbox]').waitFor({ state: 'detached' });
    const notes = (await h.t.api('GET', '/api/vaults/people/index')).body.notes as any[];
    assert.ok(notes.some((n) => n.name === 'keep me' && !n.inbox), 'accepted into a folder');
    assert.ok(!notes.some((n) => n.name === 'drop me'), 'rejected and gone');
  });

  it('person words: who wrote a workflow, approvals by name, git and memory, no route names', async () => {
    const page = wide.page;
    await page.goto(`${h.t.url}/workflows/tidy`);
    await page.getByText(/Written by a model in the chat write-tidy/).waitFor();
    assert.equal(await page.getByText('{"by"').count(), 0);
    await page.goto(`${h.t.url}/approvals`);
    const gate = page.locator(`[data-gate="${gateRun}:ok"]`);
    await gate.getByText('Tidy the workspace?').waitFor();
    assert.match(await gate.innerText(), /workflow Tidy up/);
    assert.doesNotMatch(await gate.innerText(), new RegExp(gateRun), 'the run is named, not its id');
    await page.goto(`${h.t.url}/files`);
    await page.getByRole('button', { name: 'git' }).click();
    await page.getByText('The workspace is not a git repository: run git init in it').waitFor();
    const text = await page.locator('.main').innerText();
    assert.doesNotMatch(text, /GET \/api|@memory/);
  });

  it('times are relative, tick by themselves, and say the date and time on hover', async () => {
    const page = wide.page;
    await page.goto(`${h.t.url}/runs`);
    const time = page.locator('.list-item time').first();
    await time.waitFor();
    const title = await time.getAttribute('title');
    assert.ok(title && !/T\d\d:/.test(title) && /\d/.test(title), `an absolute local date and time on hover: ${title}`);
    const first = await time.innerText();
    assert.match(first, /just now|\d+s ago|\d+m ago/);
    // Nothing touches the page: the text changes by itself.
    await page.waitForFunction((was) => document.querySelector('.list-item time')?.textContent !== was, first, { timeout: 60_000 });
  });

  it('the rule box’s own example is a rule the engine takes; the engine’s secrets are read-only', async () => {
    const page = wide.page;
    await page.goto(`${h.t.url}/settings#permissions`);
    const box = page.getByLabel('rule key');
    const example = (await box.getAttribute('placeholder'))!;
    await box.fill(example);
    await page.locator('#permissions').getByRole('button', { name: 'Always allow' }).click();
    await page.locator(`[data-rule="${example}"]`).waitFor();
    assert.ok((await h.t.api('GET', '/api/permissions')).body.rules.some((r: any) => r.key === example));
    const kept = page.locator('[data-secret="provider.scripted.key"]');
    await kept.getByText(/used by provider "scripted"/).waitFor();
    assert.equal(await kept.getByRole('button', { name: 'Delete' }).count(), 0, 'no Delete on a secret the engine keeps');
  });

  it('every page at 1400x900 and 390x844', async () => {
    const pages = ['chat', 'approvals', `runs/${gateRun}`, 'workflows/tidy', 'files', 'vaults', 'boards', 'maps', 'databases', 'settings'];
    for (const b of [wide, narrow]) {
      const size = `${b.page.viewportSize()!.width}`;
      for (const p of pages) {
        await b.page.goto(`${h.t.url}/${p}`);
        await b.page.waitForSelector('[data-connection=live]', { state: 'attached' });
        await b.page.waitForSelector('.main h1, .main h2, .session-name, .chat-empty, .sessions-head');
        await b.shot(`page-${p.split('/')[0]}-${size}`);
        // Nothing sideways: the page is never wider than the window.
        const overflow = await b.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `${p} at ${size} is ${overflow}px wider than the window`);
      }
    }
  });

  it('no request of the pages was refused', () => {
    for (const b of [wide, narrow]) {
      assert.deepEqual(b.refused, []);
      assert.deepEqual(b.errors.filter((e) => !/status of (400|404|409)/.test(e)), []);
    }
  });
});
