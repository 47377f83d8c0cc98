/**
 * The three set-ups a person does from the page, in Chromium against a real engine: a database
 * connection (SQLite and PostgreSQL fields, Test, read-only by default), a dashboard (name, what it
 * should show, tiles or not, then Build), an MCP server (Claude Desktop JSON pasted, a local command,
 * a remote URL). Each refusal is the engine's own sentence, shown next to the field it is about.
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { FILESYSTEM } from '../mcp/support.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { tempDir } from '../support/engine.js';

/** The engine's sentence as the page shows it (the request shape it appends for API clients left off). */
const plain = (s: string) => s.replace(/; send a JSON object\b.*$/s, '');

describe('set-up pages', () => {
  let h: ChatHarness;
  let b: TestBrowser;
  before(async () => {
    h = await startChat('openai-compatible');
    b = await openBrowser({ viewport: { width: 1400, height: 900 } });
    b.page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  it('Databases > Add connection: a SQLite file, its sentences next to the fields, Test, read-only by default', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/databases`);
    await page.click('text=Add connection');
    const form = page.getByRole('form', { name: 'Add connection' });
    await form.getByLabel('Name', { exact: true }).fill('Shop');
    assert.equal(await form.getByLabel('Id', { exact: true }).inputValue(), 'shop', 'the id is made from the name');
    // No file given: the engine's sentence, under the file field.
    await form.getByRole('button', { name: 'Save connection' }).click();
    const refused = await h.t.api('PUT', '/api/db/connections/shop', { engine: 'sqlite', writable: false, name: 'Shop' });
    assert.equal(refused.status, 400);
    await form.locator('[data-field=path] .field-error').getByText(plain(refused.body.error)).waitFor();
    // A file that does not exist: Test says so, in the engine's words.
    await form.getByLabel('Database file').fill('data/shop.db');
    await form.getByRole('button', { name: 'Test' }).click();
    await form.locator('[data-tested=failed]').getByText(/does not exist/).waitFor();
    await b.shot('databases-add-connection');
    await form.getByRole('button', { name: 'Save connection' }).click();
    await page.locator('.list-item', { hasText: 'Shop' }).waitFor();
    const saved = (await h.t.api('GET', '/api/db')).body.connections.find((c: any) => c.id === 'shop');
    assert.equal(saved.writable, false, 'read-only unless a person says otherwise');
    assert.equal(saved.path, 'data/shop.db');
  });

  it('Databases > Add connection: PostgreSQL fields, a port out of range refused next to Port, Test reaches the server', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/databases`);
    await page.click('text=Add connection');
    const form = page.getByRole('form', { name: 'Add connection' });
    await form.getByLabel('Name', { exact: true }).fill('Warehouse');
    await form.getByLabel('Database engine').selectOption('postgres');
    await form.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await form.getByLabel('Port', { exact: true }).fill('70000');
    await form.getByLabel('Database', { exact: true }).fill('warehouse');
    await form.getByLabel('User', { exact: true }).fill('me');
    await form.getByRole('button', { name: 'Test' }).click();
    const answer = await h.t.api('POST', '/api/db/test', { engine: 'postgres', writable: false, name: 'Warehouse', host: '127.0.0.1', port: 70000, database: 'warehouse', user: 'me' });
    assert.equal(answer.status, 400);
    await form.locator('[data-field=port] .field-error').getByText(plain(answer.body.error)).waitFor();
    // A port where nothing listens: a real round trip that says it is unreachable.
    await form.getByLabel('Port', { exact: true }).fill('1');
    await form.getByRole('button', { name: 'Test' }).click();
    await form.locator('[data-tested=failed]').getByText(/unreachable/).waitFor();
    await b.shot('databases-add-postgres');
    assert.equal(await form.getByLabel(/Read-only/).isChecked(), true);
  });

  it('Dashboards > New dashboard: the sentences next to the fields, tiles saved as written, then Build shows the page', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/maps`);
    await page.click('text=New dashboard');
    const form = page.getByRole('form', { name: 'New dashboard' });
    await form.getByLabel('Name', { exact: true }).fill('Orders');
    await form.getByRole('button', { name: 'Add a tile' }).click();
    await form.getByLabel('tile 1 title').fill('Orders today');
    await form.getByLabel('tile 1 type').selectOption('stat');
    // Nothing said about what to show: the engine's sentence about the prompt, next to that field.
    await form.getByRole('button', { name: 'Create' }).click();
    await form.locator('[data-field=prompt] .field-error').getByText('prompt is required: what the build should find out and show').waitFor();
    await form.getByLabel('Columns', { exact: true }).fill('20');
    await form.getByLabel('What it should show').fill('How many orders came in today, from data/orders.csv.');
    await form.getByRole('button', { name: 'Create' }).click();
    await form.locator('[data-field=layout] .field-error').getByText(/layout must be the column count, an integer from 1 to 12/).waitFor();
    await b.shot('dashboards-new-refused');
    await form.getByLabel('Columns', { exact: true }).fill('2');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.locator('[data-map="dashboard:orders"].active').waitFor();
    await page.getByText('Not built yet').waitFor();
    const def = (await h.t.api('GET', '/api/dashboards/orders')).body.definition;
    assert.deepEqual(def.slots, [{ id: 'orders-today', title: 'Orders today', type: 'stat' }]);
    // Build: the scripted model publishes; the page shows it with no reload, and "building…" is gone.
    h.model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'orders-today', type: 'stat', title: 'Orders today', data: { value: 1234 } }] } }] }, { text: 'published' });
    await page.getByRole('button', { name: 'Build' }).click();
    await page.frameLocator('iframe.doc-frame').getByText('1,234').first().waitFor();
    await page.locator('[data-map="dashboard:orders"] [data-state=idle]').getByText(/built/).waitFor();
    await b.shot('dashboards-built');
  });

  it('Dashboards > New dashboard without tiles: the model designs them from the words', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/maps`);
    await page.click('text=New dashboard');
    const form = page.getByRole('form', { name: 'New dashboard' });
    await form.getByLabel('Name', { exact: true }).fill('Support load');
    await form.getByLabel('What it should show').fill('Open tickets by age.');
    h.model.script({ text: JSON.stringify({ name: 'Support load', layout: 2, slots: [{ id: 'open', title: 'Open tickets', type: 'stat' }], prompt: 'Count open tickets by age.' }) });
    await form.getByRole('button', { name: 'Create' }).click();
    await page.locator('[data-map="dashboard:support-load"].active').waitFor();
    const def = (await h.t.api('GET', '/api/dashboards/support-load')).body;
    assert.equal(def.definition.slots[0].title, 'Open tickets');
    assert.equal(def.author.by, 'model', 'a designed definition is the model’s');
    await page.getByText('written by a model').waitFor();
  });

  it('Settings > MCP servers > Add server: Claude Desktop JSON pasted, and a real server connects', async () => {
    const page = b.page;
    const dir = await tempDir('mcp-notes-');
    await page.goto(`${h.t.url}/settings#mcp`);
    await page.locator('#mcp').getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add MCP server' });
    await form.getByLabel('Claude Desktop JSON').fill('{"mcpServers": {"notes": {"command": "node"');
    await form.getByRole('button', { name: 'Add this server' }).click();
    await form.locator('[data-field=json] .field-error').getByText(/the pasted text is not JSON/).waitFor();
    const pasted = { mcpServers: { my_notes: { command: process.execPath, args: [FILESYSTEM, dir] } } };
    await form.getByLabel('Claude Desktop JSON').fill(JSON.stringify(pasted, null, 2));
    await form.getByRole('button', { name: 'Add this server' }).click();
    await page.locator('#mcp').getByText('"my_notes" is called "my-notes" here').waitFor();
    await page.locator('[data-server=my-notes] [data-state=connected]').getByText(/connected · \d+ tools/).waitFor();
    await page.locator('#mcp').scrollIntoViewIfNeeded();
    await b.shot('settings-mcp-added');
    assert.deepEqual((await h.t.api('GET', '/api/mcp')).body.servers['my-notes'].args, [FILESYSTEM, dir]);
  });

  it('Settings > MCP servers > Add server: a local command and a remote URL, the engine’s sentences next to the fields', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/settings#mcp`);
    await page.locator('#mcp').getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add MCP server' });
    await form.getByRole('tab', { name: 'Local command' }).click();
    await form.getByLabel('Name', { exact: true }).fill('empty');
    await form.getByRole('button', { name: 'Add this server' }).click();
    const noCommand = await h.t.api('PUT', '/api/mcp', { servers: { empty: { command: '' } } });
    await form.locator('[data-field=command] .field-error').getByText(noCommand.body.error).waitFor();
    await form.getByRole('tab', { name: 'Remote URL' }).click();
    await form.getByLabel('Name', { exact: true }).fill('remote');
    await form.getByLabel('URL', { exact: true }).fill('ftp://mcp.example.com');
    await form.getByRole('button', { name: 'Add this server' }).click();
    const badUrl = await h.t.api('PUT', '/api/mcp', { servers: { remote: { type: 'http', url: 'ftp://mcp.example.com' } } });
    await form.locator('[data-field=url] .field-error').getByText(badUrl.body.error).waitFor();
    await b.shot('settings-mcp-refused');
    // A local server with arguments and an environment, disabled at once from its row.
    await form.getByRole('tab', { name: 'Local command' }).click();
    await form.getByLabel('Name', { exact: true }).fill('files');
    await form.getByLabel('Command', { exact: true }).fill(process.execPath);
    await form.getByLabel('Arguments, one a line').fill(`${FILESYSTEM}\n${path.join(h.t.home, 'workspace')}`);
    await form.getByLabel('Environment, KEY=value a line').fill('NOTES_MODE=read');
    await form.getByRole('button', { name: 'Add this server' }).click();
    await page.locator('[data-server=files] [data-state=connected]').waitFor();
    const entry = (await h.t.api('GET', '/api/mcp')).body.servers.files;
    assert.deepEqual(entry.env, { NOTES_MODE: 'read' });
    await page.locator('[data-server=files]').getByLabel('enabled').uncheck();
    await page.locator('[data-server=files]').getByText('disabled').waitFor();
    assert.equal((await h.t.api('GET', '/api/mcp')).body.servers.files.enabled, false);
  });

  it('no request of the page was refused', () => {
    assert.deepEqual(b.refused, []);
    assert.deepEqual(b.errors.filter((e) => !/status of (400|404|409)/.test(e)), []);
  });
});
