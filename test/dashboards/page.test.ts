/**
 * The page a person looks at: GET /api/dashboards/<id>/doc with Accept: text/html answers one
 * self-contained page (charts as server-drawn SVG, markdown without script or remote image, sources
 * linked), which a real headless Chromium opens and screenshots.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { salesDashboard, startDashboards, type DashHarness } from './harness.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
let h: DashHarness;
let runId: string;

const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const WIDGETS = [
  { id: 'total', type: 'stat', title: 'Total this week', data: { value: 12840, unit: 'EUR', delta: 1320, trend: [9, 11, 10, 12, 14, 13, 15] }, sources: ['t1'], summary: 'Up on last week' },
  {
    id: 'by-day',
    type: 'chart',
    title: 'Sales by day',
    data: { mark: 'bar', data: { values: days.map((d, i) => ({ day: d, amount: [1200, 1900, 1500, 2400, 2100, 1700, 2040][i] })) }, encoding: { x: { field: 'day', type: 'ordinal', sort: null }, y: { field: 'amount', type: 'quantitative' } } },
    sources: ['t1'],
  },
  { id: 'top', type: 'table', title: 'Top customers', data: { columns: ['customer', { key: 'amount', label: 'Amount (EUR)' }], rows: [['Acme', 4200], { customer: 'Globex', amount: 3100 }, ['Initech', 1800]] }, sources: ['t1'] },
  {
    id: 'notes',
    type: 'markdown',
    title: 'Notes',
    data: { text: '## Week 12\n- **Tuesday** was slow\n- see [the report](https://example.com/r)\n\n<script>alert(1)</script>\n![tracker](http://tracker.invalid/p.png) [bad](javascript:alert(1))' },
  },
  { id: 'goal', type: 'progress', title: 'Monthly goal', data: { value: 38, max: 50, label: 'k EUR' } },
  { id: 'facts', type: 'kv', title: 'Facts', data: { pairs: [{ key: 'Orders', value: 212 }, { key: 'Refunds', value: 3 }, { key: 'Best day', value: 'Thu' }] } },
  { id: 'todo', type: 'list', title: 'Follow up', data: { items: ['Call Acme', { text: 'Chase Globex invoice', detail: 'due Friday' }] }, status: 'warn' },
  {
    id: 'trend',
    type: 'chart',
    title: 'Daily trend',
    data: { mark: { type: 'line', point: true }, data: { values: days.map((d, i) => ({ day: d, orders: [20, 31, 25, 40, 38, 27, 31][i] })) }, encoding: { x: { field: 'day', type: 'ordinal', sort: null }, y: { field: 'orders', type: 'quantitative' } } },
  },
  { id: 'late', type: 'stat', title: 'Late shipments', data: { value: 0 }, status: 'error', error: 'the shipping database did not answer' },
];

before(async () => {
  h = await startDashboards();
  await h.workspaceFile('sales.csv', 'day,amount\nmon,1200\n');
  const slots = [...salesDashboard.slots, ...['goal', 'facts', 'todo', 'trend', 'late'].map((id) => ({ id, title: id }))];
  assert.equal((await h.t.api('PUT', '/api/dashboards/sales', { ...salesDashboard, slots })).status, 200);
  h.model.script({ toolCalls: [{ name: 'read_file', args: { path: 'sales.csv' } }] }, { toolCalls: [{ name: 'publish_dashboard', args: { subtitle: 'Week 12', widgets: WIDGETS } }] }, { text: 'done' });
  const built = await h.build('sales');
  assert.equal(built.end.kind, 'run.completed', JSON.stringify(built.end));
  runId = built.runId;
  // A later build fails: the page stays, and says so.
  h.model.script({ error: 400, body: { error: { message: 'the model is down' } } });
  assert.equal((await h.build('sales')).end.kind, 'run.failed');
});
after(async () => h.close());

async function page(): Promise<string> {
  const res = await fetch(`${h.t.url}/api/dashboards/sales/doc`, { headers: { accept: 'text/html' } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  return res.text();
}

test('the page is self-contained: SVG charts, sanitised markdown, no script, sources linked', async () => {
  const html = await page();
  assert.equal((html.match(/<svg[^>]*class="marks"/g) ?? []).length, 2, 'both charts drawn as SVG by vega');
  assert.ok(!/<script/i.test(html), 'no script element at all');
  assert.ok(!html.includes('tracker.invalid') && !html.includes('javascript:'), 'no remote image, no script link');
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'raw HTML shows as text');
  assert.ok(html.includes('<a href="https://example.com/r" rel="noopener noreferrer nofollow" target="_blank">the report</a>'));
  assert.match(html, /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:/);
  assert.ok(html.includes(`<a href="/api/dashboards/sales/source/t1?run=${runId}">t1</a>`));
  assert.ok(html.includes('the shipping database did not answer'));
  // Times read as a person's date, the exact instant kept for machines; the run id only on hover.
  assert.match(html, /<p class="meta" title="run run-[^"]+">built <time datetime="\d{4}-\d\d-\d\dT[^"]+Z" title="[^"]+">[A-Z][a-z]{2} \d{1,2}, \d{4}, \d/);
  assert.match(html, /<p class="banner">The last build failed \([^)]+\): the build&#39;s model failed: .*; the previous page is kept\.<\/p>/);
  assert.ok(!/src="http/.test(html) && !/href="\/\//.test(html), 'nothing loads from elsewhere');
  // The JSON answer is still the document.
  const json = await h.t.api('GET', '/api/dashboards/sales/doc');
  assert.equal(json.body.document.subtitle, 'Week 12');
});

test('headless Chromium opens the page and takes a screenshot', { skip: !existsSync(CHROMIUM) && 'chromium is not installed' }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dash-shot-'));
  const shot = path.join(process.env.DASHBOARD_SCREENSHOT_DIR ?? dir, 'dashboard.png');
  try {
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${path.join(dir, 'profile')}`, '--hide-scrollbars', '--window-size=1280,1100', `--screenshot=${shot}`];
    // Chromium blocks on its own work; run it off the event loop that serves the page.
    const run = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn(CHROMIUM, [...args, `${h.t.url}/api/dashboards/sales/doc`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('exit', (status: number | null) => {
        clearTimeout(timer);
        resolve({ status, stderr });
      });
    });
    assert.equal(run.status, 0, String(run.stderr).slice(-2000));
    const png = await readFile(shot);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.ok((await stat(shot)).size > 20_000, 'the page drew more than a blank screen');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
