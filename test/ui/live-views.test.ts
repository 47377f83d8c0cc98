/**
 * Views that stay true: with a page open, another client (here the test, over the API, or a chat
 * model) changes something, and the open page shows it without a reload. One test a page: the
 * provider banner and the provider list, connections, dashboards (a build's page, a model-made
 * dashboard), code maps, vault notes and Capture, boards and cards, runs and their steps,
 * workflows, secrets and MCP servers. The DOM is polled with a generous timeout; no timing is asserted.
 */
// needs: better-sqlite3 (a SQLite connection; see scripts/test.mjs --node22)
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBrowser, type TestBrowser } from '../support/browser.js';
import { collectEvents, type EventCollector } from '../support/events.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

describe('every page follows the engine’s events', () => {
  let t: TestEngine;
  let model: ModelServer;
  let events: EventCollector;
  let b: TestBrowser;
  /** Opens a page and waits until its socket is live, so what follows is a change it must be told of. */
  const open = async (p: string) => {
    await b.page.goto(t.url + p);
    await b.page.waitForSelector('[data-connection=live]');
  };
  before(async () => {
    model = await startModelServer();
    t = await startTestEngine();
    events = await collectEvents(t.url);
    b = await openBrowser({ viewport: { width: 1400, height: 900 } });
    b.page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await b?.close();
    events?.close();
    await t?.close();
    await model?.close();
  });

  it('a provider added elsewhere: the banner goes, the Settings list shows it', async () => {
    await open('/chat');
    await b.page.getByText('No model provider is configured yet').waitFor();
    const put = await t.api('PUT', '/api/config', { providers: [{ type: 'openai-compatible', name: 'scripted', baseUrl: model.baseUrl, model: 'scripted-model', newKey: 'sk-test' }], defaultProvider: 'scripted' });
    assert.equal(put.status, 200);
    await b.page.getByText('No model provider is configured yet').waitFor({ state: 'detached' });
    await open('/settings');
    const second = { type: 'openai-compatible', name: 'backup', baseUrl: model.baseUrl, model: 'other-model' };
    await t.api('PUT', '/api/config', { providers: [...put.body.providers.map((p: any) => ({ type: p.type, name: p.name, baseUrl: p.baseUrl, model: p.model })), second], defaultProvider: 'scripted' });
    await b.page.locator('.provider', { hasText: 'backup' }).waitFor();
  });

  it('a connection saved and deleted elsewhere shows on Databases', async () => {
    await open('/databases');
    await t.api('PUT', '/api/db/connections/ledger', { engine: 'sqlite', path: 'ledger.db', name: 'Ledger' });
    await b.page.locator('.list-item', { hasText: 'Ledger' }).waitFor();
    await t.api('DELETE', '/api/db/connections/ledger');
    await b.page.locator('.list-item', { hasText: 'Ledger' }).waitFor({ state: 'detached' });
  });

  it('a dashboard saved and built elsewhere: listed, then its page in the frame and no “building…” left', async () => {
    await open('/maps');
    assert.equal((await t.api('PUT', '/api/dashboards/sales', { name: 'Sales', layout: 2, slots: [{ id: 'n', title: 'Orders', type: 'stat' }], prompt: 'count orders' })).status, 200);
    await b.page.locator('[data-map="dashboard:sales"]').getByText('never built').waitFor();
    await b.page.click('[data-map="dashboard:sales"]');
    await b.page.getByText('Not built yet').waitFor();
    model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'n', type: 'stat', title: 'Orders', data: { value: 42 } }] } }] }, { text: 'published' });
    const built = await t.api('POST', '/api/dashboards/sales/run');
    assert.equal(built.status, 202);
    await b.page.frameLocator('iframe.doc-frame').getByText('42').first().waitFor();
    await b.page.locator('[data-map="dashboard:sales"] [data-state=idle]').getByText(/built/).waitFor();
    assert.equal(await b.page.getByText('building…').count(), 0);
  });

  it('a dashboard a chat model made shows on Dashboards, marked as the model’s', async () => {
    await open('/maps');
    model.script({ toolCalls: [{ name: 'publish_dashboard', args: { dashboard: 'shop', title: 'Shop', widgets: [{ id: 'orders', type: 'stat', title: 'Orders', data: { value: 7 } }] } }] }, { text: 'Made it.' });
    assert.equal((await t.api('POST', '/api/chat', { sessionId: 'make-shop', message: 'make a shop dashboard' })).status, 202);
    await b.page.locator('[data-map="dashboard:shop"]').click();
    await b.page.getByText('written by a model').waitFor();
    await b.page.frameLocator('iframe.doc-frame').getByText('Orders').first().waitFor();
  });

  it('a code map made elsewhere shows under Code maps', async () => {
    await mkdir(path.join(t.home, 'workspace', 'lib'), { recursive: true });
    await writeFile(path.join(t.home, 'workspace', 'lib', 'a.ts'), 'export const a = 1;\n');
    await open('/maps');
    const made = await t.api('POST', '/api/atlas/standard', { scope: 'lib' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    await b.page.locator(`[data-map="atlas:${made.body.id}"]`).waitFor();
  });

  it('vault notes written elsewhere show; Capture says what it filed, and the inbox note appears', async () => {
    const folder = await tempDir('vault-live-');
    await writeFile(path.join(folder, 'first.md'), '# First\n');
    assert.equal((await t.api('POST', '/api/vaults', { name: 'notes', path: folder })).status, 201);
    await open('/vaults');
    await b.page.locator('.list-item', { hasText: 'first' }).waitFor();
    const made = await t.api('POST', '/api/vaults/notes/notes', { name: 'second', type: 'note', content: '# Second\n' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await b.page.locator('.list-item', { hasText: 'second' }).waitFor();
    model.script({ text: JSON.stringify({ notes: [{ name: 'call with ada', type: 'note', content: 'Ada called about the engine.' }] }) });
    await b.page.getByLabel('text to capture').fill('Ada called about the engine.');
    await b.page.getByRole('button', { name: 'Capture' }).click();
    await b.page.locator('[data-capture]').getByText(/Filed into the inbox: call with ada/).waitFor();
    await b.page.locator('[data-inbox]').getByText('call with ada').waitFor();
    await b.shot('vaults-captured');
  });

  it('a board and its cards made and moved elsewhere show on Boards', async () => {
    await open('/boards');
    assert.equal((await t.api('PUT', '/api/work/ops', { name: 'Operations' })).status, 200);
    await b.page.locator('[data-board=ops] h2').getByText('Operations').waitFor();
    const card = await t.api('POST', '/api/work/ops', { kind: 'task', title: 'Rotate the keys' });
    assert.equal(card.status, 201);
    const lanes = (await t.api('GET', '/api/work')).body.boards.find((x: any) => x.project === 'ops').config.lanes;
    await b.page.locator(`[data-board=ops] [data-lane="${lanes[0].name}"]`).getByText('Rotate the keys').waitFor();
    await t.api('PUT', `/api/work/ops/${card.body.key}`, { status: lanes[2].name });
    await b.page.locator(`[data-board=ops] [data-lane="${lanes[2].name}"]`).getByText('Rotate the keys').waitFor();
  });

  it('a workflow saved elsewhere is listed; a run started elsewhere is listed and its steps fill in', async () => {
    await open('/workflows');
    const doc = { id: 'nap', formatVersion: 2, group: null, name: 'Nap', nodes: [{ id: 'start', type: 'trigger.manual' }, { id: 'gate', type: 'gate', config: { message: 'Wake up?' } }], edges: [{ from: 'start', to: 'gate' }] };
    assert.equal((await t.api('PUT', '/api/workflows/nap', doc)).status, 200);
    await b.page.locator('.list-item', { hasText: 'Nap' }).waitFor();
    await open('/runs');
    const run = await t.api('POST', '/api/runs/nap', {});
    await b.page.locator('.list-item', { hasText: 'Nap' }).click();
    await b.page.locator('[data-step=gate]').getByText('Waiting for a person: Wake up?').waitFor();
    await t.api('POST', '/api/gates/resolve', { runId: run.body.runId, nodeId: 'gate', approved: false });
    await b.page.locator('[data-step=gate]').getByText('Rejected').waitFor();
  });

  it('a secret and an MCP server added elsewhere show in Settings', async () => {
    await open('/settings');
    await t.api('POST', '/api/secrets', { name: 'github.token', value: 'ghp_live' });
    await b.page.locator('[data-secret="github.token"]').waitFor();
    await t.api('PUT', '/api/mcp', { servers: { later: { command: 'true', enabled: false } } });
    await b.page.locator('[data-server=later]').getByText('disabled').waitFor();
  });

  it('no request of the page was refused', () => {
    assert.deepEqual(b.refused, []);
    assert.deepEqual(b.errors.filter((e) => !/status of (400|404|409)/.test(e)), []);
  });
});
