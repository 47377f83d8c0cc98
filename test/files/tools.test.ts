import assert from 'node:assert/strict';
import { mkdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { EngineEvent } from '../../src/kernel/bus.js';
import { defineTool, type ToolContext } from '../../src/tools/types.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

let t: TestEngine;
let ws: string;
let outside: string;
let proj: string;
const seen: EngineEvent[] = [];

before(async () => {
  t = await startTestEngine({ files: { watch: false } });
  ws = await realpath(path.join(t.home, 'workspace'));
  outside = await realpath(await tempDir('tools-outside-'));
  proj = await realpath(await tempDir('tools-proj-'));
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(proj, 'lib.ts'), 'export const fromMount = 1;\n');
  await t.api('POST', '/api/mounts', { path: proj, name: 'proj' });
  t.engine.bus.subscribe((e) => seen.push(e));
});
after(async () => {
  await t.close();
  await rm(outside, { recursive: true, force: true });
  await rm(proj, { recursive: true, force: true });
});

const ctx = (): Omit<ToolContext, 'callId'> => ({ signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: false });
let n = 0;
async function call(name: string, args: Record<string, unknown> | string) {
  return t.engine.tools.call({ callId: `c${++n}`, name, args }, ctx());
}
async function ok(name: string, args: Record<string, unknown>) {
  const r = await call(name, args);
  assert.equal(r.isError, false, `${name} failed: ${r.text}`);
  return r.text;
}
async function fails(name: string, args: Record<string, unknown>, re: RegExp) {
  const r = await call(name, args);
  assert.equal(r.isError, true, `${name} should fail: ${r.text}`);
  assert.match(r.text, re);
  return r.text;
}

test('write_file, read_file (whole and ranged) with their events', async () => {
  assert.equal(await ok('write_file', { path: 'src/a.txt', content: 'one\ntwo\nthree\nfour\n' }), 'wrote src/a.txt (19 bytes)');
  assert.ok(seen.some((e) => e.kind === 'file.written' && e.path === 'src/a.txt'));
  assert.equal(await ok('read_file', { path: 'src/a.txt' }), 'one\ntwo\nthree\nfour\n');
  assert.ok(seen.some((e) => e.kind === 'file.read' && e.path === 'src/a.txt'));
  assert.equal(await ok('read_file', { path: 'src/a.txt', offset: 2, limit: 2 }), '[lines 2-3 of 4; more remain, call again with offset=4]\ntwo\nthree');
  assert.equal(await ok('read_file', { path: 'src/a.txt', offset: 3 }), '[lines 3-4 of 4]\nthree\nfour');
  await fails('read_file', { path: 'src/a.txt', offset: 9 }, /has 4 lines/);
  await fails('read_file', { path: 'src/none.txt' }, /does not exist/);
  await fails('read_file', { path: 'src' }, /folder/);
  assert.equal(await ok('read_file', { path: 'proj/lib.ts' }), 'export const fromMount = 1;\n');
});

test('edit_file: exactly one occurrence, literal replacement', async () => {
  await ok('write_file', { path: 'e.txt', content: 'a = 1\nb = 1\nprice\n' });
  await fails('edit_file', { path: 'e.txt', old_string: '= 1', new_string: '= 2' }, /occurs 2 times/);
  await fails('edit_file', { path: 'e.txt', old_string: 'zzz', new_string: 'y' }, /occurs 0 times/);
  assert.equal(await ok('edit_file', { path: 'e.txt', old_string: 'price', new_string: '$& costs $1 and $$' }), 'edited e.txt');
  assert.equal(await readFile(path.join(ws, 'e.txt'), 'utf8'), 'a = 1\nb = 1\n$& costs $1 and $$\n');
  assert.ok(seen.some((e) => e.kind === 'file.edited' && e.path === 'e.txt'));
});

test('concurrent edits of one file all land (one queue per file)', async () => {
  await ok('write_file', { path: 'race.txt', content: Array.from({ length: 20 }, (_, i) => `tok${i};`).join('\n') });
  const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => call('edit_file', { path: 'race.txt', old_string: `tok${i};`, new_string: `done${i};` })));
  assert.ok(outs.every((o) => !o.isError), outs.map((o) => o.text).join('\n'));
  assert.equal(await readFile(path.join(ws, 'race.txt'), 'utf8'), Array.from({ length: 20 }, (_, i) => `done${i};`).join('\n'));
});

test('multi_edit is atomic and names the failing edit', async () => {
  await ok('write_file', { path: 'm.txt', content: 'alpha beta gamma\n' });
  const before = await readFile(path.join(ws, 'm.txt'), 'utf8');
  await fails(
    'multi_edit',
    { path: 'm.txt', edits: [{ old_string: 'alpha', new_string: 'ALPHA' }, { old_string: 'alpha', new_string: 'x' }] },
    /edit 2 of 2: old_string occurs 0 times/,
  );
  assert.equal(await readFile(path.join(ws, 'm.txt'), 'utf8'), before);
  assert.equal(
    await ok('multi_edit', { path: 'm.txt', edits: [{ old_string: 'alpha', new_string: 'beta2' }, { old_string: 'beta2 beta', new_string: 'B' }] }),
    'applied 2 edits to m.txt',
  );
  assert.equal(await readFile(path.join(ws, 'm.txt'), 'utf8'), 'B gamma\n');
  // edits as a JSON string is coerced into the array
  assert.equal(await ok('multi_edit', { path: 'm.txt', edits: '[{"old_string":"B","new_string":"C"}]' }), 'applied 1 edits to m.txt');
});

test('list_dir: sorted, folders with /, mounts at the root, 500 cap', async () => {
  await mkdir(path.join(ws, 'ld/sub'), { recursive: true });
  await writeFile(path.join(ws, 'ld/b.txt'), '');
  await writeFile(path.join(ws, 'ld/a.txt'), '');
  assert.equal(await ok('list_dir', { path: 'ld' }), 'a.txt\nb.txt\nsub/');
  assert.ok((await ok('list_dir', { path: '.' })).split('\n').includes('proj/'));
  assert.match(await ok('list_dir', { path: 'ld/sub' }), /empty folder/);
  await mkdir(path.join(ws, 'many'));
  await Promise.all(Array.from({ length: 503 }, (_, i) => writeFile(path.join(ws, 'many', `f${String(i).padStart(3, '0')}`), '')));
  const lines = (await ok('list_dir', { path: 'many' })).split('\n');
  assert.equal(lines.length, 501);
  assert.match(lines[500], /and 3 more entries/);
});

test('glob: sorted, paged with the header first, skips heavy and dot folders unless named', async () => {
  await mkdir(path.join(ws, 'g/node_modules/pkg'), { recursive: true });
  await mkdir(path.join(ws, 'g/.hidden'), { recursive: true });
  await mkdir(path.join(ws, 'g/src/deep'), { recursive: true });
  await writeFile(path.join(ws, 'g/node_modules/pkg/i.ts'), '');
  await writeFile(path.join(ws, 'g/.hidden/h.ts'), '');
  await writeFile(path.join(ws, 'g/src/b.ts'), '');
  await writeFile(path.join(ws, 'g/src/deep/a.ts'), '');
  await writeFile(path.join(ws, 'g/top.ts'), '');
  assert.equal(await ok('glob', { pattern: '**/*.ts', path: 'g' }), 'matches 1-3 of 3\ng/src/b.ts\ng/src/deep/a.ts\ng/top.ts');
  assert.match(await ok('glob', { pattern: 'node_modules/**/*.ts', path: 'g' }), /g\/node_modules\/pkg\/i.ts/);
  assert.match(await ok('glob', { pattern: '.hidden/*.ts', path: 'g' }), /g\/.hidden\/h.ts/);
  assert.match(await ok('glob', { pattern: '**/lib.ts' }), /proj\/lib.ts/);
  assert.equal(await ok('glob', { pattern: 'proj/*.ts' }), 'matches 1-1 of 1\nproj/lib.ts');
  assert.equal(await ok('glob', { pattern: 'g/src/**/*.ts' }), 'matches 1-2 of 2\ng/src/b.ts\ng/src/deep/a.ts');
  assert.equal(await ok('glob', { pattern: 'src/*.ts', path: 'g' }), 'matches 1-1 of 1\ng/src/b.ts');
  const page = await ok('glob', { pattern: 'many/*' });
  assert.equal(page.split('\n')[0], 'matches 1-500; more remain, call again with offset=500');
  assert.equal(await ok('glob', { pattern: 'many/*', offset: 500 }), 'matches 501-503 of 503\nmany/f500\nmany/f501\nmany/f502');
  assert.match(await ok('glob', { pattern: '*.nothing' }), /no files match/);
});

test('delete_file: a file or an empty folder, never a root, permission class delete', async () => {
  // The class is derived per path: `delete` unless the path is protected (test/security/protected-paths.test.ts).
  const permission = t.engine.tools.get('delete_file')!.permission;
  assert.equal(typeof permission === 'function' ? (await permission({ path: 'd/x.txt' }, {} as never)).class : permission, 'delete');
  await ok('write_file', { path: 'd/x.txt', content: 'x' });
  await fails('delete_file', { path: 'd' }, /not empty/);
  assert.equal(await ok('delete_file', { path: 'd/x.txt' }), 'deleted d/x.txt');
  assert.equal(await ok('delete_file', { path: 'd' }), 'deleted d');
  await fails('delete_file', { path: '.' }, /root/);
  await fails('delete_file', { path: 'proj' }, /root/);
  await fails('delete_file', { path: 'proj/' }, /root/);
  await fails('delete_file', { path: 'nothing-here' }, /does not exist/);
});

test('search_code says no embeddings endpoint is configured', async () => {
  await fails('search_code', { query: 'where are uploads retried' }, /no embeddings endpoint is configured/);
});

test('grep: rows, paging header first, include/exclude, offset', async () => {
  await mkdir(path.join(ws, 'gr'), { recursive: true });
  await writeFile(path.join(ws, 'gr/a.ts'), Array.from({ length: 250 }, (_, i) => `needle ${i}`).join('\n') + '\n');
  await writeFile(path.join(ws, 'gr/b.md'), 'needle in markdown\n');
  const first = (await ok('grep', { pattern: 'needle', path: 'gr' })).split('\n');
  assert.equal(first[0], 'matches 1-200; more remain, call again with offset=200');
  assert.equal(first[1], 'gr/a.ts:1: needle 0');
  assert.equal(first.length, 201);
  const second = (await ok('grep', { pattern: 'needle', path: 'gr', offset: '200' })).split('\n');
  assert.equal(second[0], 'matches 201-251 of 251');
  assert.equal(second[second.length - 1], 'gr/b.md:1: needle in markdown');
  assert.equal(await ok('grep', { pattern: 'needle', path: 'gr', include: '*.md' }), 'matches 1-1 of 1\ngr/b.md:1: needle in markdown');
  assert.equal((await ok('grep', { pattern: 'needle', path: 'gr', exclude: '*.ts' })).split('\n').length, 2);
  assert.equal(await ok('grep', { pattern: 'NEEDLE 24\\d', path: 'gr/a.ts', ignore_case: 'true', head_limit: '2' }), 'matches 1-2; more remain, call again with offset=2\ngr/a.ts:241: needle 240\ngr/a.ts:242: needle 241');
  assert.match(await ok('grep', { pattern: 'fromMount' }), /proj\/lib.ts:1: export const fromMount = 1;/);
  assert.match(await ok('grep', { pattern: 'zzzz-not-there' }), /no matches/);
  await fails('grep', { pattern: 'x', offset: 10_001 }, /Invalid arguments for tool "grep": field "offset"/);
});

test('the escape corpus through the tools: all refused, outside untouched', async () => {
  await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'tleak.txt'));
  await symlink(outside, path.join(ws, 'tleakdir'));
  const attempts: Array<[string, Record<string, unknown>]> = [
    ['read_file', { path: '../secret.txt' }],
    ['read_file', { path: path.join(outside, 'secret.txt') }],
    ['read_file', { path: 'tleak.txt' }],
    ['read_file', { path: 'tleakdir/secret.txt' }],
    ['read_file', { path: '%2e%2e/x' }],
    ['write_file', { path: 'tleak.txt', content: 'pwned' }],
    ['write_file', { path: 'tleakdir/secret.txt', content: 'pwned' }],
    ['write_file', { path: 'tleakdir/fresh.txt', content: 'pwned' }],
    ['write_file', { path: 'a/../../x.txt', content: 'pwned' }],
    ['write_file', { path: 'a\\..\\..\\x.txt', content: 'pwned' }],
    ['edit_file', { path: 'tleak.txt', old_string: 'secret', new_string: 'pwned' }],
    ['multi_edit', { path: 'tleakdir/secret.txt', edits: [{ old_string: 'secret', new_string: 'pwned' }] }],
    ['delete_file', { path: 'tleakdir/secret.txt' }],
    ['delete_file', { path: '..' }],
    ['list_dir', { path: 'tleakdir' }],
    ['list_dir', { path: '..' }],
    ['list_dir', { path: '/' }],
    ['grep', { pattern: 'secret', path: 'tleakdir' }],
    ['grep', { pattern: 'secret', path: '../' }],
    ['glob', { pattern: '*', path: 'tleakdir' }],
    ['glob', { pattern: '*', path: '/etc' }],
    ['read_file', { path: 'x\0y' }],
  ];
  for (const [name, args] of attempts) {
    const r = await call(name, args);
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} answered ${r.text}`);
  }
  assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
  await assert.rejects(stat(path.join(outside, 'fresh.txt')));
  // and nothing leaks through a whole-tree grep or glob
  assert.doesNotMatch(await ok('grep', { pattern: 'secret' }), /tleak/);
  assert.doesNotMatch(await ok('glob', { pattern: '**/*' }), /tleak/);
});

// ---- registry behaviour, through the file tools and two tools registered for the test ----------

test('coercion: "5", "true", "a,b" and "" on an optional argument', async () => {
  await ok('write_file', { path: 'c.txt', content: '1\n2\n3\n4\n5\n6\n' });
  assert.equal(await ok('read_file', { path: 'c.txt', offset: '5', limit: '1' }), '[lines 5-5 of 6; more remain, call again with offset=6]\n5');
  assert.match(await ok('grep', { pattern: 'FROMMOUNT', ignore_case: 'true' }), /proj\/lib.ts/);
  assert.match(await ok('grep', { pattern: 'fromMount', path: '' }), /proj\/lib.ts/); // "" means absent: every root
  let got: unknown;
  t.engine.tools.register(
    defineTool<{ names: string[] }>({
      name: 'test_split',
      group: 'test',
      description: 'test tool',
      parameters: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } }, required: ['names'] },
      permission: 'other',
      run: async (args) => {
        got = args.names;
        return 'ok';
      },
    }),
  );
  await ok('test_split', { names: 'a,b' });
  assert.deepEqual(got, ['a', 'b']);
  t.engine.tools.unregister('test_split');
});

test('validation: one uniform error naming the tool and the field', async () => {
  assert.equal((await call('read_file', {})).text, 'Invalid arguments for tool "read_file": field "path" is required.');
  assert.equal((await call('read_file', { path: 'c.txt', offset: 'two' })).text, 'Invalid arguments for tool "read_file": field "offset" must be integer.');
  assert.equal((await call('write_file', { path: 'c.txt', content: 'x', mode: 1 })).text, 'Invalid arguments for tool "write_file": field "mode" is not a known argument (the arguments are: path, content).');
  assert.match((await call('write_file', 'not json')).text, /Invalid arguments for tool "write_file"/);
  assert.match((await call('no_such_tool', {})).text, /Unknown tool "no_such_tool"/);
});

test('clipping: a long result is cut at 24 000 characters with a note naming what was dropped', async () => {
  await ok('write_file', { path: 'long.txt', content: 'x'.repeat(30_000) });
  // One line longer than a read_file page: the header comes first, so the clip cannot remove it.
  const text = await ok('read_file', { path: 'long.txt' });
  assert.equal(text.length, 24_000);
  assert.ok(text.startsWith('[lines 1-1 of 1]\nxxx'), text.slice(0, 40));
  assert.match(text, /\[clipped: dropped the last \d+ of 30017 characters; ask for a narrower range or the next page\]$/);
});

test('read-only calls run four at a time, others serially and in order', async () => {
  const log: string[] = [];
  let running = 0;
  let peak = 0;
  const gates: Array<() => void> = [];
  const slow = (name: string, readOnly: boolean) =>
    defineTool<{ id: string }>({
      name,
      group: 'test',
      readOnly,
      description: 'test tool',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      permission: 'other',
      run: async (args) => {
        running++;
        peak = Math.max(peak, running);
        log.push(`start ${args.id}`);
        // Wait until released: proves concurrency without any timing.
        await new Promise<void>((resolve) => {
          gates.push(resolve);
          if (readOnly && gates.length >= 4) gates.splice(0).forEach((g) => g());
          if (!readOnly) gates.splice(0).forEach((g) => g());
          // a read-only group smaller than four (r5, r6, r7) releases itself once its peers started
          if (readOnly && ['r5', 'r6', 'r7'].includes(args.id)) setImmediate(() => gates.splice(0).forEach((g) => g()));
        });
        // release stragglers of a read-only group smaller than 4
        setImmediate(() => gates.splice(0).forEach((g) => g()));
        log.push(`end ${args.id}`);
        running--;
        return args.id;
      },
    });
  t.engine.tools.register(slow('test_ro', true), slow('test_rw', false));
  const calls = [
    ...['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((id) => ({ callId: id, name: 'test_ro', args: { id } })),
    { callId: 'w1', name: 'test_rw', args: { id: 'w1' } },
    { callId: 'w2', name: 'test_rw', args: { id: 'w2' } },
    { callId: 'r7', name: 'test_ro', args: { id: 'r7' } },
  ];
  const out = await t.engine.tools.runBatch(calls, ctx());
  assert.deepEqual(out.map((o) => o.text), ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'w1', 'w2', 'r7']);
  assert.equal(peak, 4);
  // the first four started before any ended
  assert.deepEqual(log.slice(0, 4), ['start r1', 'start r2', 'start r3', 'start r4']);
  // the writers run alone, in order, after every earlier read-only call ended
  const at = (s: string) => log.indexOf(s);
  for (const r of ['r1', 'r2', 'r3', 'r4', 'r5', 'r6']) assert.ok(at(`end ${r}`) < at('start w1'));
  assert.ok(at('end w1') < at('start w2'));
  assert.ok(at('end w2') < at('start r7'));
  // the events tell the same story
  const results = seen.filter((e) => e.kind === 'tool.result' && ['w1', 'w2', 'r7'].includes(String(e.callId))).map((e) => e.callId);
  assert.deepEqual(results, ['w1', 'w2', 'r7']);
  t.engine.tools.unregister('test_ro', 'test_rw');
});
