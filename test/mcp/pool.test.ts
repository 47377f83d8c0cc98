/** The MCP pool against the real reference servers (stdio): tools, calls, results, restarts, reconciling in place. */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';
import { callTool, connected, EVERYTHING, FILESYSTEM, serverPids, stdio, waitForMcp } from './support.js';

describe('mcp pool (stdio reference servers)', () => {
  let t: TestEngine;
  let docs: string;
  before(async () => {
    t = await startTestEngine();
    docs = await tempDir('mcp-docs-');
  });
  after(async () => t?.close());

  it('takes a pasted Claude Desktop block, connects after the engine listens and registers <server>_<tool>', async () => {
    const put = await t.api('PUT', '/api/mcp', { mcpServers: { everything: stdio(EVERYTHING, 'stdio'), files: { ...stdio(FILESYSTEM, '${workspace}', '${mounts}') } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const view = await waitForMcp(t, (v) => connected('everything')(v) && connected('files')(v), 'both servers');
    assert.ok(view.status.everything.tools.includes('everything_echo'));
    assert.ok(view.status.files.tools.includes('files_read_text_file'));
    assert.equal(view.status.everything.transport, 'stdio');
    const tools = (await t.api('GET', '/api/tools')).body as any[];
    const echo = tools.find((x) => x.name === 'everything_echo');
    assert.equal(echo.source, 'everything');
    const status = await t.api('GET', '/api/status');
    assert.ok(status.body.tools.includes('everything_echo'));
    assert.equal(status.body.mcp.servers.find((s: any) => s.name === 'everything').state, 'connected');
    const saved = JSON.parse(await readFile(path.join(t.home, 'mcp.json'), 'utf8'));
    assert.deepEqual(Object.keys(saved.servers).sort(), ['everything', 'files'], 'stored as servers, whichever alias was sent');
  });

  it('calls a tool through the registry and gets its text back', async () => {
    const out = await callTool(t, 'everything_echo', { message: 'hello pool' });
    assert.equal(out.isError, false, out.text);
    assert.match(out.text, /hello pool/);
  });

  it('a server’s progress notifications go out as tool.progress with the call id while the call runs', async () => {
    const events: Array<{ kind: string; payload: any }> = [];
    const ctx = { signal: new AbortController().signal, emit: (kind: string, payload?: any) => void events.push({ kind, payload }), attended: false };
    const out = await t.engine.tools.call({ callId: 'long-1', name: 'everything_trigger-long-running-operation', args: { duration: 0.4, steps: 4 } }, ctx);
    assert.equal(out.isError, false, out.text);
    // The last notification and the answer race in the SDK: the steps before it always arrive, in order.
    const progress = events.filter((e) => e.kind === 'tool.progress').map((e) => e.payload);
    assert.deepEqual(progress.slice(0, 3), [1, 2, 3].map((n) => ({ callId: 'long-1', tool: 'everything_trigger-long-running-operation', progress: n, total: 4 })));
    assert.ok(events.findIndex((e) => e.kind === 'tool.progress') < events.findIndex((e) => e.kind === 'tool.result'));
  });

  it('clips a 100 KB text result at 20 000 characters with a note, and passes errors whole', async () => {
    await writeFile(path.join(t.home, 'workspace', 'big.txt'), 'y'.repeat(100_000));
    const big = await callTool(t, 'files_read_text_file', { path: path.join(t.home, 'workspace', 'big.txt') });
    assert.equal(big.isError, false, big.text.slice(0, 300));
    assert.ok(big.text.length < 21_000, `clipped (${big.text.length})`);
    assert.match(big.text, /clipped: the tool returned 100000 characters; the first 20000 are shown/);
    const missing = await callTool(t, 'files_read_text_file', { path: path.join(t.home, 'workspace', 'no-such-file.txt') });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /no-such-file|ENOENT|not found/i);
  });

  it('a server killed mid-call fails the call with a sentence and comes back with its tools', async () => {
    const [pid] = serverPids(EVERYTHING);
    assert.ok(pid, 'the everything server runs as a child of the engine');
    const pending = callTool(t, 'everything_trigger-long-running-operation', { duration: 30, steps: 30 });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    const out = await pending;
    assert.equal(out.isError, true);
    assert.match(out.text, /everything/);
    const view = await waitForMcp(t, (v) => connected('everything')(v) && v.status.everything.restarts >= 1, 'the restart');
    assert.ok(view.status.everything.tools.includes('everything_echo'));
    const again = await callTool(t, 'everything_echo', { message: 'back' });
    assert.match(again.text, /back/);
  });

  it('PUT /api/mcp changes one server while the other keeps its session (same process)', async () => {
    const everythingBefore = serverPids(EVERYTHING);
    const filesBefore = serverPids(FILESYSTEM);
    const view = (await t.api('GET', '/api/mcp')).body;
    const put = await t.api('PUT', '/api/mcp', { servers: { ...view.servers, files: stdio(FILESYSTEM, '${workspace}', docs) } });
    assert.equal(put.status, 200);
    await waitForMcp(t, (v) => connected('files')(v) && serverPids(FILESYSTEM).every((p) => !filesBefore.includes(p)), 'the changed server');
    assert.deepEqual(serverPids(EVERYTHING), everythingBefore, 'the unchanged server was not restarted');
    // Put it back to the mounts form for the next test.
    await t.api('PUT', '/api/mcp', { servers: { ...view.servers } });
    await waitForMcp(t, connected('files'), 'files again');
  });

  it('mounting a folder reconnects exactly the servers that use ${mounts}', async () => {
    const everythingBefore = serverPids(EVERYTHING);
    const filesBefore = serverPids(FILESYSTEM);
    await mkdir(path.join(docs, 'sub'), { recursive: true });
    await writeFile(path.join(docs, 'note.txt'), 'mounted note');
    const mounted = await t.api('POST', '/api/mounts', { path: docs, name: 'docs' });
    assert.ok(mounted.status < 300, JSON.stringify(mounted.body));
    await waitForMcp(t, (v) => connected('files')(v) && serverPids(FILESYSTEM).every((p) => !filesBefore.includes(p)), 'files restarted');
    assert.deepEqual(serverPids(EVERYTHING), everythingBefore, 'a server without ${mounts} keeps its session');
    const read = await callTool(t, 'files_read_text_file', { path: path.join(await realpathOf(docs), 'note.txt') });
    assert.equal(read.isError, false, read.text);
    assert.match(read.text, /mounted note/);
  });

  it('toggle takes a server and its tools away at once, and brings them back', async () => {
    const off = await t.api('POST', '/api/mcp/everything/toggle', { enabled: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.status.everything.state, 'disabled');
    assert.equal(t.engine.tools.get('everything_echo'), undefined);
    assert.equal(serverPids(EVERYTHING).length, 0, 'the process is gone');
    await t.api('POST', '/api/mcp/everything/toggle', { enabled: true });
    await waitForMcp(t, connected('everything'), 'everything back');
    const missing = await t.api('POST', '/api/mcp/nobody/toggle', { enabled: true });
    assert.equal(missing.status, 404);
  });

  it('refuses bad maps with a sentence and keeps the old one', async () => {
    for (const [body, re] of [
      // A key that is not a server name is renamed, not refused (test/mcp/pasted-names.test.ts).
      [{ servers: { a: { url: 'ftp://x' } } }, /http/],
      [{ servers: { a: {} } }, /command|url/],
      [{ servers: { a: { command: 'x', bogus: 1 } } }, /bogus/],
    ] as const) {
      const r = await t.api('PUT', '/api/mcp', body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error, re);
    }
    const view = (await t.api('GET', '/api/mcp')).body;
    assert.deepEqual(Object.keys(view.servers).sort(), ['everything', 'files']);
  });
});

async function realpathOf(p: string): Promise<string> {
  const { realpath } = await import('node:fs/promises');
  return realpath(p);
}
