/**
 * A restart keeps what dashboards have: the page, the last build, the refresh schedule, and a
 * definition naming an MCP tool that connects only after the engine has started.
 */
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/engine.js';
import { startDashboards } from './harness.js';

test('the page, the last build and the schedule survive a restart; an MCP tool name is not an error at start', async () => {
  const home = await tempDir();
  try {
    let h = await startDashboards({ home });
    assert.equal((await h.t.api('PUT', '/api/dashboards/daily', { name: 'Daily', layout: 2, refresh: '0 9 * * *', slots: [{ id: 'n', title: 'N', type: 'stat' }], prompt: 'count' })).status, 200);
    h.model.script({ toolCalls: [{ name: 'publish_dashboard', args: { widgets: [{ id: 'n', type: 'stat', data: { value: 7 } }] } }] }, { text: 'ok' });
    const { end } = await h.build('daily');
    assert.equal(end.kind, 'run.completed');
    const before = (await h.t.api('GET', '/api/dashboards/daily/doc')).body;
    await h.close();

    await mkdir(path.join(home, 'dashboards'), { recursive: true });
    await writeFile(path.join(home, 'dashboards', 'tickets.json'), JSON.stringify({ name: 'Tickets', layout: 1, tools: ['tracker_search'], slots: [{ id: 'open', title: 'Open' }], prompt: 'count open tickets' }));
    h = await startDashboards({ home });
    try {
      const after = (await h.t.api('GET', '/api/dashboards/daily/doc')).body;
      assert.deepEqual(after.document, before.document);
      assert.equal(after.lastBuild.status, 'completed');
      assert.deepEqual(h.t.engine.dashboards.refreshArmed(), ['daily']);
      const tickets = (await h.t.api('GET', '/api/dashboards')).body.dashboards.find((d: any) => d.id === 'tickets');
      assert.equal(tickets.error, undefined, 'a tool of a server not connected yet is not an error in a file');
    } finally {
      await h.close();
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
