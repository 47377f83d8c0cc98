/**
 * Second-look findings on files, the fence and the registry: names with `%` or a leading `~`,
 * a mount name that would hide a workspace folder, NUL in a search, reveal failing to start,
 * read_file paging a long file, and MCP tools never running concurrently.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { defineTool, type ToolContext } from '../../src/tools/types.js';
import { rawJson } from '../support/raw-http.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let ws: string;
let proj: string;

before(async () => {
  t = await startTestEngine({ files: { watch: false, revealCommand: '/nonexistent/file-manager' } });
  ws = await realpath(path.join(t.home, 'workspace'));
  proj = await realpath(await tempDir('files-audit-proj-'));
  await writeFile(path.join(proj, 'in-mount.md'), 'shadow-probe from the mount\n');
});
after(async () => {
  await t.close();
  await rm(proj, { recursive: true, force: true });
});

const raw = (method: string, rawPath: string, body?: string) => rawJson(t.url, method, rawPath, body);

const ctx = (): Omit<ToolContext, 'callId'> => ({ signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: false });
let n = 0;
const call = (name: string, args: Record<string, unknown>) => t.engine.tools.call({ callId: `a${++n}`, name, args }, ctx());

test('file names with "%" or a leading "~" are ordinary names; encoded climbs are still refused', async () => {
  const names = ['100%25.txt', '50%.md', '~notes.md', '~$report.docx', 'sub/~/x.txt'];
  for (const name of names) {
    const route = '/api/files/' + name.split('/').map(encodeURIComponent).join('/');
    const put = await raw('PUT', route, JSON.stringify({ content: `named ${name}` }));
    assert.equal(put.status, 200, `${name}: ${JSON.stringify(put.body)}`);
    assert.equal(put.body.path, name);
    assert.equal(await readFile(path.join(ws, name), 'utf8'), `named ${name}`);
    const get = await raw('GET', route);
    assert.equal(get.body.content, `named ${name}`);
  }
  const tree = await t.api('GET', '/api/files');
  for (const name of names) assert.ok(tree.body.files.some((f: { path: string }) => f.path === name), name);
  assert.equal((await call('read_file', { path: '100%25.txt' })).text, 'named 100%25.txt');
  assert.equal((await call('edit_file', { path: '~notes.md', old_string: 'named', new_string: 'edited' })).isError, false);

  // A percent-encoded climb, separator, home or NUL is refused whatever layer would decode it.
  for (const p of ['%2e%2e/x', '%252e%252e/x', '%25252e%25252e/x', 'a%2f..%2f..%2fx', 'a%5cb', 'a%00b', '%7e/x', '~', '~/x']) {
    const r = await t.api('POST', '/api/files-op', { op: 'mkdir', path: p });
    assert.equal(r.status, 400, `${p} answered ${r.status}`);
    assert.match(r.body.error, /percent-encoding|absolute/);
    const tool = await call('write_file', { path: p, content: 'x' });
    assert.equal(tool.isError, true, p);
  }
  await assert.rejects(stat(path.join(ws, '~', 'x')));
});

test('a mount name that would hide a workspace folder is refused; one hidden later is neither listed nor searched', async () => {
  await mkdir(path.join(ws, 'taken'), { recursive: true });
  await writeFile(path.join(ws, 'taken', 'w.md'), 'shadow-probe in the workspace\n');
  const clash = await t.api('POST', '/api/mounts', { path: proj, name: 'taken' });
  assert.equal(clash.status, 409);
  assert.match(clash.body.error, /workspace already has a top-level "taken".*another "name"/);
  assert.equal((await t.api('GET', '/api/mounts')).body.mounts.length, 0);

  // Mounted under a free name; then a same-named workspace folder appears from outside (a shell).
  assert.equal((await t.api('POST', '/api/mounts', { path: proj, name: 'later' })).status, 201);
  await mkdir(path.join(ws, 'later'));
  await writeFile(path.join(ws, 'later', 'hidden.md'), 'shadow-probe hidden in the workspace\n');
  try {
    const tree = await t.api('GET', '/api/files');
    const paths = tree.body.files.map((f: { path: string }) => f.path);
    assert.ok(paths.includes('later/in-mount.md'));
    assert.ok(!paths.includes('later/hidden.md'), 'a hidden workspace file is not listed under the mount name');
    assert.ok(tree.body.warnings.some((w: string) => /top-level "later" is hidden by mount "later"/.test(w)));
    const search = await t.api('GET', '/api/search?q=shadow-probe');
    assert.deepEqual(search.body.results.map((r: { path: string }) => r.path).sort(), ['later/in-mount.md', 'taken/w.md']);
    const grep = (await call('grep', { pattern: 'shadow-probe' })).text;
    assert.doesNotMatch(grep, /hidden/);
    assert.match(grep, /later\/in-mount\.md:1:/);
    assert.doesNotMatch((await call('glob', { pattern: '**/*.md' })).text, /hidden\.md/);
    assert.equal((await call('list_dir', { path: '.' })).text.split('\n').filter((l) => l.startsWith('later')).join(','), 'later/');
    assert.equal((await call('list_dir', { path: 'later' })).text, 'in-mount.md');
  } finally {
    await t.api('DELETE', '/api/mounts/later');
  }
});

test('a NUL byte in a search is a 400 sentence, not an internal error', async () => {
  const r = await t.api('GET', '/api/search?q=' + encodeURIComponent('a\0b'));
  assert.equal(r.status, 400);
  assert.match(r.body.error, /NUL byte/);
  const g = await call('grep', { pattern: 'a\0b' });
  assert.equal(g.isError, true);
  assert.match(g.text, /^the pattern or a file glob contains a NUL byte/);
});

test('reveal answers ok: false (status 200) when the file manager cannot be started', async () => {
  await t.api('PUT', '/api/files/rv/x.txt', { content: 'x' });
  const r = await t.api('POST', '/api/files-op', { op: 'reveal', path: 'rv/x.txt' });
  assert.equal(r.status, 200);
  assert.equal(r.body.ok, false);
  assert.match(r.body.error, /could not be started/);
});

test('read_file pages a file too long for one answer, header first; an empty file says so', async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${'x'.repeat(30)}`);
  await writeFile(path.join(ws, 'big.txt'), lines.join('\n') + '\n');
  const first = (await call('read_file', { path: 'big.txt' })).text;
  const m = /^\[lines 1-(\d+) of 3000; more remain, call again with offset=(\d+)\]\n/.exec(first);
  assert.ok(m, first.slice(0, 100));
  const end = Number(m[1]);
  assert.equal(Number(m[2]), end + 1);
  assert.ok(first.length <= 24_000);
  assert.doesNotMatch(first, /clipped/);
  assert.ok(first.endsWith(`\nline ${end} ${'x'.repeat(30)}`), 'whole lines only');
  const next = (await call('read_file', { path: 'big.txt', offset: end + 1, limit: 2 })).text;
  assert.equal(next, `[lines ${end + 1}-${end + 2} of 3000; more remain, call again with offset=${end + 3}]\n${lines[end]}\n${lines[end + 1]}`);
  await writeFile(path.join(ws, 'empty.txt'), '');
  assert.equal((await call('read_file', { path: 'empty.txt' })).text, 'empty.txt is empty (0 lines)');
  assert.equal((await call('read_file', { path: 'empty.txt', offset: 1 })).text, 'empty.txt is empty (0 lines)');
});

test('an MCP tool declaring itself read-only still runs serially', async () => {
  let running = 0;
  let peak = 0;
  const mcp = defineTool<{ id: string }>({
    name: 'srv_lookup',
    group: 'srv',
    source: 'srv',
    readOnly: true,
    description: 'test tool',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    permission: 'unknown',
    run: async (args) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return args.id;
    },
  });
  t.engine.tools.register(mcp);
  try {
    const out = await t.engine.tools.runBatch(['1', '2', '3'].map((id) => ({ callId: id, name: 'srv_lookup', args: { id } })), ctx());
    assert.deepEqual(out.map((o) => o.text), ['1', '2', '3']);
    assert.equal(peak, 1);
  } finally {
    t.engine.tools.unregister('srv_lookup');
  }
});

test('GET /api/files lists at most 1500 files per root and says so; GET /api/search stops at 500 matches, truncated', async () => {
  const many = path.join(ws, 'many');
  await mkdir(many, { recursive: true });
  await Promise.all(Array.from({ length: 1520 }, (_, i) => writeFile(path.join(many, `f${String(i).padStart(4, '0')}.txt`), 'cap-probe\n')));
  try {
    const tree = await t.api('GET', '/api/files');
    assert.equal(tree.status, 200);
    assert.equal(tree.body.files.length, 1500); // no mount is left at this point: every file is the workspace's
    assert.ok(tree.body.warnings.some((w: string) => /the workspace has more than 1500 files/.test(w)), JSON.stringify(tree.body.warnings));
    const search = await t.api('GET', '/api/search?q=cap-probe');
    assert.equal(search.body.truncated, true);
    assert.equal(search.body.results.reduce((sum: number, r: { matches: unknown[] }) => sum + r.matches.length, 0), 500);
  } finally {
    await rm(many, { recursive: true, force: true });
  }
});

test('creating a path under a file is a 409 sentence, through the routes and the tools', async () => {
  await t.api('PUT', '/api/files/plain.txt', { content: 'x' });
  await t.api('PUT', '/api/files/other.txt', { content: 'o' });
  for (const [method, route, body] of [
    ['PUT', '/api/files/plain.txt/sub.txt', { content: 'x' }],
    ['PUT', '/api/files/plain.txt/a/b.txt', { content: 'x' }],
    ['POST', '/api/files-op', { op: 'mkdir', path: 'plain.txt/d' }],
    ['POST', '/api/files-op', { op: 'copy', path: 'other.txt', to: 'plain.txt/other.txt' }],
    ['POST', '/api/files-op', { op: 'rename', path: 'other.txt', to: 'plain.txt/other.txt' }],
  ] as const) {
    const r = await t.api(method, route, body);
    assert.equal(r.status, 409, `${method} ${route}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error, /a folder on its path is a file/);
  }
  const bin = await t.api('PUT', '/api/files-bin/plain.txt/x.bin', 'bytes');
  assert.equal(bin.status, 409);
  assert.match((await call('write_file', { path: 'plain.txt/x.md', content: 'x' })).text, /a folder on its path is a file/);
  assert.equal(await readFile(path.join(ws, 'plain.txt'), 'utf8'), 'x');
});

test('a comma string on an array of numbers or booleans splits into typed items', async () => {
  let got: unknown;
  t.engine.tools.register(
    defineTool<{ range: number[]; flags?: boolean[] }>({
      name: 'test_typed_split',
      group: 'test',
      description: 'test tool',
      parameters: {
        type: 'object',
        properties: { range: { type: 'array', items: { type: 'integer' } }, flags: { type: 'array', items: { type: 'boolean' } } },
        required: ['range'],
      },
      permission: 'other',
      run: async (args) => {
        got = args;
        return 'ok';
      },
    }),
  );
  try {
    assert.equal((await call('test_typed_split', { range: '3, 10', flags: 'true,false' })).text, 'ok');
    assert.deepEqual(got, { range: [3, 10], flags: [true, false] });
    assert.equal((await call('test_typed_split', { range: '3,x' })).text, 'Invalid arguments for tool "test_typed_split": field "range.1" must be integer.');
  } finally {
    t.engine.tools.unregister('test_typed_split');
  }
});

test('a named pipe in the workspace is refused, not read forever', async () => {
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [path.join(ws, 'pipe')]);
  const r = await t.api('GET', '/api/files/pipe');
  assert.equal(r.status, 400);
  assert.match(r.body.error, /not a regular file/);
  assert.match((await call('read_file', { path: 'pipe' })).text, /not a regular file/);
  assert.match((await call('edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' })).text, /not a regular file/);
  assert.equal((await t.api('GET', '/api/files/pipe?raw=1')).status, 400);
  assert.match((await call('grep', { pattern: 'x', path: 'pipe' })).text, /not a regular file/);
  assert.doesNotMatch((await call('grep', { pattern: 'zz-nothing-zz' })).text, /pipe/); // a whole-tree search passes it by
  await rm(path.join(ws, 'pipe'));
});

test('exactly the seed\'s read-only tools that are registered are marked read-only (they alone run four at a time)', () => {
  // tool_search (the tool-prompt budget's, not in the seed's list) only reads the registry: read-only too.
  const engineOwn = new Set(['tool_search']);
  const seventeen = new Set(['read_file', 'list_dir', 'grep', 'glob', 'search_code', 'web_fetch', 'web_search', 'db_connections', 'db_schema', 'dashboard_source', 'atlas_source', 'read_card', 'list_node_types', 'get_workflow', 'validate_workflow', 'engine_activity', 'state_get']);
  assert.equal(seventeen.size, 17);
  for (const tool of t.engine.tools.all()) {
    if ((tool.source ?? 'built-in') !== 'built-in') continue;
    assert.equal(tool.readOnly === true, seventeen.has(tool.name) || engineOwn.has(tool.name), `${tool.name}: readOnly is ${tool.readOnly}`);
  }
});
