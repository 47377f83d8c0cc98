/**
 * Charts are drawn off the engine's thread, within limits (issue 39 §2): a chart inside the grammar
 * that would take seconds and a gigabyte to draw is stopped in its worker, the page shows the limit
 * it hit, and the API answers while it is being drawn; a widget stored before the grammar existed,
 * with the expression that killed the engine, is named and not drawn at all.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startDashboards } from './harness.js';

const html = (url: string) => fetch(url, { headers: { accept: 'text/html' } });
const LIMIT = /this chart (took longer than 2 s|needed more than 256 MB of memory) to draw \(the engine&#39;s limit for one chart\)/;

test('a chart past the time or memory budget is stopped in the worker; the page names the limit and the API answers meanwhile', async () => {
  const h = await startDashboards();
  try {
    const put = await h.t.api('PUT', '/api/dashboards/heavy', { name: 'Heavy', layout: 2, slots: [{ id: 'dense', title: 'Dense', type: 'chart', span: 2 }, { id: 'n', title: 'N', type: 'stat' }], prompt: 'draw' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    // Within the grammar, and the worst it allows: a density curve for each of 5 000 groups.
    const dense = {
      mark: 'line',
      data: { values: Array.from({ length: 5000 }, (_, i) => ({ k: `k${i}`, v: i % 97 })) },
      transform: [{ density: 'v', groupby: ['k'], steps: 1000 }],
      encoding: { x: { field: 'value', type: 'quantitative' }, y: { field: 'density', type: 'quantitative' }, color: { field: 'k', type: 'nominal', legend: null } },
    };
    h.model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'dense', type: 'chart', data: dense }, { id: 'n', type: 'stat', data: { value: 4242 } }] } }] }, { text: 'done' });
    const { end } = await h.build('heavy');
    assert.equal(end.kind, 'run.completed', JSON.stringify(end));
    const doc = (await h.t.api('GET', '/api/dashboards/heavy/doc')).body.document;
    assert.deepEqual(doc.widgets.map((w: any) => w.id), ['dense', 'n'], 'the chart passed the grammar and was published');

    let drawn = false;
    const page = html(`${h.t.url}/api/dashboards/heavy/doc`).then(async (r) => {
      drawn = true;
      return { status: r.status, text: await r.text() };
    });
    const status = await h.t.api('GET', '/api/status');
    assert.equal(status.status, 200);
    assert.equal(drawn, false, 'GET /api/status answered while the chart was being drawn');
    const answer = await page;
    assert.equal(answer.status, 200);
    assert.match(answer.text, LIMIT);
    assert.match(answer.text, /4,242/, 'the other widgets of the page are drawn');
    // The stopped chart is remembered: the next view says the same at once, without drawing it again.
    const again = await html(`${h.t.url}/api/dashboards/heavy/doc`);
    assert.match(await again.text(), LIMIT);
    assert.equal((await h.t.api('GET', '/api/status')).status, 200);
  } finally {
    await h.close();
  }
});

test('a stored chart with the expression that killed the engine is named on the page and never drawn', async () => {
  const home = await tempDir();
  try {
    const at = new Date().toISOString();
    const exploit = {
      mark: 'bar',
      data: { values: [{ a: 1 }] },
      encoding: { x: { field: 'a', type: 'quantitative' }, color: { condition: { test: 'length(sequence(0,1000000000)) > 0', value: 'red' }, value: 'blue' } },
    };
    await mkdir(path.join(home, 'dashboards'), { recursive: true });
    await mkdir(path.join(home, 'dashboard-data', 'old'), { recursive: true });
    await writeFile(path.join(home, 'dashboards', 'old.json'), JSON.stringify({ name: 'Old', layout: 1, slots: [{ id: 'c', title: 'C', type: 'chart' }], prompt: 'draw' }));
    const document = { title: 'Old', builtAt: at, runId: 'run-1-1', widgets: [{ id: 'c', type: 'chart', data: exploit, sources: [], runId: 'run-1-1' }] };
    await writeFile(path.join(home, 'dashboard-data', 'old', 'doc.json'), JSON.stringify({ document, lastBuild: { runId: 'run-1-1', status: 'completed', at } }));
    const h = await startDashboards({ home });
    try {
      for (let view = 0; view < 2; view++) {
        const res = await html(`${h.t.url}/api/dashboards/old/doc`);
        assert.equal(res.status, 200);
        const text = await res.text();
        assert.match(text, /this chart is outside the chart grammar and is not drawn: data\.encoding\.color\.condition\.test must be a field predicate/);
        assert.doesNotMatch(text, /<svg[^>]*class="marks"/);
      }
      assert.equal((await h.t.api('GET', '/api/status')).status, 200);
    } finally {
      await h.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
