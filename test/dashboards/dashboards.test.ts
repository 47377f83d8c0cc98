/**
 * Dashboards over real HTTP with the scripted model: definitions (every problem named, nothing
 * saved), a build as a run (sources archived under refs, merge by id, replace, 409), a failed
 * build keeping the page, a hand-edited nonsense file, the widget catalog, the tools and the chat field.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { until } from '../support/patience.js';
import { salesDashboard, startDashboards, toolResult, type DashHarness } from './harness.js';

let h: DashHarness;
const CSV = 'day,amount\nmon,120\ntue,90\nwed,150\n' + 'x'.repeat(200);

before(async () => {
  h = await startDashboards();
  await h.workspaceFile('sales.csv', CSV);
});
after(async () => h.close());

const chart = { mark: 'bar', data: { values: [{ day: 'mon', amount: 120 }, { day: 'tue', amount: 90 }] }, encoding: { x: { field: 'day', type: 'nominal' }, y: { field: 'amount', type: 'quantitative' } } };

test('a malformed definition is refused with a sentence per problem and nothing is saved', async () => {
  const res = await h.t.api('PUT', '/api/dashboards/broken', { name: '', layout: 0, slots: [{ id: 'a', title: 'A', type: 'pie' }, { id: 'a', title: 'B', span: 9 }], refresh: 'every tuesday', tools: ['rm_rf'], colour: 'red' });
  assert.equal(res.status, 400);
  const msg: string = res.body.error;
  assert.match(msg, /^dashboard "broken" was not saved; fix: \(1\) /);
  for (const part of [
    'unknown field "colour" (fields: name, icon, description, refresh, paused, agent, layout, tools, widgets, slots, prompt, author)',
    'name is required: what the page is called',
    'prompt is required: what the build should find out and show',
    'layout must be the column count, an integer from 1 to 12 (got 0)',
    'tools[0] "rm_rf" is not a tool (tools: ',
    'slots[0].type "pie" is not a widget type (types: stat, table, list, markdown, progress, kv, chart)',
    'slots[1].id "a" is used twice; slot ids must be unique',
    'refresh "every tuesday" is neither an interval such as "15m", "1h", "30s" or "2d" nor a cron expression',
  ])
    assert.ok(msg.includes(part), `missing: ${part}\nin: ${msg}`);
  assert.equal((await h.t.api('GET', '/api/dashboards/broken')).status, 404);
  assert.ok(!existsSync(path.join(h.t.home, 'dashboards', 'broken.json')));
  const agentless = await h.t.api('PUT', '/api/dashboards/x', { ...salesDashboard, agent: 'nobody' });
  assert.equal(agentless.status, 400);
  assert.match(agentless.body.error, /agent "nobody" is not defined \(agents: none\)/);
});

test('a definition file edited by hand while the engine runs is seen without a restart', async () => {
  const file = path.join(h.t.home, 'dashboards', 'byhand.json');
  // The folder watcher reloads shortly after the edit; wait for it (no load() called here).
  const listed = async (seen: (d: any) => boolean) => {
    const found = await until('the hand edit in GET /api/dashboards', async () => {
      const d = (await h.t.api('GET', '/api/dashboards')).body.dashboards.find((x: any) => x.id === 'byhand');
      return seen(d) && { d };
    });
    return found.d;
  };
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, '{"name": "By hand", nonsense');
  assert.match((await listed((d) => !!d)).error, /^the file is not valid JSON/);
  await writeFile(file, JSON.stringify({ name: 'By hand', layout: 2, slots: [{ id: 'a', title: 'A' }], prompt: 'p' }));
  const fixed = await listed((d) => d && !d.error);
  assert.equal(fixed.name, 'By hand');
  assert.equal((await h.t.api('GET', '/api/dashboards/byhand')).body.definition.layout, 2);
  // An open workbench hears of it, as of a save.
  await h.events.waitFor((e) => e.kind === 'dashboards.changed' && e.dashboard === 'byhand' && e.change === 'edited' && e.by === 'person');
  await rm(file);
  await listed((d) => d === undefined);
  assert.equal((await h.t.api('GET', '/api/dashboards/byhand')).status, 404);
  await h.events.waitFor((e) => e.kind === 'dashboards.changed' && e.dashboard === 'byhand' && e.change === 'deleted');
});

test('a hand-edited nonsense file is listed with its error and never crashes the engine', async () => {
  await mkdir(path.join(h.t.home, 'dashboards'), { recursive: true });
  await writeFile(path.join(h.t.home, 'dashboards', 'junk.json'), '{"name": 12, nonsense');
  await writeFile(path.join(h.t.home, 'dashboards', 'odd.json'), JSON.stringify({ name: 'Odd', layout: 'wide', slots: [], prompt: 'p' }));
  await writeFile(path.join(h.t.home, 'dashboards', 'fine.json'), JSON.stringify({ name: 'Fine', layout: 1, slots: [{ id: 'a', title: 'A' }], prompt: 'p' }));
  await mkdir(path.join(h.t.home, 'dashboard-data', 'fine'), { recursive: true });
  await writeFile(path.join(h.t.home, 'dashboard-data', 'fine', 'doc.json'), JSON.stringify({ document: { widgets: 5 } }));
  await h.t.engine.dashboards.store.load();
  const list = (await h.t.api('GET', '/api/dashboards')).body.dashboards;
  const junk = list.find((d: any) => d.id === 'junk');
  assert.match(junk.error, /^the file is not valid JSON/);
  assert.match(list.find((d: any) => d.id === 'odd').error, /layout must be the column count, an integer from 1 to 12 \(got "wide"\)/);
  const run = await h.t.api('POST', '/api/dashboards/junk/run');
  assert.equal(run.status, 400);
  assert.match(run.body.error, /dashboard "junk" cannot be used: the file is not valid JSON/);
  assert.equal((await h.t.api('GET', '/api/dashboards/junk')).body.error, junk.error);
  assert.equal((await h.t.api('GET', '/api/status')).status, 200);
  assert.equal((await h.t.api('DELETE', '/api/dashboards/junk')).status, 200);
  assert.equal((await h.t.api('DELETE', '/api/dashboards/odd')).status, 200);
  // A page file of another shape is not served: the dashboard is listed as never built.
  assert.equal(list.find((d: any) => d.id === 'fine').builtAt, null);
  assert.equal((await h.t.api('GET', '/api/dashboards/fine/doc')).status, 404);
  assert.equal((await h.t.api('DELETE', '/api/dashboards/fine')).status, 200);
});

test('a build is a run: tool results archived as t1.., widgets cite them, merge by id, then replace drops the rest', async () => {
  const put = await h.t.api('PUT', '/api/dashboards/sales', salesDashboard);
  assert.equal(put.status, 200, JSON.stringify(put.body));
  h.model.script(
    { toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'sales.csv' } }, { id: 'c2', name: 'glob', args: { pattern: '*.csv' } }] },
    { toolCalls: [{ id: 'c3', name: 'publish_dashboard', args: { widgets: [{ id: 'total', type: 'stat', data: { value: 360, unit: 'EUR', delta: 30, trend: [120, 90, 150] }, sources: ['t1'] }, { id: 'notes', type: 'markdown', data: { text: 'first' } }] } }] },
    { toolCalls: [{ id: 'c4', name: 'publish_dashboard', args: { title: 'Sales week 12', widgets: [{ id: 'by-day', type: 'chart', data: chart, sources: ['t1', 't2'] }, { id: 'notes', type: 'markdown', data: { text: 'second' } }] } }] },
    { text: 'done' },
  );
  const before = h.model.requests.length;
  const { runId, end } = await h.build('sales');
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  // The agent saw each result under its ref, and the publish answer named what was accepted.
  const second = h.model.requests[before + 1].body;
  assert.match(toolResult(second, 'c1'), /^\[source t1: cite it in a widget's sources\]\n/);
  assert.match(toolResult(second, 'c2'), /^\[source t2/);
  assert.match(toolResult(h.model.requests[before + 2].body, 'c3'), /^accepted: total, notes\nslots still empty: by-day, top$/);
  // The tools offered were the read-only defaults and the two dashboard tools, nothing that writes.
  const offered = (h.model.requests[before].body.tools as any[]).map((t) => t.function.name).sort();
  assert.ok(offered.includes('publish_dashboard') && offered.includes('dashboard_source') && offered.includes('read_file'));
  assert.ok(!offered.includes('write_file') && !offered.includes('run_shell'), offered.join(','));

  const doc = (await h.t.api('GET', '/api/dashboards/sales/doc')).body;
  assert.equal(doc.document.title, 'Sales week 12');
  assert.equal(doc.document.runId, runId);
  assert.deepEqual(doc.document.widgets.map((w: any) => w.id), ['total', 'by-day', 'notes']);
  assert.equal(doc.document.widgets.find((w: any) => w.id === 'notes').data.text, 'second', 'merged by id: the later publish wins');
  assert.deepEqual(doc.document.widgets.find((w: any) => w.id === 'by-day').sources, ['t1', 't2']);
  // The document carries refs, never the archived text; the archive answers the whole text.
  assert.ok(!JSON.stringify(doc).includes('xxxxxxxxxx'));
  const src = await fetch(`${h.t.url}/api/dashboards/sales/source/t1`);
  assert.equal(src.status, 200);
  assert.match(src.headers.get('content-type') ?? '', /^text\/plain/);
  assert.ok((await src.text()).includes('mon,120'));
  assert.equal((await h.t.api('GET', '/api/dashboards/sales/source/t9')).status, 404);
  // Run ledger and events.
  const runs = (await h.t.api('GET', '/api/runs')).body;
  const rec = (Array.isArray(runs) ? runs : runs.runs).find((r: any) => r.runId === runId);
  assert.equal(rec.source, 'dashboard');
  const kinds = (await h.t.api('GET', `/api/runs/${runId}/events`)).body;
  const seen = (Array.isArray(kinds) ? kinds : kinds.events).map((e: any) => e.kind);
  for (const k of ['dashboard.build.started', 'dashboard.widget.published', 'dashboard.build.completed', 'dashboard.published']) assert.ok(seen.includes(k), `${k} in ${seen.join(',')}`);
  const listed = (await h.t.api('GET', '/api/dashboards')).body.dashboards.find((d: any) => d.id === 'sales');
  assert.equal(listed.building, false);
  assert.equal(listed.builtAt, doc.document.builtAt);
  assert.equal(listed.lastBuild.status, 'completed');

  // The next build starts from the page: a publish with replace drops what it does not send.
  h.model.script(
    { toolCalls: [{ id: 'd1', name: 'dashboard_source', args: { ref: 't1' } }] },
    { toolCalls: [{ id: 'd2', name: 'publish_dashboard', args: { replace: true, widgets: [{ id: 'total', type: 'stat', data: { value: 400 }, status: 'warn' }] } }] },
    { text: 'done' },
  );
  const n = h.model.requests.length;
  const second2 = await h.build('sales');
  assert.equal(second2.end.kind, 'run.completed');
  assert.match(h.model.requests[n].body.messages.find((m: any) => m.role === 'user').content, /Last build read \(a summary; read again for current numbers\):\n- read_file \{"path":"sales.csv"\} -> /);
  assert.ok(toolResult(h.model.requests[n + 1].body, 'd1').includes('mon,120'), 'dashboard_source reads the page\'s archive');
  const after2 = (await h.t.api('GET', '/api/dashboards/sales/doc')).body.document;
  assert.deepEqual(after2.widgets.map((w: any) => w.id), ['total']);
  // The archive of the first build is gone once nothing cites it.
  assert.ok(!(await readdir(path.join(h.t.home, 'dashboard-data', 'sales', 'sources'))).includes(runId));
});

test('a second run while building is 409; the build can be stopped like any run', async () => {
  h.model.script({ hang: true });
  const asked = h.model.requests.length;
  const first = await h.t.api('POST', '/api/dashboards/sales/run');
  assert.equal(first.status, 202);
  const again = await h.t.api('POST', '/api/dashboards/sales/run');
  assert.equal(again.status, 409);
  assert.match(again.body.error, new RegExp(`dashboard "sales" is already building \\(run ${first.body.runId}`));
  const busy = (await h.t.api('GET', '/api/dashboards/sales')).body;
  assert.equal(busy.building, true);
  // Publishing from elsewhere while it builds is refused with a sentence.
  const direct = await h.t.engine.tools.call({ callId: 'x', name: 'publish_dashboard', args: { dashboard: 'sales', widgets: [] } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
  assert.match(direct.text, /dashboard "sales" is being built by run run-/);
  await h.model.waitForRequests(asked + 1);
  assert.equal((await h.t.api('POST', `/api/runs/${first.body.runId}/stop`)).status, 202);
  assert.equal((await h.ended(first.body.runId)).kind, 'run.stopped');
  const doc = (await h.t.api('GET', '/api/dashboards/sales/doc')).body;
  assert.deepEqual(doc.document.widgets.map((w: any) => w.id), ['total'], 'a stopped build keeps the page');
});

test('a build whose model fails keeps the previous page and says what failed', async () => {
  const before = (await h.t.api('GET', '/api/dashboards/sales/doc')).body.document;
  h.model.script({ error: 400, body: { error: { message: 'model exploded' } } });
  const { end } = await h.build('sales');
  assert.equal(end.kind, 'run.failed');
  const doc = (await h.t.api('GET', '/api/dashboards/sales/doc')).body;
  assert.deepEqual(doc.document, before);
  assert.equal(doc.lastBuild.status, 'failed');
  assert.match(doc.lastBuild.error, /^the build's model failed: .*; the previous page is kept$/);
  assert.ok(h.events.events.some((e) => e.kind === 'dashboard.build.failed' && e.dashboard === 'sales'));
  // A build that never publishes fails too, and says so.
  h.model.script({ text: 'I could not find anything' });
  const quiet = await h.build('sales');
  assert.equal(quiet.end.kind, 'run.failed');
  assert.match((await h.t.api('GET', '/api/dashboards/sales')).body.lastBuild.error, /the build ended without publishing a widget \(the model answered: "I could not find anything"\)/);
});

test('the widget catalog: built-ins with shapes, custom types on a renderer, built-ins refuse', async () => {
  const cat = (await h.t.api('GET', '/api/widgets')).body;
  assert.deepEqual(cat.renderers, ['stat', 'table', 'list', 'markdown', 'progress', 'kv', 'chart']);
  assert.match(cat.widgets.find((w: any) => w.name === 'stat').shape, /value: number\|string, unit\?: string, delta\?: number/);
  const put = await h.t.api('PUT', '/api/widgets/kpi', { renderer: 'stat', label: 'KPI', span: 1, description: 'A key number' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.widget.renderer, 'stat');
  const bad = await h.t.api('PUT', '/api/widgets/pie', { renderer: 'pie' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'widget type "pie" was not saved: renderer must be one of stat, table, list, markdown, progress, kv, chart (got "pie"); description is required: say what the widget shows, for the model that fills it');
  const builtIn = await h.t.api('DELETE', '/api/widgets/table');
  assert.equal(builtIn.status, 400);
  assert.equal(builtIn.body.error, '"table" is a built-in widget type and cannot be deleted');
  // A custom type fills a slot and is checked by its renderer.
  const ok = await h.t.api('PUT', '/api/dashboards/kpis', { name: 'KPIs', layout: 2, slots: [{ id: 'k', title: 'K', type: 'kpi' }], prompt: 'p' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const pub = await h.t.engine.tools.call({ callId: 'y', name: 'publish_dashboard', args: { dashboard: 'kpis', widgets: [{ id: 'k', type: 'kpi', data: { value: 'x', unit: 3 } }] } }, { signal: new AbortController().signal, emit: () => undefined, attended: false });
  assert.equal(pub.text, 'accepted: none\nrejected 1 (fix and publish them again; accepted widgets are kept):\nwidget "k": data.unit must be a string (got number)\nslots still empty: k');
  // Both kinds are versioned in history.
  const versions = (kind: string, name: string) => h.t.api('GET', `/api/history/${kind}/${name}`).then((r) => (Array.isArray(r.body) ? r.body : r.body.versions));
  assert.equal((await versions('widget', 'kpi')).length, 1);
  assert.equal((await versions('dashboard', 'kpis')).length, 1);
  assert.equal((await h.t.api('DELETE', '/api/widgets/kpi')).status, 200);
  assert.ok(!(await h.t.api('GET', '/api/widgets')).body.widgets.some((w: any) => w.name === 'kpi'));
  // Both dashboard tools are in the registry and its listing.
  const tools = (await h.t.api('GET', '/api/tools')).body;
  const names = (Array.isArray(tools) ? tools : tools.tools).filter((t: any) => t.group === 'dashboard').map((t: any) => t.name).sort();
  assert.deepEqual(names, ['dashboard_source', 'publish_dashboard']);
});

test('POST /api/chat {dashboard}: the turn sees the dashboard, its results are archived, and it publishes into it', async () => {
  const unknown = await h.t.api('POST', '/api/chat', { sessionId: 'dash-chat', message: 'hi', dashboard: 'nope' });
  assert.equal(unknown.status, 404);
  h.model.script(
    { toolCalls: [{ id: 'e1', name: 'read_file', args: { path: 'sales.csv' } }] },
    { toolCalls: [{ id: 'e2', name: 'publish_dashboard', args: { widgets: [{ id: 'top', type: 'table', data: { columns: ['day', 'amount'], rows: [['mon', 120]] }, sources: ['t1'] }] } }] },
    { text: 'Added the table.' },
  );
  const n = h.model.requests.length;
  const seq = h.events.events.at(-1)?.seq ?? 0;
  const res = await h.t.api('POST', '/api/chat', { sessionId: 'dash-chat', message: 'add the top table', dashboard: 'sales' });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const started = await h.events.waitFor((e) => e.kind === 'run.started' && e.sessionId === 'dash-chat' && e.seq > seq, 20_000);
  const end = await h.ended(started.runId!);
  assert.equal(end.kind, 'run.completed', JSON.stringify(end));
  const system = h.model.requests[n].body.messages.find((m: any) => m.role === 'system').content;
  assert.match(system, /# Dashboard "sales": Sales/);
  assert.match(toolResult(h.model.requests[n + 1].body, 'e1'), /^\[source t1/);
  const doc = (await h.t.api('GET', '/api/dashboards/sales/doc')).body.document;
  const top = doc.widgets.find((w: any) => w.id === 'top');
  assert.equal(top.runId, started.runId);
  assert.deepEqual(doc.widgets.map((w: any) => w.id), ['total', 'top'], 'merged into the page, in slot order');
  const src = await h.t.api('GET', `/api/dashboards/sales/source/t1?run=${started.runId}`);
  assert.ok(String(src.body).includes('mon,120'));
});

test('a stored secret never lands in an archive or the page file', async () => {
  const secret = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
  assert.equal((await h.t.api('POST', '/api/secrets', { name: 'shop.key', value: secret })).status, 200);
  await h.workspaceFile('config.txt', `key=${secret}\n`);
  assert.equal((await h.t.api('PUT', '/api/dashboards/keys', { name: 'Keys', layout: 1, slots: [{ id: 'k', title: 'K', type: 'markdown' }], prompt: 'p' })).status, 200);
  h.model.script(
    { toolCalls: [{ name: 'read_file', args: { path: 'config.txt' } }] },
    { toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'k', type: 'markdown', data: { text: `the key is ${secret}` }, sources: ['t1'] }] } }] },
    { text: 'done' },
  );
  const { runId, end } = await h.build('keys');
  assert.equal(end.kind, 'run.completed');
  const dir = path.join(h.t.home, 'dashboard-data', 'keys');
  const archived = await readFile(path.join(dir, 'sources', runId, 't1.txt'), 'utf8');
  assert.ok(archived.includes('key=') && !archived.includes(secret), archived);
  const page = await readFile(path.join(dir, 'doc.json'), 'utf8');
  assert.ok(page.includes('the key is') && !page.includes(secret));
});

test("a build runs as the definition's agent: its prompt, and its allowlist narrowing the dashboard's tools", async () => {
  const agent = await h.t.api('PUT', '/api/agents/analyst', { description: 'Reads numbers', system: 'You are the analyst.', tools: ['read_file', 'write_file'] });
  assert.equal(agent.status, 200, JSON.stringify(agent.body));
  assert.equal((await h.t.api('PUT', '/api/dashboards/by-agent', { name: 'By agent', agent: 'analyst', layout: 1, tools: ['read_file', 'glob'], slots: [{ id: 'n', title: 'N', type: 'stat' }], prompt: 'count' })).status, 200);
  h.model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'n', type: 'stat', data: { value: 1 } }] } }] }, { text: 'ok' });
  const n = h.model.requests.length;
  const { runId, end } = await h.build('by-agent');
  assert.equal(end.kind, 'run.completed');
  const req = h.model.requests[n].body;
  assert.equal(req.messages.find((m: any) => m.role === 'system').content.startsWith('You are the analyst.'), true);
  assert.deepEqual((req.tools as any[]).map((t) => t.function.name).sort(), ['dashboard_source', 'publish_dashboard', 'read_file'], 'glob is not the agent\'s, write_file not the dashboard\'s');
  const rec = (await h.t.api('GET', '/api/runs')).body;
  assert.equal((Array.isArray(rec) ? rec : rec.runs).find((r: any) => r.runId === runId).agent, 'analyst');
});
