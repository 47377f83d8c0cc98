/** A server whose tool list changes while connected: `tools/list_changed` re-lists, and the registry follows. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestEngine, type TestEngine } from '../support/engine.js';
import { callTool, connected, stdio, waitForMcp } from './support.js';

const GROWING = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'growing-server.mjs');

const registered = async (t: TestEngine) => ((await t.api('GET', '/api/tools')).body as any[]).map((x) => x.name);

describe('mcp tools/list_changed', () => {
  let t: TestEngine;
  before(async () => {
    t = await startTestEngine();
  });
  after(async () => t?.close());

  it('adds a tool the server announces, and removes one it withdraws', async () => {
    const put = await t.api('PUT', '/api/mcp', { mcpServers: { growing: stdio(GROWING) } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const first = await waitForMcp(t, connected('growing'), 'the growing server');
    assert.deepEqual([...first.status.growing.tools].sort(), ['growing_grow', 'growing_prune']);
    assert.ok(!(await registered(t)).includes('growing_grown'));

    assert.equal((await callTool(t, 'growing_grow')).text, 'grew');
    await waitForMcp(t, (v) => v.status?.growing?.tools.includes('growing_grown'), 'the announced tool');
    assert.ok((await registered(t)).includes('growing_grown'), 'the registry holds the new tool');
    const out = await callTool(t, 'growing_grown');
    assert.equal(out.isError, false, out.text);
    assert.equal(out.text, 'grown here');

    assert.equal((await callTool(t, 'growing_prune')).text, 'pruned');
    await waitForMcp(t, (v) => v.status?.growing && !v.status.growing.tools.includes('growing_grown'), 'the withdrawn tool gone');
    assert.ok(!(await registered(t)).includes('growing_grown'), 'the registry dropped it');
    const gone = await callTool(t, 'growing_grown');
    assert.equal(gone.isError, true);
  });
});
