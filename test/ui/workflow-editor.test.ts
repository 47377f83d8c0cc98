/**
 * Workflows edited on the page, and a run read by its steps, in Chromium against a real engine:
 * a node opened by a click shows its settings (a form from its type's schema); a change is saved
 * with the engine's warnings shown; a node is added and connected; the JSON view shows the engine's
 * checks. A run shows each node's status, duration, output, error, retries and a gate's decision,
 * and its event log joins a streamed answer into one row. The editor is not in the first load.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startChat, type ChatHarness } from '../chat/harness.js';
import { gateFlow } from '../support/gate-flow.js';
import { openBrowser, type TestBrowser } from '../support/browser.js';

describe('the workflow editor and the run view', () => {
  let h: ChatHarness;
  let b: TestBrowser;
  before(async () => {
    h = await startChat('openai-compatible');
    b = await openBrowser({ viewport: { width: 1400, height: 900 } });
    b.page.setDefaultTimeout(60_000);
    const doc = gateFlow('release', 'Ship the release?', { name: 'Release', approved: { id: 'done', type: 'state', config: { key: 'shipped', value: 'yes' } } });
    assert.equal((await h.t.api('PUT', '/api/workflows/release', doc)).status, 200);
  });
  after(async () => {
    await b?.close();
    await h?.close();
  });

  it('a node opens with its settings; a change is saved with the engine’s warnings; the editor loads only then', async () => {
    const page = b.page;
    const scripts: string[] = [];
    page.on('request', (r) => void (r.resourceType() === 'script' && scripts.push(r.url())));
    await page.goto(`${h.t.url}/workflows/release`);
    await page.locator('svg.graph').waitFor();
    assert.ok(!scripts.some((u) => u.includes('workflow-editor')), 'the editor is not part of the first load');
    await page.getByRole('button', { name: 'open node review' }).click();
    const panel = page.getByRole('region', { name: 'node review' });
    const message = panel.getByLabel('Message');
    assert.equal(await message.inputValue(), 'Ship the release?');
    assert.ok(scripts.some((u) => u.includes('workflow-editor')), 'the editor loaded on the click');
    await b.shot('workflow-node-open');
    await message.fill('Ship version 2?');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.locator('[data-saved-note]').getByText(/Saved, with a warning: node "done": state key "shipped" is not declared/).waitFor();
    const saved = (await h.t.api('GET', '/api/workflows/release')).body;
    assert.equal(saved.nodes.find((n: any) => n.id === 'review').config.message, 'Ship version 2?');
  });

  it('a node is added, its check stands under its field, it is connected and saved', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/workflows/release`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('node type to add').selectOption({ label: 'Notify' });
    await page.getByRole('button', { name: 'Add node' }).click();
    const panel = page.getByRole('region', { name: 'node notify-1' });
    // The engine's check of the new node: its title is missing, said under the Title field.
    await panel.locator('[data-field=title] .field-error').getByText('node "notify-1": config.title is missing').waitFor();
    await panel.getByLabel('Title').fill('Shipped {{trigger.version}}');
    await panel.getByLabel('Level').selectOption('success');
    await panel.locator('[data-field=title] .field-error').waitFor({ state: 'detached' });
    // Connect review -> notify-1 on its approved branch, from review's panel.
    await page.getByRole('button', { name: 'open node review' }).click();
    const review = page.getByRole('region', { name: 'node review' });
    await review.getByLabel('connect to').selectOption('notify-1');
    await review.getByLabel('when').selectOption('approved');
    await review.getByRole('button', { name: 'Connect', exact: true }).click();
    await b.shot('workflow-node-added');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.locator('[data-saved-note]').waitFor();
    const saved = (await h.t.api('GET', '/api/workflows/release')).body;
    assert.deepEqual(saved.nodes.find((n: any) => n.id === 'notify-1'), { id: 'notify-1', type: 'notify', config: { title: 'Shipped {{trigger.version}}', level: 'success' } });
    assert.ok(saved.edges.some((e: any) => e.from === 'review' && e.to === 'notify-1' && e.when === 'approved'));
  });

  it('the JSON view shows the engine’s checks as you type, and applies to the drawing', async () => {
    const page = b.page;
    await page.goto(`${h.t.url}/workflows/release`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('tab', { name: 'JSON' }).click();
    const json = page.getByLabel('workflow JSON');
    const doc = JSON.parse(await json.inputValue());
    doc.nodes.push({ id: 'fetch', type: 'htp' });
    await json.fill(JSON.stringify(doc, null, 2));
    await page.locator('.json-view').getByText('node "fetch": unknown type "htp"; use one of').waitFor();
    await json.fill('{ "id": ');
    await page.locator('.json-view').getByText(/not valid JSON/).waitFor();
    await b.shot('workflow-json');
    doc.nodes[doc.nodes.length - 1] = { id: 'pause', type: 'wait', config: { ms: 10 } };
    await json.fill(JSON.stringify(doc, null, 2));
    await page.getByRole('button', { name: 'Apply to the drawing' }).click();
    await page.getByRole('button', { name: 'open node pause' }).waitFor();
  });

  it('a run by its steps: status, duration, output, error, retries, the gate’s decision; the log joins a stream into one row', async () => {
    const doc = {
      id: 'steps',
      formatVersion: 2,
      group: null,
      name: 'Steps',
      nodes: [
        { id: 'start', type: 'trigger.manual' },
        { id: 'ask', type: 'agent', config: { system: 'You check releases.', prompt: 'Is it ready?' } },
        { id: 'approve', type: 'gate', config: { message: 'Release it?' } },
        { id: 'ping', type: 'http', config: { url: 'http://127.0.0.1:1/health', allowPrivate: true }, retry: { maxAttempts: 2, backoffMs: 10 } },
      ],
      edges: [
        { from: 'start', to: 'ask' },
        { from: 'ask', to: 'approve' },
        { from: 'approve', to: 'ping', when: 'approved' },
      ],
    };
    assert.equal((await h.t.api('PUT', '/api/workflows/steps', doc)).status, 200);
    h.model.script({ text: 'All clear: every check passed and the notes are written.' });
    const page = b.page;
    await page.goto(`${h.t.url}/workflows/steps`);
    await page.getByRole('button', { name: 'Run with this payload' }).click();
    await page.waitForURL(/\/runs\/run-/);
    const runId = decodeURIComponent(page.url().split('/runs/')[1]);
    await page.locator('[data-step=approve]').getByText('Waiting for a person: Release it?').waitFor();
    await page.locator('[data-step=ask] .step-output').getByText('All clear: every check passed').waitFor();
    assert.equal((await h.t.api('POST', '/api/gates/resolve', { runId, nodeId: 'approve', approved: true, note: 'looks good' })).status, 200);
    await page.locator('[data-step=approve]').getByText('Approved: “looks good”').waitFor();
    await page.locator('[data-step=ping] .badge.failed').waitFor();
    await page.locator('[data-step=ping]').getByText('1 retry').waitFor();
    await page.locator('[data-step=ping]').getByText(/attempt 1 failed/).waitFor();
    await page.locator('[data-step=ping] .error-line').waitFor();
    assert.match(await page.locator('[data-step=ask] .step-head').innerText(), /\d+(\.\d)? (ms|s)/, 'a duration');
    await b.shot('run-steps');
    await page.getByRole('tab', { name: 'Event log' }).click();
    const log = (await h.t.api('GET', `/api/runs/${runId}/events`)).body.events as any[];
    const deltas = log.filter((e) => e.kind === 'node.delta').length;
    assert.ok(deltas > 1, `the answer streamed in ${deltas} deltas`);
    const rows = page.locator('tr', { hasText: 'node.delta' });
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1, 'the stream is one row');
    assert.match(await rows.first().innerText(), new RegExp(`×${deltas}`));
    await b.shot('run-log');
  });

  it('no request of the page was refused', () => {
    assert.deepEqual(b.refused, []);
    assert.deepEqual(b.errors.filter((e) => !/status of (400|404|409)/.test(e)), []);
  });
});
