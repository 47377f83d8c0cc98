import assert from 'node:assert/strict';
import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ToolContext } from '../../src/tools/types.js';
import { startTestEngine, tempDir, type TestEngine } from '../support/engine.js';

// One home, two engines: one finds rg on PATH, the other is told there is none (the walk).
let withRg: TestEngine;
let withoutRg: TestEngine;
let proj: string;

async function fixture(ws: string, mount: string) {
  const f = async (rel: string, text: string | Buffer, base = ws) => {
    await mkdir(path.dirname(path.join(base, rel)), { recursive: true });
    await writeFile(path.join(base, rel), text);
  };
  await f('.gitignore', 'ignored.txt\nbuild/\n*.log\n!keep.log\nnode_modules\n/rooted.md\n');
  await f('a.txt', 'needle one\nno match\nneedle needle twice\n');
  await f('a/x.md', 'deep Needle here\n');
  await f('B.txt', 'Needle upper file\n');
  await f('ignored.txt', 'needle ignored\n');
  await f('drop.log', 'needle log\n');
  await f('keep.log', 'needle kept log\n');
  await f('rooted.md', 'needle rooted\n');
  await f('sub/rooted.md', 'needle not rooted\n');
  await f('build/out.js', 'needle build\n');
  await f('node_modules/m/index.js', 'needle module\n');
  await f('.hidden/h.txt', 'needle hidden\n');
  await f('.env', 'needle env\n');
  await f('sub/.ignore', 'local.txt\n');
  await f('sub/local.txt', 'needle local\n');
  await f('sub/build/y.txt', 'needle sub build\n');
  await f('sub/deeper/local.txt', 'needle deeper local\n');
  await f('sub/deeper/other.txt', 'needle deeper other\n');
  await f('sub/kept.ts', 'const s = "a.b(c needle";\n');
  await f('sub/crlf.txt', 'needle crlf\r\nsecond\r\n');
  await f('uni.md', 'héllo needle ünïcode needle\n');
  await f('long.txt', 'x'.repeat(400) + ' needle\n');
  await f('bin.dat', Buffer.concat([Buffer.from('needle binary\n'), Buffer.from([0, 1, 2]), Buffer.from('needle\n')]));
  await symlink(path.join(ws, 'a.txt'), path.join(ws, 'link.txt'));
  await symlink(path.join(ws, 'sub'), path.join(ws, 'linkdir'));
  // more matching lines than grep holds unsorted, so ripgrep re-runs sorted and stops at the page
  await f('big/many.txt', Array.from({ length: 25_000 }, (_, i) => `haystack ${i + 1}`).join('\n') + '\n');
  await f('.gitignore', 'skip-in-mount.txt\n', mount);
  await f('m.txt', 'needle in mount\n', mount);
  await f('skip-in-mount.txt', 'needle skipped\n', mount);
}

before(async () => {
  withRg = await startTestEngine({ files: { watch: false } });
  assert.ok(withRg.engine.tools.get('grep'));
  withoutRg = await startTestEngine({ home: withRg.home, files: { watch: false, rg: null } });
  proj = await realpath(await tempDir('parity-proj-'));
  await withRg.api('POST', '/api/mounts', { path: proj, name: 'proj' });
  await withoutRg.engine.close();
  withoutRg = await startTestEngine({ home: withRg.home, files: { watch: false, rg: null } });
  await fixture(await realpath(path.join(withRg.home, 'workspace')), proj);
});
after(async () => {
  await withoutRg.engine.close();
  await withRg.close();
  await rm(proj, { recursive: true, force: true });
});

const ctx = (t: TestEngine): Omit<ToolContext, 'callId'> => ({ signal: new AbortController().signal, emit: (k, p) => t.engine.bus.emit(k, p), attended: false });

const cases: Array<Record<string, unknown>> = [
  { pattern: 'needle' },
  { pattern: 'NEEDLE', ignore_case: true },
  { pattern: 'a.b(c', literal: true },
  { pattern: 'needle', include: '*.md' },
  { pattern: 'needle', include: 'sub/**' },
  { pattern: 'needle', exclude: '*.txt' },
  { pattern: 'needle', include: '*.txt' },
  { pattern: 'needle', include: '*.md,*.log' },
  { pattern: 'needle', include: '*.{md,ts}', exclude: 'sub/**' },
  { pattern: 'needle', path: 'sub' },
  { pattern: 'needle', path: 'sub/deeper' },
  { pattern: 'needle', path: 'ignored.txt' },
  { pattern: 'needle', path: 'proj' },
  { pattern: 'ne+dle\\s\\w+', head_limit: 3 },
  { pattern: 'needle', head_limit: 2, offset: 3 },
  { pattern: '^needle', ignore_case: true },
  { pattern: 'haystack', offset: 10_000 },
  { pattern: 'haystack \\d+5$', offset: 2_000, head_limit: 3 },
];

test('grep gives the same rows with and without ripgrep on PATH', async () => {
  for (const args of cases) {
    const a = await withRg.engine.tools.call({ callId: 'a', name: 'grep', args }, ctx(withRg));
    const b = await withoutRg.engine.tools.call({ callId: 'b', name: 'grep', args }, ctx(withoutRg));
    assert.equal(a.isError, false, a.text);
    assert.equal(b.text, a.text, `grep ${JSON.stringify(args)}`);
  }
  const two = (await withRg.engine.tools.call({ callId: 't', name: 'grep', args: { pattern: 'needle', include: '*.md,*.log' } }, ctx(withRg))).text;
  assert.ok(two.includes('keep.log:1:') && two.includes('uni.md:1:') && !two.includes('a.txt'), two);
  const sub = (await withoutRg.engine.tools.call({ callId: 's', name: 'grep', args: { pattern: 'needle', path: 'sub/deeper' } }, ctx(withoutRg))).text;
  assert.equal(sub, 'matches 1-1 of 1\nsub/deeper/other.txt:1: needle deeper other');
  const deep = (await withRg.engine.tools.call({ callId: 'd', name: 'grep', args: { pattern: 'haystack', offset: 10_000, head_limit: 2 } }, ctx(withRg))).text;
  assert.equal(deep, 'matches 10001-10002; more remain, call again with offset=10002\nbig/many.txt:10001: haystack 10001\nbig/many.txt:10002: haystack 10002');
  // and the fixture really exercises the ignore rules
  const all = (await withRg.engine.tools.call({ callId: 'c', name: 'grep', args: { pattern: 'needle' } }, ctx(withRg))).text;
  for (const hidden of ['ignored.txt', 'drop.log', 'build/', 'node_modules', '.hidden', '.env', 'sub/local.txt', 'link', 'bin.dat', 'skip-in-mount', ':1: needle rooted']) {
    assert.ok(!all.includes(hidden), `${hidden} should be skipped:\n${all}`);
  }
  for (const shown of ['keep.log:1:', 'sub/rooted.md:1:', 'proj/m.txt:1:', 'uni.md:1:', 'sub/crlf.txt:1: needle crlf\n']) assert.ok(all.includes(shown), `${shown} missing:\n${all}`);
});

test('GET /api/search gives the same results with and without ripgrep', async () => {
  for (const q of ['needle', 'NEEDLE&case=1', 'ne.dle&regex=1', encodeURIComponent('ünïcode')]) {
    const a = await withRg.api('GET', `/api/search?q=${q}`);
    const b = await withoutRg.api('GET', `/api/search?q=${q}`);
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body, q);
  }
  const uni = await withRg.api('GET', `/api/search?q=${encodeURIComponent('ünïcode')}`);
  assert.deepEqual(uni.body.results[0].matches[0], { line: 1, col: 14, len: 7, text: 'héllo needle ünïcode needle' });
});
